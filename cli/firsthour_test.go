package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A newcomer's `flowdeck init` in a fresh repository says what to commit
// and what to do next, and a warning is a warning (not "note: warning:");
// what it git-ignores is .flow/'s machine-local part only: the database,
// the locks and the agents' worktrees stay out, the session docs show up
// to be committed.
func TestInitSaysWhatToCommitAndWhatNext(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	// flowdeck off PATH, as after a plain `go build`: init warns about it.
	out, errOut, code := flowdeckEnv(t, dir, []string{"PATH=/usr/bin:/bin"}, "init", "--agent", "claude")
	if code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"\ncommit: .gitignore, .mcp.json, .claude/settings.json, CLAUDE.md, AGENTS.md; later also each session's docs (.flow/sessions/*/docs/)",
		"Not the database, locks or agents' worktrees in .flow/",
		"\nnext: flowdeck flow plan start GOAL\n",
		"\nthen: flowdeck (no subcommand) opens the cockpit",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("init's output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(errOut, "note: warning:") || !strings.Contains(errOut, "\nwarning: flowdeck is not on PATH") {
		t.Errorf("init's stderr:\n%s", errOut)
	}

	if _, errOut, code := flowdeck(t, dir, "flow", "plan", "start", "first hour"); code != 0 {
		t.Fatalf("plan start: exit %d: %s", code, errOut)
	}
	// What a run, a flow run, a git action and a worktree leave in .flow/.
	for _, f := range []string{"runs/r1.lock", "flowruns/f1.lock", "git.lock", "worktrees/feat/main.go"} {
		p := filepath.Join(dir, ".flow", f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=all").Output()
	if err != nil {
		t.Fatal(err)
	}
	docs := 0
	for _, line := range strings.Split(strings.TrimSpace(string(st)), "\n") {
		path := strings.TrimPrefix(line, "?? ")
		switch {
		case strings.HasPrefix(path, ".flow/sessions/") && strings.Contains(path, "/docs/"):
			docs++
		case strings.HasPrefix(path, ".flow/"):
			t.Errorf("git status shows %s: machine-local, it should be ignored", path)
		}
	}
	if docs == 0 {
		t.Errorf("git status shows no session docs to commit:\n%s", st)
	}

	// Again, with a session: nothing to change, and next is the session's.
	out, _, code = flowdeck(t, dir, "init")
	if code != 0 || !strings.Contains(out, "\nnext: flowdeck flow plan apply FILE\n") || !strings.Contains(out, "nothing to change") {
		t.Errorf("second init: exit %d:\n%s", code, out)
	}
}

// `flowdeck --help` says that plain flowdeck opens the cockpit.
func TestHelpSaysPlainFlowdeckOpensTheCockpit(t *testing.T) {
	out, errOut, code := flowdeck(t, t.TempDir(), "--help")
	if code != 0 || !strings.Contains(out, "Plain flowdeck, with no command, opens the cockpit") {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
}
