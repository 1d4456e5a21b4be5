package ui

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/testbin"
	"github.com/flowdeck/flowdeck/internal/tmuxtest"
	"github.com/flowdeck/flowdeck/model"
)

// binaries builds flowdeck, flowdeck-cockpit and flowdeck-mcp once into one
// directory (flowdeck starts its companions from its own directory).
func binaries(t *testing.T) string {
	t.Helper()
	bin, err := testbin.Build(testbin.Flowdeck, testbin.Cockpit, testbin.MCP)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(bin)
}

// needTmux skips the test without tmux (failing under FLOWDECK_CI) or
// under -short.
func needTmux(t *testing.T) {
	t.Helper()
	tmuxtest.Need(t)
	if testing.Short() {
		t.Skip("-short: skipping the end-to-end test (it builds the binaries)")
	}
}

// TestTmuxDemoEndToEnd drives the real binaries in a real terminal, as the
// README tells a newcomer to: tmux starts `flowdeck --dir X demo` (the
// scripted agent at a fast pace); send-keys approves the review the demo
// seeds and resets the blocked feature (confirming with y); capture-pane
// checks the screen; and the database is checked afterwards: the review
// and the reset are stored, and the agent completed the approved feature and
// started the next. Quitting leaves no process of the demo behind.
func TestTmuxDemoEndToEnd(t *testing.T) {
	needTmux(t)
	dir := t.TempDir()
	project := filepath.Join(dir, "demo")
	bin := filepath.Join(binaries(t), "flowdeck")
	cmd := "env XDG_CONFIG_HOME=" + dir + " FLOWDECK_ACTOR=e2e TERM=xterm-256color " + bin + " --dir " + project +
		" demo --agent-tick 100ms; echo flowdeck exited $?; sleep 60"
	tm := tmuxtest.New(t, 120, 40, cmd)

	tm.WaitFor("Review callback-handler")
	time.Sleep(500 * time.Millisecond) // the prompt's grace period
	tm.Keys("a")
	tm.WaitFor("✓ review of callback-handler: approved") // the result, not the pending "…" note

	// Select the blocked feature with the filter, reset it, confirm.
	tm.Keys("1", "/")
	tm.Keys("-l", "provider-github")
	tm.Keys("Enter", "r")
	scr := tm.WaitFor("Reset provider-github?")
	if !strings.Contains(scr, "Also resets 2 downstream: provider-google, e2e-tests") {
		t.Fatalf("the confirmation does not name the downstream features:\n%s", scr)
	}
	tm.Keys("y")
	tm.WaitFor("✓ reset provider-github, provider-google, e2e-tests")

	st, err := db.Open(filepath.Join(project, db.DBFile), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The agent, a separate process, completes the approved feature and
	// starts the next; the cockpit shows it without a key press.
	var next string
	deadline := time.Now().Add(60 * time.Second)
	for next == "" {
		s, err := st.Active()
		if err != nil {
			t.Fatal(err)
		}
		if a := s.Execution.ActiveFeature; a != "" && a != "callback-handler" && s.Plan.Feature("callback-handler").Status == model.FeatureCompleted {
			next = a
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent did not complete callback-handler and start the next feature:\n%s", tm.Screen())
		}
		time.Sleep(200 * time.Millisecond)
	}
	tm.WaitFor("active " + next)

	tm.Keys("q")
	scr = tm.WaitFor("flowdeck exited 0")
	if strings.Contains(scr, "1 Features") {
		t.Fatalf("the cockpit's frame is left on the terminal after q:\n%s", scr)
	}
	if !strings.Contains(scr, "demo project kept: "+project) {
		t.Errorf("the demo does not say it kept %s:\n%s", project, scr)
	}

	s, err := st.Active()
	if err != nil {
		t.Fatal(err)
	}
	events, err := st.Events(s.ID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var reviewSeq uint64
	var reset, completed, started bool
	for _, e := range events {
		switch {
		case e.Type == model.EventReviewRecorded && e.Feature == "callback-handler" && e.Actor == "e2e" && e.Review.Decision == model.ReviewApproved:
			reviewSeq = e.Seq
		case e.Type == model.EventFeaturesReset && e.Actor == "e2e" && len(e.FeatureIDs) > 0 && e.FeatureIDs[0] == "provider-github":
			reset = true
		case e.Type == model.EventFeatureCompleted && e.Feature == "callback-handler" && e.Actor == "demo-agent" && reviewSeq > 0:
			completed = true
		case e.Type == model.EventFeatureStarted && e.Feature == next && e.Actor == "demo-agent" && reviewSeq > 0:
			started = true
		}
	}
	if reviewSeq == 0 || !reset || !completed || !started {
		t.Errorf("event log: approved review by e2e %v, reset by e2e %v, callback-handler completed by the agent %v, %s started by the agent %v",
			reviewSeq > 0, reset, completed, next, started)
	}
	// Nothing of the demo outlives it: no agent, no run it started. A run
	// killed at quit may take a moment to leave the process table on a
	// loaded machine: waited for, with a backstop.
	for end := time.Now().Add(tmuxtest.Backstop); ; time.Sleep(50 * time.Millisecond) {
		pids := processesMentioning(project)
		if len(pids) == 0 {
			break
		}
		if time.Now().After(end) {
			t.Errorf("processes still running in the demo project after quit: %v", pids)
			break
		}
	}

	// The project is kept and is now a flowdeck project: a second demo in it
	// is refused, with the reason.
	out, err := exec.Command(bin, "--dir", project, "demo", "--no-ui", "--no-agent").CombinedOutput()
	if code := exitCode(err); code != 2 || !strings.Contains(string(out), "already holds a flowdeck project") {
		t.Errorf("second demo in %s: exit %d, %s", project, code, out)
	}
}

// processesMentioning lists processes whose command line holds s, but for
// the test's own tmux and the shell that ran the demo.
func processesMentioning(s string) []string {
	var out []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), s) && !strings.Contains(string(b), "flowdeck exited") {
			out = append(out, d.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

func exitCode(err error) int {
	var x *exec.ExitError
	if errors.As(err, &x) {
		return x.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestTmuxSIGTERMLeavesTerminalClean: kill -TERM restores the terminal (the
// alternate screen is left, the shell's text is back) and exits 0.
func TestTmuxSIGTERMLeavesTerminalClean(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not on PATH (.ci/run installs it)")
	}
	if testing.Short() {
		t.Skip("-short: skipping the end-to-end test (it builds the binaries)")
	}
	dir := t.TempDir()
	bin := filepath.Join(binaries(t), "flowdeck")
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "tmux.sock")
	pidFile := filepath.Join(dir, "pid")
	cmd := "echo before the cockpit; env XDG_CONFIG_HOME=" + dir + " sh -c 'echo $$ > " + pidFile + "; exec " + bin + " --dir " + project + "'; echo flowdeck exited $?; sleep 30"
	if out, err := exec.Command(tmux, "-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "term", "-x", "100", "-y", "30", cmd).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	defer exec.Command(tmux, "-S", sock, "kill-server").Run()
	capture := func() string {
		out, _ := exec.Command(tmux, "-S", sock, "capture-pane", "-p", "-t", "term").CombinedOutput()
		return string(out)
	}
	wait := func(want string) string {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute) // a backstop
		for {
			if scr := capture(); strings.Contains(scr, want) {
				return scr
			}
			if time.Now().After(deadline) {
				t.Fatalf("screen never showed %q:\n%s", want, capture())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	wait("no active session")
	pid, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("kill", "-TERM", strings.TrimSpace(string(pid))).CombinedOutput(); err != nil {
		t.Fatalf("kill: %v %s", err, out)
	}
	scr := wait("flowdeck exited")
	if !strings.Contains(scr, "before the cockpit") || strings.Contains(scr, "1 Features") {
		t.Fatalf("the terminal is not restored after SIGTERM:\n%s", scr)
	}
}

// TestTmuxApprovalsAreDeliberate (issue 15.8): in a real terminal, a query
// typed into recall holding every action letter approves nothing; a review
// recorded by another process closes the open review dialog and a cannot
// override it; then a fresh review is approved for real and the feature
// completes from the cockpit.
func TestTmuxApprovalsAreDeliberate(t *testing.T) {
	needTmux(t)
	dir := t.TempDir()
	project := filepath.Join(dir, "demo")
	bin := filepath.Join(binaries(t), "flowdeck")
	cmd := "env XDG_CONFIG_HOME=" + dir + " FLOWDECK_ACTOR=e2e TERM=xterm-256color " + bin + " --dir " + project +
		" demo --no-agent; echo flowdeck exited $?; sleep 60"
	tm := tmuxtest.New(t, 120, 40, cmd)
	flowdeck := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, append([]string{"--dir", project}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("flowdeck %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	reviews := func() []model.Review {
		t.Helper()
		var st struct {
			Session *model.Session `json:"session"`
		}
		if err := json.Unmarshal([]byte(flowdeck("--json", "flow", "status", "--full")), &st); err != nil {
			t.Fatal(err)
		}
		return st.Session.Plan.Feature("callback-handler").Reviews
	}

	tm.WaitFor("Review callback-handler")
	time.Sleep(500 * time.Millisecond) // the dialog's grace period
	before := len(reviews())
	tm.Keys("6")
	tm.WaitFor("type to search all output")
	tm.Keys("-l", "fail axbrsvPCyRK!q?")
	tm.WaitFor("fail axbrsvPCyRK!q?")
	if n := len(reviews()); n != before {
		t.Fatalf("typing into recall recorded %d review(s)", n-before)
	}

	tm.Keys("Escape")
	tm.WaitGone("type to search all output") // esc alone, so it is not read as alt+!
	tm.Keys("!")
	tm.WaitFor("a approve · x needs fix")
	flowdeck("--actor", "bob", "flow", "review", "callback-handler", "--decision", "needs_fix", "--finding", "from bob")
	tm.WaitFor("review callback-handler closed: review of callback-handler: needs_fix (by bob")
	tm.Keys("a")
	tm.WaitFor("does not wait for a review")
	rs := reviews()
	if last := rs[len(rs)-1]; last.Actor != "bob" || last.Decision != model.ReviewNeedsFix {
		t.Fatalf("a overrode bob's review: %+v", last)
	}

	flowdeck("flow", "validate", "callback-handler", "--status", "passed", "--scope", "targeted", "--command", "go test ./...")
	tm.WaitFor("Review callback-handler")
	time.Sleep(500 * time.Millisecond)
	tm.Keys("a")
	tm.WaitFor("✓ review of callback-handler: approved") // the result, not the pending "…" note
	tm.Keys("1", "C")
	tm.WaitFor("Complete callback-handler (completed)?")
	tm.Keys("y")
	tm.WaitFor("✓ completed callback-handler")
	rs = reviews()
	if last := rs[len(rs)-1]; last.Actor != "e2e" || last.Decision != model.ReviewApproved {
		t.Fatalf("last review %+v", last)
	}
	tm.Keys("q")
	tm.WaitFor("flowdeck exited 0")
}
