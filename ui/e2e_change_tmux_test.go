package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/internal/tmuxtest"
)

// TestTmuxReviewTheChange: the change is the review, in the default mode
// (one feature, the person's own checkout), on the real binaries in a real
// terminal. After v passes, a file changes: approving is refused with
// stale_evidence naming the file. v again, and the review dialog shows the
// diff's lines (the agent's escape sequence shown inert); a approves.
func TestTmuxReviewTheChange(t *testing.T) {
	needTmux(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the change is read from git")
	}
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(proj, 0o755)
	bin := filepath.Join(binaries(t), "flowdeck")
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "FLOWDECK_ACTOR=e2e")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(proj, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("git", "init", "-q", "-b", "main")
	run("git", "config", "user.name", "t")
	run("git", "config", "user.email", "t@example.com")
	write("main.go", "package main\n\nfunc main() {}\n")
	run("git", "add", "main.go")
	run("git", "commit", "-q", "-m", "initial")
	write("plan.json", `{"summary": "greet", // JSONC: comments are fine
		"features": [{"id": "greet", "title": "Say hello", "verification": ["grep -q Hello greet.go"]},
		             {"id": "polish", "title": "Polish", "depends_on": ["greet"]}]}`)
	run(bin, "flow", "plan", "start", "Greeting")
	run(bin, "flow", "plan", "apply", "plan.json")
	os.Remove(filepath.Join(proj, "plan.json"))
	run(bin, "flow", "plan", "approve")
	run(bin, "flow", "run", "start", "greet")
	write("greet.go", "package main\n\n// Hello greets.\nfunc Hello() string { return \"hello \x1b]0;pwned\x07world\" }\n")

	tm := tmuxtest.New(t, 160, 48, "env XDG_CONFIG_HOME="+dir+" FLOWDECK_ACTOR=e2e TERM=xterm-256color "+bin+
		" --dir "+proj+"; echo flowdeck exited $?; sleep 60")
	tm.WaitFor("greet")
	verify := func() {
		t.Helper()
		tm.Keys("v")
		tm.WaitFor("y yes")
		tm.Keys("y")
		tm.WaitFor("Review greet")
		tm.WaitGone("just appeared") // the dialog's grace period, as drawn
	}
	verify()
	tm.WaitFor("+func Hello() string")
	write("greet.go", "package main\n\n// Hello greets.\nfunc Hello() string { return \"changed after the validation\" }\n")
	tm.Keys("a")
	scr := tm.WaitFor("stale_evidence")
	if !strings.Contains(scr, "greet.go") {
		t.Fatalf("the stale refusal does not name the changed file:\n%s", scr)
	}
	// The dialog is closed by the approval's refusal; v validates the code
	// as it is now and the review opens again on the change.
	tm.WaitGone("Review greet")
	verify()
	scr = tm.WaitFor("changed after the validation")
	for _, want := range []string{"1 files changed", "A greet.go", "grep -q Hello greet.go obs✓"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("the review dialog lacks %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "pwned") {
		t.Fatalf("an earlier change still shows:\n%s", scr)
	}
	tm.Keys("a")
	tm.WaitFor("✓ review of greet: approved")
	tm.Keys("q")
	tm.WaitFor("flowdeck exited 0")
}
