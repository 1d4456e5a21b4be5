package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"flowdeck/db"
	"flowdeck/model"
)

// TestTmuxEndToEnd drives the real binary in a real terminal: tmux runs
// `flowdeck` on a prepared project at 120x40, send-keys approves the waiting
// review and resets a feature (confirming with y), capture-pane checks the
// screen, and the database is checked afterwards.
func TestTmuxEndToEnd(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not on PATH (.ci/run installs it): skipping the end-to-end test of the real binary")
	}
	if testing.Short() {
		t.Skip("-short: skipping the end-to-end test (it builds the binary)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "flowdeck")
	// flowdeck starts flowdeck-cockpit from its own directory.
	if out, err := exec.Command("go", "build", "-o", dir+"/", "flowdeck", "flowdeck/cmd/flowdeck-cockpit").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := db.Open(filepath.Join(project, db.DBFile), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	scenario(t, st, "review")

	sock := filepath.Join(dir, "tmux.sock")
	name := "flowdeck-e2e"
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(tmux, append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	cmd := "env XDG_CONFIG_HOME=" + dir + " FLOWDECK_ACTOR=e2e TERM=xterm-256color " + bin + " --dir " + project +
		"; echo flowdeck exited $?; sleep 30"
	run("-f", "/dev/null", "new-session", "-d", "-s", name, "-x", "120", "-y", "40", cmd)
	defer exec.Command(tmux, "-S", sock, "kill-server").Run()

	capture := func() string { return run("capture-pane", "-p", "-t", name) }
	waitFor := func(want string) string {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			scr := capture()
			if strings.Contains(scr, want) {
				return scr
			}
			if time.Now().After(deadline) {
				t.Fatalf("screen never showed %q:\n%s", want, scr)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	keys := func(k ...string) { run(append([]string{"send-keys", "-t", name}, k...)...) }

	waitFor("Review reset-api")
	time.Sleep(500 * time.Millisecond) // the prompt's grace period
	keys("a")
	waitFor("review of reset-api: approved")

	keys("g", "r")
	scr := waitFor("Reset token-store?")
	if !strings.Contains(scr, "Also resets 6 downstream") {
		t.Fatalf("the confirmation does not name the downstream features:\n%s", scr)
	}
	keys("y")
	waitFor("✓ reset token-store, reset-api")
	keys("q")
	scr = waitFor("flowdeck exited 0")
	if strings.Contains(scr, "Features") {
		t.Fatalf("the cockpit's frame is left on the terminal after q:\n%s", scr)
	}

	s, err := st.Active()
	if err != nil {
		t.Fatal(err)
	}
	var approved bool
	events, err := st.Events(s.ID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if e.Type == model.EventReviewRecorded && e.Feature == "reset-api" && e.Actor == "e2e" && e.Review.Decision == model.ReviewApproved {
			approved = true
		}
	}
	if !approved {
		t.Error("no approved review of reset-api by e2e in the event log")
	}
	for _, id := range []string{"token-store", "reset-api", "rate-limit", "reset-ui", "audit-log", "e2e-tests", "docs"} {
		if f := s.Plan.Feature(id); f.Status != model.FeaturePending {
			t.Errorf("%s is %s, want pending after the reset", id, f.Status)
		}
	}
	if f := s.Plan.Feature("mailer"); f.Status != model.FeatureCompleted {
		t.Errorf("mailer is %s, want completed (not downstream of token-store)", f.Status)
	}
}

// TestTmuxSIGTERMLeavesTerminalClean: kill -TERM restores the terminal (the
// alternate screen is left, the shell's text is back) and exits 0.
func TestTmuxSIGTERMLeavesTerminalClean(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not on PATH (.ci/run installs it)")
	}
	if testing.Short() {
		t.Skip("-short: skipping the end-to-end test (it builds the binary)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "flowdeck")
	// flowdeck starts flowdeck-cockpit from its own directory.
	if out, err := exec.Command("go", "build", "-o", dir+"/", "flowdeck", "flowdeck/cmd/flowdeck-cockpit").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
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
		deadline := time.Now().Add(10 * time.Second)
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
