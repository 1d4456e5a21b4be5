package db

import (
	"github.com/flowdeck/flowdeck/model"

	"strings"
	"testing"
	"time"
)

// abandon leaves w as a SIGKILL of its process would: what was flushed is
// committed, the liveness lock is dropped, Finish never happens.
func abandon(t *testing.T, w *RunWriter) {
	t.Helper()
	if err := w.flush(false); err != nil {
		t.Fatal(err)
	}
	close(w.done)
	w.lock.f.Close()
	w.lock = nil
}

func startRun(t *testing.T, st *Store, name string, out string) *RunWriter {
	t.Helper()
	w, err := st.StartRun(model.RunRecord{ID: NewRunID(time.Now()), Argv: []string{name}, Start: time.Now(), Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	writeRaw(w, []byte(out))
	time.Sleep(2 * time.Millisecond) // ids are millisecond-sortable
	return w
}

func outcomes(t *testing.T, st *Store) map[string]model.RunRecord {
	t.Helper()
	runs, err := st.Runs(0)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]model.RunRecord{}
	for _, r := range runs {
		m[r.Argv[0]] = r
	}
	return m
}

func TestDeadCapturerMeansInterrupted(t *testing.T) {
	st := newStore(t)
	var reaped []string
	Reaper = func(b []byte) { reaped = append(reaped, string(b)) }
	t.Cleanup(func() { Reaper = nil })

	dead := startRun(t, st, "dead", "kept\n")
	if err := dead.SetRemains([]byte(`{"pid":42}`)); err != nil {
		t.Fatal(err)
	}
	abandon(t, dead)
	alive := startRun(t, st, "alive", "still going\n")
	defer alive.Finish(model.RunRecord{Outcome: "exited"}, 0)

	got := outcomes(t, st)
	if r := got["dead"]; r.Outcome != model.RunInterrupted || r.ExitCode != -1 || r.Bytes != 5 {
		t.Fatalf("dead run: %+v", r)
	}
	if r := got["alive"]; r.Outcome != model.RunRunning {
		t.Fatalf("a live run was settled: %+v", r)
	}
	if len(reaped) != 1 || reaped[0] != `{"pid":42}` {
		t.Fatalf("reaper got %q", reaped)
	}
	if out, _, err := st.ReadOutput(got["dead"].ID, 0, 100); string(out) != "kept\n" || err != nil {
		t.Fatalf("output %q, %v", out, err)
	}
	// forget --all forgets the interrupted run, not the live one.
	if n, err := st.Forget(model.ForgetQuery{All: true}); n != 1 || err != nil {
		t.Fatalf("Forget(all) = %d, %v", n, err)
	}
	if r, _ := st.Run(alive.ID()); r.Forgotten || r.Outcome != model.RunRunning {
		t.Fatalf("live run after forget: %+v", r)
	}
}

func TestForgetRunSettlesADeadRun(t *testing.T) {
	st := newStore(t)
	w := startRun(t, st, "dead", "x\n")
	abandon(t, w)
	// No listing in between: forget itself sees that the capturer died.
	if n, err := st.Forget(model.ForgetQuery{RunID: w.ID()}); n != 1 || err != nil {
		t.Fatalf("Forget(run) = %d, %v", n, err)
	}
	if r, _ := st.Run(w.ID()); !r.Forgotten || r.Outcome != model.RunInterrupted {
		t.Fatalf("after forget: %+v", r)
	}
}

// Neither a live run nor a dead one makes retention forget newer runs.
func TestRetentionIsNotFooledByUnfinishedRuns(t *testing.T) {
	st := newStore(t)
	big := strings.Repeat("x", 199) + "\n"
	dead := startRun(t, st, "dead", big)
	abandon(t, dead)
	alive := startRun(t, st, "alive", big)
	if err := alive.flush(false); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"new1", "new2"} {
		w := startRun(t, st, name, strings.Repeat("y", 99)+"\n")
		if _, err := w.Finish(model.RunRecord{Argv: []string{name}, Outcome: "exited"}, 250); err != nil {
			t.Fatal(err)
		}
	}
	got := outcomes(t, st)
	if !got["dead"].Forgotten || got["dead"].Outcome != model.RunInterrupted {
		t.Fatalf("the interrupted run, oldest, should go first: %+v", got["dead"])
	}
	if got["new1"].Forgotten || got["new2"].Forgotten || got["alive"].Forgotten {
		t.Fatalf("newer runs forgotten: %+v", got)
	}
	if _, err := alive.Finish(model.RunRecord{Argv: []string{"alive"}, Outcome: "exited"}, 250); err != nil {
		t.Fatal(err)
	}
	got = outcomes(t, st)
	if !got["alive"].Forgotten || got["new1"].Forgotten || got["new2"].Forgotten {
		t.Fatalf("once the big run finished, it is the oldest and goes: %+v", got)
	}
}
