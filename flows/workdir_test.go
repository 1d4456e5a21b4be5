package flows

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// A worktree variable is resolved beneath the project: a symlink planted at
// a feature's worktree path (or on the way to it) that leads out of the
// project is not followed, and the agent works in the project root.
func TestAgentDirSymlinkRefused(t *testing.T) {
	e, _ := project(t, nil)
	outside := t.TempDir()
	wts := filepath.Join(e.Root, ".flow", "worktrees")
	os.MkdirAll(filepath.Join(wts, "f1"), 0o755)
	if err := os.Symlink(outside, filepath.Join(wts, "f2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(e.Root, "out")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(outside, "sub"), 0o755)
	for wt, want := range map[string]string{
		".flow/worktrees/f1": filepath.Join(wts, "f1"),
		".flow/worktrees/f2": e.Root,
		"out/sub":            e.Root,
		".flow/worktrees/f9": e.Root, // no such directory
	} {
		run := &model.FlowRun{Vars: map[string]any{VarWorktree: wt}}
		if got := e.agentDir(run); got != want {
			t.Errorf("worktree %q: agent works in %q, want %q", wt, got, want)
		}
	}
}

// A project below the top of its repository: the agent enters a feature's
// worktree at the project's subdirectory, where verification runs too.
func TestAgentDirProjectSubdirectory(t *testing.T) {
	e, _ := project(t, nil)
	top := filepath.Dir(e.Root)
	if out, err := exec.Command("git", "init", "-q", top).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	os.RemoveAll(filepath.Join(e.Root, ".git")) // the project is now top's subdirectory
	wt := filepath.Join(e.Root, ".flow", "worktrees", "f1")
	sub := filepath.Join(wt, filepath.Base(e.Root))
	os.MkdirAll(sub, 0o755)
	run := &model.FlowRun{Vars: map[string]any{VarWorktree: wt}}
	if got := e.agentDir(run); got != sub {
		t.Fatalf("agent works in %q, want %q", got, sub)
	}
}
