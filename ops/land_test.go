package ops

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
)

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// landRig is a git project whose session (goal) has feature f1 completed
// with file name written in its worktree, f2 still to do, and main moved on
// with file name written too (other text: a conflict) when conflict.
func landRig(t *testing.T, goal, name string, conflict bool) (string, *db.Store) {
	t.Helper()
	if !gitwork.Available() {
		t.Skip("git is not installed: flow land needs the git program on PATH")
	}
	dir := t.TempDir()
	gitOut(t, dir, "init", "-q", "-b", "main")
	gitOut(t, dir, "config", "user.name", "tester")
	gitOut(t, dir, "config", "user.email", "tester@example.com")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	gitOut(t, dir, "add", "--all")
	gitOut(t, dir, "commit", "-q", "-m", "initial")
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{LockTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	do := func(a model.Action) {
		t.Helper()
		if res, err := DoSeen(st, a, 0, "tester", now, false, nil); err != nil || !res.OK {
			t.Fatalf("%s: %v %+v", a.Name(), err, res)
		}
	}
	do(model.PlanStart{Goal: goal})
	do(model.PlanApply{Plan: model.Plan{Summary: "p", MaxParallel: 2, Features: []model.Feature{{ID: "f1", Title: "F1"}, {ID: "f2", Title: "F2"}}}})
	do(model.PlanApprove{})
	do(model.RunStart{Feature: "f1"})
	os.WriteFile(filepath.Join(dir, ".flow", "worktrees", "f1", name), []byte("f\n"), 0o644)
	do(model.Validate{Feature: "f1", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "true"})
	do(model.ReviewFeature{Feature: "f1", Decision: model.ReviewApproved})
	do(model.RunComplete{Feature: "f1", Outcome: model.OutcomeCompleted})
	// main moves on, so land makes a merge commit (or conflicts).
	other := "b.txt"
	if conflict {
		other = name
	}
	os.WriteFile(filepath.Join(dir, other), []byte("main\n"), 0o644)
	gitOut(t, dir, "add", "--all")
	gitOut(t, dir, "commit", "-q", "-m", "meanwhile")
	return dir, st
}

// The session's goal reaches git log through land's merge message as the
// feature titles do: terminal controls are dropped, whole sequences at once.
func TestLandMessageDropsControls(t *testing.T) {
	dir, st := landRig(t, "ship \x1b]0;pwned\x07it", "f.txt", false)
	res, err := Land(st, true) // f2 is not done: land what is merged
	if err != nil || res == nil || !res.OK || res.FastForward {
		t.Fatalf("land: %+v %v", res, err)
	}
	if msg := gitOut(t, dir, "log", "-1", "--format=%B"); strings.ContainsAny(msg, "\x1b\x07") || !strings.Contains(msg, "ship it") {
		t.Fatalf("land's message %q", msg)
	}
}

// A conflicting file's name is foreign text: the refusal quotes it, so a
// terminal shows its controls rather than acting on them.
func TestLandConflictQuotesFileNames(t *testing.T) {
	_, st := landRig(t, "ship it", "x\x1b[2Jy.txt", true)
	res, err := Land(st, true)
	if err != nil || res == nil || res.OK || res.Error == nil || res.Error.Code != CodeLandConflict {
		t.Fatalf("land: %+v %v", res, err)
	}
	if strings.Contains(res.Error.Message, "\x1b") || !strings.Contains(res.Error.Message, model.ShellQuote("x\x1b[2Jy.txt")) {
		t.Fatalf("conflict message %q", res.Error.Message)
	}
}

// Land refuses, changing nothing, a missing integration branch (not made
// again at the base commit to land nothing), a dirty tree and a detached
// HEAD.
func TestLandRefusals(t *testing.T) {
	for _, tc := range []struct {
		code  string
		setup func(t *testing.T, dir string)
	}{
		{CodeNoIntegration, func(t *testing.T, dir string) {
			branch := strings.TrimPrefix(gitOut(t, dir, "for-each-ref", "--format=%(refname)", "refs/heads/flowdeck/"), "refs/heads/")
			gitOut(t, dir, "branch", "-D", branch)
		}},
		{CodeWorktreeDirty, func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644)
		}},
		{CodeDetachedHEAD, func(t *testing.T, dir string) {
			gitOut(t, dir, "checkout", "-q", "--detach")
		}},
	} {
		t.Run(tc.code, func(t *testing.T) {
			dir, st := landRig(t, "ship it", "f.txt", false)
			tc.setup(t, dir)
			head := gitOut(t, dir, "rev-parse", "HEAD")
			res, err := Land(st, true)
			if err != nil || res == nil || res.OK || res.Error == nil || res.Error.Code != tc.code {
				t.Fatalf("land: %+v %v", res, err)
			}
			if gitOut(t, dir, "rev-parse", "HEAD") != head {
				t.Fatal("a refused land moved HEAD")
			}
			if tc.code == CodeNoIntegration && gitOut(t, dir, "branch", "--list", "flowdeck/*") != "" {
				t.Fatal("the integration branch was made again")
			}
		})
	}
}
