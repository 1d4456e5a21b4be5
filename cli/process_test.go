package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/testbin"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/runner"
)

// binary is the real flowdeck, built once for the tests that need processes.
var binary string

func TestMain(m *testing.M) {
	runner.Reexec() // in-process captures re-execute this test binary to join cgroups
	// flowdeck init records the projects it ran in (for fleet list): the
	// tests' throwaway projects go to a state directory of their own.
	state, err := os.MkdirTemp("", "flowdeck-test-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", state)
	// flowdeck-mcp too: a real client's project MCP server (init's
	// .mcp.json) runs `flowdeck mcp`, which execs it.
	if binary, err = testbin.Build(testbin.Flowdeck, testbin.MCP); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	testbin.Cleanup()
	os.RemoveAll(state)
	os.Exit(code)
}

// flowdeck runs the real binary in project dir and returns stdout, stderr and
// the exit code.
func flowdeck(t testing.TB, dir string, args ...string) (string, string, int) {
	t.Helper()
	return flowdeckEnv(t, dir, nil, args...)
}

// flowdeckEnv is flowdeck with extra environment.
func flowdeckEnv(t testing.TB, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--dir", dir}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	return runProcess(t, cmd)
}

// runProcess runs cmd and returns its stdout, stderr and exit code; only a
// command that cannot start fails the test.
func runProcess(t testing.TB, cmd *exec.Cmd) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if x, ok := err.(*exec.ExitError); ok {
		code = x.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestConcurrentProcessesLoseNothing: 4 writers, each performing 250 note
// actions through the real binary, on one project at once.
func TestConcurrentProcessesLoseNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 1,000 processes; skipped with -short")
	}
	dir := t.TempDir()
	if _, errs, code := flowdeck(t, dir, "flow", "plan", "start", "concurrency"); code != 0 {
		t.Fatalf("plan start: %s", errs)
	}
	const writers, each = 4, 250
	var wg sync.WaitGroup
	failures := make(chan string, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				_, errs, code := flowdeck(t, dir, "flow", "note", fmt.Sprintf("w%d-%d", w, i))
				if code != 0 {
					failures <- fmt.Sprintf("writer %d action %d: exit %d: %s", w, i, code, errs)
				}
			}
		})
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Active()
	if err != nil {
		t.Fatal(err)
	}
	events, err := st.Events(s.ID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, e := range events {
		if e.Type == model.EventNoteAdded {
			notes = append(notes, e.Text)
		}
	}
	if len(notes) != writers*each || s.NotesTotal != writers*each {
		t.Fatalf("%d note events, notes_total %d; want %d", len(notes), s.NotesTotal, writers*each)
	}
	slices.Sort(notes)
	if len(slices.Compact(notes)) != writers*each {
		t.Fatal("duplicate note events")
	}
	if out, errs, code := flowdeck(t, dir, "flow", "verify"); code != 0 {
		t.Fatalf("verify: %s %s", out, errs)
	}
}

func TestExitCodesAndJSONShape(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"summary":"s","features":[{"id":"a","title":"A"},{"id":"b","title":"B","depends_on":["a"]}]}`), 0o644)

	// Usage error: exit 2, message on stderr.
	if _, errs, code := flowdeck(t, dir, "flow", "validate", "a", "--status", "passed"); code != ExitUsage || errs == "" {
		t.Fatalf("missing flags: exit %d, stderr %q", code, errs)
	}
	// Rejected: exit 1, JSON error with code and recovery.
	out, _, code := flowdeck(t, dir, "--json", "flow", "plan", "approve")
	if code != ExitRejected {
		t.Fatalf("approve without session: exit %d", code)
	}
	var res struct {
		OK    bool         `json:"ok"`
		Error *model.Error `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.OK || res.Error.Code != model.CodeNoActiveSession || res.Error.Recovery.NextCommand == "" {
		t.Fatalf("refusal JSON = %s (%v)", out, err)
	}
	// Accepted: exit 0, the session's summary, compact events and next_command.
	flowdeck(t, dir, "flow", "plan", "start", "json", "shape")
	out, _, code = flowdeck(t, dir, "--json", "flow", "plan", "apply", plan)
	var ok struct {
		OK          bool                `json:"ok"`
		Session     *ops.SessionSummary `json:"session"`
		Events      []ops.EventView     `json:"events"`
		NextCommand string              `json:"next_command"`
	}
	if err := json.Unmarshal([]byte(out), &ok); err != nil || code != 0 || !ok.OK || ok.Session.Counts["features"] != 2 ||
		len(ok.Events) != 1 || ok.Events[0].Features != 2 || ok.NextCommand != "flowdeck flow plan approve" {
		t.Fatalf("apply JSON = %s (exit %d, %v)", out, code, err)
	}
	// --full: the whole stored session.
	out, _, _ = flowdeck(t, dir, "--json", "flow", "status", "--full")
	var full struct {
		Session *model.Session `json:"session"`
	}
	if err := json.Unmarshal([]byte(out), &full); err != nil || full.Session == nil || len(full.Session.Plan.Features) != 2 {
		t.Fatalf("status --full = %s (%v)", out, err)
	}
	// A broken plan file is a usage error naming the file and line.
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"summary\": \"s\",\n  \"feature\": []\n}"), 0o644)
	if _, errs, code := flowdeck(t, dir, "flow", "plan", "apply", bad); code != ExitUsage || !bytes.Contains([]byte(errs), []byte("bad.json: line 3")) {
		t.Fatalf("bad plan: exit %d, stderr %q", code, errs)
	}
	// --actor is recorded on the event.
	out, _, _ = flowdeck(t, dir, "--json", "--actor", "agent-7", "flow", "note", "hello")
	if !bytes.Contains([]byte(out), []byte(`"actor": "agent-7"`)) {
		t.Fatalf("actor not recorded: %s", out)
	}
}

// BenchmarkCLIAction runs `flowdeck flow note` as a process on a project with
// 10,000 events and reports the median wall time. Target: under 15 ms.
func BenchmarkCLIAction(b *testing.B) {
	dir := b.TempDir()
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.Do(model.PlanStart{Goal: "bench"}, "bench", time.Now()); err != nil {
		b.Fatal(err)
	}
	for i := range 10_000 - 1 {
		if _, err := st.Do(model.AddNote{Text: fmt.Sprintf("note %d", i)}, "bench", time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	var times []time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		if _, errs, code := flowdeck(b, dir, "flow", "note", "bench"); code != 0 {
			b.Fatal(errs)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
}

// --expect-seq: an action decided on an older state is refused
// stale_decision when what it decides changed since, and accepted when only
// unrelated things happened.
func TestExpectSeqRefusesStaleDecisions(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"summary":"s","features":[{"id":"a","title":"A"}]}`), 0o644)
	for _, args := range [][]string{
		{"flow", "plan", "start", "stale"}, {"flow", "plan", "apply", plan}, {"flow", "plan", "approve"}, {"flow", "run", "start", "a"},
		{"flow", "validate", "a", "--status", "passed", "--scope", "broad", "--command", "go test ./..."},
	} {
		if _, errs, code := flowdeck(t, dir, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	out, _, _ := flowdeck(t, dir, "--json", "flow", "status")
	var st struct {
		Session model.Session `json:"session"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	seen := fmt.Sprint(st.Session.Seq)
	// Something unrelated happens: the review decided on seen still counts.
	flowdeck(t, dir, "flow", "note", "lunch")
	// Someone else records needs_fix; the stale approval is refused.
	flowdeck(t, dir, "--actor", "bob", "flow", "review", "a", "--decision", "needs_fix", "--finding", "no tests")
	out, _, code := flowdeck(t, dir, "--json", "flow", "review", "a", "--decision", "approved", "--expect-seq", seen)
	var res struct {
		OK    bool         `json:"ok"`
		Error *model.Error `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != ExitRejected || res.OK || res.Error.Code != model.CodeStaleDecision ||
		!strings.Contains(res.Error.Message, "needs_fix by bob") {
		t.Fatalf("stale approval: exit %d, %s", code, out)
	}
	// Without the guard, or with the current sequence, it is accepted.
	out, _, _ = flowdeck(t, dir, "--json", "flow", "status")
	json.Unmarshal([]byte(out), &st)
	if _, errs, code := flowdeck(t, dir, "flow", "review", "a", "--decision", "approved", "--expect-seq", fmt.Sprint(st.Session.Seq)); code != 0 {
		t.Fatalf("current approval: exit %d: %s", code, errs)
	}
}
