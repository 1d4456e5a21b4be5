package ui

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
)

// verifyProject is a project whose active feature "alpha" verifies with two
// commands (one plain, one needing a shell); "beta" waits for it.
func verifyProject(t *testing.T, verification ...string) (*db.Store, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	s := &seeder{tb: t, st: st, now: t0.Add(-time.Hour)}
	s.do(model.PlanStart{Goal: "Verify from the cockpit"})
	s.do(model.PlanApply{Plan: model.Plan{Features: []model.Feature{
		{ID: "alpha", Title: "Alpha", Verification: verification},
		{ID: "beta", Title: "Beta", DependsOn: []string{"alpha"}, Verification: []string{"true"}},
	}}})
	s.do(model.PlanApprove{})
	s.do(model.RunStart{Feature: "alpha"})
	return st, dir
}

// v runs the selected feature's verification commands through the runner,
// in the project root, and records them as observed evidence.
func TestVerifyRecordsObservedEvidence(t *testing.T) {
	st, dir := verifyProject(t, "pwd", `sh -c 'echo "12 passed"; echo second >&2'`)
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("v")
	h.keyAsync("y")
	h.pump(20*time.Second, "the verification to finish", func() bool { return len(h.m.jobs) == 0 })
	// The evidence makes alpha wait for review: its prompt opens by itself.
	h.pump(5*time.Second, "the review prompt", func() bool { return strings.Contains(h.screen(), "Review alpha") })
	h.mustSee("validation: targeted passed (observed) · sh -c")

	f := active(t, st).Plan.Feature("alpha")
	if len(f.Validations) != 2 {
		t.Fatalf("validations = %+v", f.Validations)
	}
	for _, v := range f.Validations {
		if v.Source != model.SourceObserved || v.Status != model.ValidationPassed || v.RunID == "" || v.Actor != "human" || v.Scope != model.ScopeTargeted {
			t.Errorf("evidence = %+v", v)
		}
	}
	runs, err := st.Runs(0)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs = %+v, %v", runs, err)
	}
	if got := runs[0].Argv; len(got) != 3 || got[2] != `echo "12 passed"; echo second >&2` {
		t.Errorf("the quoted command ran as %q", got)
	}
	if runs[1].Argv[0] != "pwd" || runs[1].Feature != "alpha" {
		t.Errorf("first run = %+v", runs[1])
	}
	out, _, err := st.ReadOutput(runs[1].ID, 0, 1<<20)
	if err != nil || strings.TrimSpace(string(out)) != dir {
		t.Errorf("pwd printed %q (%v), want the project root %s", out, err, dir)
	}
}

// v on a feature that is not active is refused before anything runs, with
// the model's reason and hint.
func TestVerifyRefusedNothingRuns(t *testing.T) {
	st, _ := verifyProject(t, "true")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("j") // beta: pending, not active
	h.key("v")
	h.keyAsync("y")
	h.pump(10*time.Second, "the refusal", func() bool { return len(h.m.jobs) == 0 })
	h.mustSee("refused (feature_not_active)")
	if runs, _ := st.Runs(0); len(runs) != 0 {
		t.Fatalf("a refused verification ran %d commands", len(runs))
	}
}

// A failing verification command stops the rest and records failed
// evidence; the note says so.
func TestVerifyStopsAtFirstFailure(t *testing.T) {
	st, _ := verifyProject(t, "sh -c 'echo boom; exit 3'", "true")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("v")
	h.keyAsync("y")
	h.pump(20*time.Second, "the verification to finish", func() bool { return len(h.m.jobs) == 0 })
	h.mustSee("→ alpha: failed (targeted, observed)", "1 more verification command(s) not run")
	if runs, _ := st.Runs(0); len(runs) != 1 || runs[0].ExitCode != 3 {
		t.Fatalf("runs = %+v", runs)
	}
}

// /run CMD runs any command in the project root; it is no evidence.
func TestCommandLineRun(t *testing.T) {
	st, _ := verifyProject(t, "true")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key(":")
	h.typeText("/run echo hello from the cockpit")
	h.keyAsync("enter")
	h.pump(20*time.Second, "the run to finish", func() bool { return len(h.m.jobs) == 0 })
	runs, _ := st.Runs(0)
	if len(runs) != 1 || runs[0].Feature != "" || strings.Join(runs[0].Argv, " ") != "echo hello from the cockpit" || runs[0].Actor != "human" {
		t.Fatalf("runs = %+v", runs)
	}
	h.mustSee("✓ echo hello from the cockpit", "hello from the cockpit")
	if len(active(t, st).Plan.Feature("alpha").Validations) != 0 {
		t.Fatal("/run recorded evidence")
	}
}

// pidOf waits for the pid a command wrote to a file.
func pidOf(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // a backstop
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the command never wrote its pid")
	return 0
}

func gone(pid int) bool {
	// The runner reaps its command; a pid that takes no signal is gone.
	// A zombie is dead too: its parent died first and init reaps it when it
	// gets to it (in a container, maybe never).
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) != nil
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(after, "Z") || strings.HasPrefix(after, "X")
}

// K stops a run the cockpit started, after a confirmation: its process
// group is killed and the run is recorded as cancelled.
func TestStopRunningJob(t *testing.T) {
	st, dir := verifyProject(t, "true")
	pidFile := filepath.Join(dir, "pid")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key(":")
	h.typeText("/run sh -c 'echo $$ > pid; echo waiting; exec sleep 60'")
	h.keyAsync("enter")
	pid := pidOf(t, pidFile)
	h.pump(5*time.Second, "the run in the runs pane", func() bool {
		r := h.m.runList.SelectedRecord()
		return r != nil && r.Outcome == model.RunRunning
	})
	h.key("K")
	h.mustSee("Stop sh -c", "process group")
	start := time.Now()
	h.keyAsync("y")
	h.pump(10*time.Second, "the stopped run", func() bool { return len(h.m.jobs) == 0 })
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stopping took %v", d)
	}
	h.mustSee("stopped:")
	if !gone(pid) {
		t.Fatalf("pid %d still runs after K", pid)
	}
	runs, _ := st.Runs(0)
	if len(runs) != 1 || runs[0].Outcome != "cancelled" {
		t.Fatalf("runs = %+v", runs)
	}
}

// Command lines split like sh would split plain words; shell syntax goes
// to sh -c.
func TestArgvOf(t *testing.T) {
	for line, want := range map[string]string{
		"go test ./auth/...":               "go|test|./auth/...",
		"scripts/verify login-page":        "scripts/verify|login-page",
		`go test -run 'TestA|TestB' ./...`: "go|test|-run|TestA|TestB|./...",
		`echo "two words" x\ y`:            "echo|two words|x y",
		"go test -count=1 ./...":           "go|test|-count=1|./...",
		"make test && make lint":           "sh|-c|make test && make lint",
		"FOO=1 make":                       "sh|-c|FOO=1 make",
		`echo "$HOME"`:                     `sh|-c|echo "$HOME"`,
		"ls *.go":                          "sh|-c|ls *.go",
		"ls ~/src":                         "sh|-c|ls ~/src",
		"npm test -- login":                "npm|test|--|login",
		"go test ./... | tee log":          "sh|-c|go test ./... | tee log",
		"echo 'unbalanced":                 "sh|-c|echo 'unbalanced",
	} {
		if got := strings.Join(argvOf(line), "|"); got != want {
			t.Errorf("argvOf(%q) = %q, want %q", line, got, want)
		}
	}
}

// K with nothing of the cockpit's running says what it can stop.
func TestStopNothing(t *testing.T) {
	st, _ := verifyProject(t, "true")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("K")
	h.mustSee("nothing to stop")
	h.mustNotSee("Stop ")
}

// Quitting stops what the cockpit runs and waits for it to be recorded:
// no command outlives the cockpit.
func TestQuitStopsJobs(t *testing.T) {
	st, dir := verifyProject(t, "true")
	pidFile := filepath.Join(dir, "pid")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key(":")
	h.typeText("/run sh -c 'echo $$ > pid; exec sleep 60'")
	h.keyAsync("enter")
	pid := pidOf(t, pidFile)
	h.keyAsync("q")
	h.pump(5*time.Second, "the quit question", func() bool { return strings.Contains(h.screen(), "Quit flowdeck?") })
	h.keyAsync("q") // quit again: yes
	h.pump(quitWait+2*time.Second, "the quit", func() bool { return h.quit })
	if !gone(pid) {
		t.Fatalf("pid %d still runs after quit", pid)
	}
	if runs, _ := st.Runs(0); len(runs) != 1 || runs[0].Outcome != "cancelled" {
		t.Fatalf("runs = %+v", runs)
	}
}

// Shutdown (the program ended some other way: SIGTERM, a panic) stops the
// cockpit's runs too.
func TestShutdownStopsJobs(t *testing.T) {
	st, dir := verifyProject(t, "true")
	pidFile := filepath.Join(dir, "pid")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key(":")
	h.typeText("/run sh -c 'echo $$ > pid; exec sleep 60'")
	h.keyAsync("enter")
	pid := pidOf(t, pidFile)
	h.m.shutdown(quitWait)
	if !gone(pid) {
		t.Fatalf("pid %d still runs after Shutdown", pid)
	}
}
