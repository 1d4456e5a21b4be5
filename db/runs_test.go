package db

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sahilm/fuzzy"
	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

// writeRun stores a finished run whose output is the given lines.
func writeRun(t testing.TB, st *Store, argv []string, feature string, lines []string) model.RunRecord {
	t.Helper()
	w, err := st.StartRun(model.RunRecord{Argv: argv, Feature: feature, Start: time.Now(), Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		writeRaw(w, []byte(l+"\n"))
		indexLine(w, l)
	}
	rec, err := w.Finish(model.RunRecord{Argv: argv, Feature: feature, Outcome: "exited", Start: time.Now()}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestRunOutputRoundTripsExactly(t *testing.T) {
	st := newStore(t)
	w, err := st.StartRun(model.RunRecord{Argv: []string{"gen"}, Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	// More than one output chunk, with every byte value, written in odd sizes.
	rng := rand.New(rand.NewPCG(1, 2))
	want := make([]byte, maxOutputChunk+12345)
	for i := range want {
		want[i] = byte(rng.UintN(256))
	}
	for rest := want; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(100_000))
		writeRaw(w, rest[:n])
		rest = rest[n:]
	}
	rec, err := w.Finish(model.RunRecord{Argv: []string{"gen"}, Outcome: "exited"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Bytes != int64(len(want)) {
		t.Fatalf("record says %d bytes, wrote %d", rec.Bytes, len(want))
	}
	var got []byte
	for off := int64(0); ; {
		data, next, err := st.ReadOutput(rec.ID, off, 1<<20+7)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) == 0 {
			break
		}
		got, off = append(got, data...), next
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read back %d bytes, differ from the %d written", len(got), len(want))
	}
	stored, _ := st.Run(rec.ID)
	if stored.Outcome != "exited" || stored.Bytes != int64(len(want)) {
		t.Fatalf("stored record = %+v", stored)
	}
}

func TestRunningOutputIsVisibleToReaders(t *testing.T) {
	st := newStore(t)
	w, err := st.StartRun(model.RunRecord{Argv: []string{"slow"}, Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	writeRaw(w, []byte("first line\n"))
	indexLine(w, "first line")
	// The 250 ms target is measured by BenchmarkLiveOutput; here only that
	// it shows while the run is still going.
	deadline := time.Now().Add(2 * time.Minute) // a backstop
	for {
		data, _, err := st.ReadOutput(w.ID(), 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) == "first line\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("output of a running command not visible while it runs")
		}
		time.Sleep(10 * time.Millisecond)
	}
	runs, _ := st.Runs(0)
	if len(runs) != 1 || runs[0].Outcome != model.RunRunning {
		t.Fatalf("runs = %+v", runs)
	}
	w.Finish(model.RunRecord{Outcome: "exited"}, 0)
}

func TestRecallRanksLikeFuzzyFind(t *testing.T) {
	st := newStore(t)
	var all []string // in recall's scan order: newest run first
	var runs [][]string
	rng := rand.New(rand.NewPCG(3, 4))
	words := []string{"error", "FAIL", "ok", "TestLogin", "timeout", "panic:", "github.com/x/y", "warning", "pkg/auth", "", "résumé"}
	for r := range 5 {
		var lines []string
		for range 2000 {
			n := 1 + rng.IntN(5)
			var parts []string
			for range n {
				parts = append(parts, words[rng.IntN(len(words))])
			}
			lines = append(lines, strings.Join(parts, " "))
		}
		runs = append(runs, lines)
		writeRun(t, st, []string{"cmd", fmt.Sprint(r)}, "", lines)
	}
	for r := len(runs) - 1; r >= 0; r-- {
		all = append(all, runs[r]...)
	}
	for _, q := range []string{"fail", "tstlgn", "err", "PANIC", "pkgauth", "é", "gcxy", "zzz"} {
		hits, err := st.Recall(model.RecallQuery{Query: q, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		want := fuzzy.Find(q, all)
		if len(want) > 20 {
			want = want[:20]
		}
		if len(hits) != len(want) {
			t.Fatalf("%q: %d hits, fuzzy.Find has %d", q, len(hits), len(want))
		}
		for i := range want {
			if hits[i].Text != want[i].Str || hits[i].Score != want[i].Score {
				t.Fatalf("%q hit %d = %q (%d), fuzzy.Find = %q (%d)", q, i, hits[i].Text, hits[i].Score, want[i].Str, want[i].Score)
			}
			// Line numbers point at the same text.
			run := 4 - want[i].Index/2000
			if hits[i].Line != want[i].Index%2000+1 || hits[i].Argv[1] != fmt.Sprint(run) {
				t.Fatalf("%q hit %d at run %v line %d, want run %d line %d", q, i, hits[i].Argv, hits[i].Line, run, want[i].Index%2000+1)
			}
		}
	}
}

func TestRecallFiltersAndForget(t *testing.T) {
	st := newStore(t)
	a := writeRun(t, st, []string{"go", "test"}, "auth", []string{"--- FAIL: TestLogin", "ok"})
	writeRun(t, st, []string{"make"}, "ui", []string{"FAIL: build"})
	hits, _ := st.Recall(model.RecallQuery{Query: "fail"})
	if len(hits) != 2 {
		t.Fatalf("hits = %+v", hits)
	}
	hits, _ = st.Recall(model.RecallQuery{Query: "fail", Feature: "auth"})
	if len(hits) != 1 || hits[0].RunID != a.ID || hits[0].Line != 1 {
		t.Fatalf("feature filter: %+v", hits)
	}
	hits, _ = st.Recall(model.RecallQuery{Query: "fail", RunID: a.ID})
	if len(hits) != 1 {
		t.Fatalf("run filter: %+v", hits)
	}
	if n, err := st.Forget(model.ForgetQuery{RunID: a.ID}); n != 1 || err != nil {
		t.Fatalf("forget = %d, %v", n, err)
	}
	if hits, _ = st.Recall(model.RecallQuery{Query: "fail"}); len(hits) != 1 {
		t.Fatalf("after forget: %+v", hits)
	}
	rec, _ := st.Run(a.ID)
	if rec == nil || !rec.Forgotten {
		t.Fatalf("record after forget = %+v; it must stay, marked forgotten", rec)
	}
	if data, _, _ := st.ReadOutput(a.ID, 0, 100); len(data) != 0 {
		t.Fatalf("output after forget = %q", data)
	}
}

func TestRetainKeepsNewestOutput(t *testing.T) {
	st := newStore(t)
	var ids []string
	for i := range 4 {
		ids = append(ids, writeRun(t, st, []string{"run", fmt.Sprint(i)}, "", []string{strings.Repeat("x", 99)}).ID)
		time.Sleep(2 * time.Millisecond) // ids are millisecond-sortable
	}
	var n int
	err := st.update(func(tx *bolt.Tx) (err error) {
		n, err = st.retainTx(tx, 250)
		return err
	})
	if err != nil || n != 2 {
		t.Fatalf("retain = %d, %v; want 2 runs forgotten", n, err)
	}
	for i, id := range ids {
		rec, _ := st.Run(id)
		if rec.Forgotten != (i < 2) {
			t.Errorf("run %d forgotten = %v", i, rec.Forgotten)
		}
	}
}

func TestIndexStopsAtItsBudgetOutputDoesNot(t *testing.T) {
	st := newStore(t)
	w, err := st.StartRun(model.RunRecord{Argv: []string{"flood"}, Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	w.maxIndex = 100
	for i := range 50 {
		line := fmt.Sprintf("line %02d", i) // 7 bytes + newline
		writeRaw(w, []byte(line+"\n"))
		indexLine(w, line)
	}
	rec, err := w.Finish(model.RunRecord{Outcome: "exited"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.IndexTruncated || rec.IndexedBytes != 96 || rec.Lines != 50 || rec.Bytes != 400 {
		t.Fatalf("record = %+v", rec)
	}
	if hits, _ := st.Recall(model.RecallQuery{Query: "line 11"}); len(hits) != 1 || hits[0].Line != 12 {
		t.Fatalf("indexed line not found: %+v", hits)
	}
	if hits, _ := st.Recall(model.RecallQuery{Query: "line 40"}); len(hits) != 0 {
		t.Fatalf("a line past the budget was indexed: %+v", hits)
	}
	if data, _, _ := st.ReadOutput(rec.ID, 392, 100); string(data) != "line 49\n" {
		t.Fatalf("raw output past the index budget = %q", data)
	}
}

func TestFinishAppliesRetention(t *testing.T) {
	st := newStore(t)
	old := writeRun(t, st, []string{"old"}, "", []string{strings.Repeat("o", 499)})
	time.Sleep(2 * time.Millisecond)
	w, _ := st.StartRun(model.RunRecord{Argv: []string{"new"}, Start: time.Now()})
	writeRaw(w, []byte(strings.Repeat("n", 600)))
	if _, err := w.Finish(model.RunRecord{Outcome: "exited"}, 1000); err != nil {
		t.Fatal(err)
	}
	if rec, _ := st.Run(old.ID); !rec.Forgotten {
		t.Fatal("the oldest run's output was kept past the retention budget")
	}
	// The running total now knows the budget holds: a small run forgets nothing.
	writeRun(t, st, []string{"small"}, "", []string{"x"})
	w, _ = st.StartRun(model.RunRecord{Argv: []string{"tiny"}, Start: time.Now()})
	if _, err := w.Finish(model.RunRecord{Outcome: "exited"}, 1000); err != nil {
		t.Fatal(err)
	}
	runs, _ := st.Runs(0)
	forgotten := 0
	for _, r := range runs {
		if r.Forgotten {
			forgotten++
		}
	}
	if forgotten != 1 {
		t.Fatalf("%d runs forgotten, want 1", forgotten)
	}
}

// BenchmarkLiveOutput: how long until a line written by a running command is
// readable by another reader of the store. Target: under 250 ms.
func BenchmarkLiveOutput(b *testing.B) {
	st := newStore(b)
	w, err := st.StartRun(model.RunRecord{Argv: []string{"live"}, Start: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Finish(model.RunRecord{Outcome: "exited"}, 0)
	var times []time.Duration
	var off int64
	for i := 0; b.Loop(); i++ {
		line := fmt.Sprintf("line %d\n", i)
		start := time.Now()
		writeRaw(w, []byte(line))
		for {
			data, next, err := st.ReadOutput(w.ID(), off, 1<<20)
			if err != nil {
				b.Fatal(err)
			}
			if string(data) == line {
				off = next
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(times[len(times)-1].Microseconds())/1000, "max-ms")
}
