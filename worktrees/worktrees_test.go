package worktrees_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/capture"
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/worktrees"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// repoWithProject makes a git repository with one commit and a flowdeck
// project in sub ("" = at the top), with a max_parallel 2 plan approved.
func repoWithProject(t *testing.T, sub string) (string, *db.Store) {
	t.Helper()
	if !gitwork.Available() {
		t.Skip("git is not installed: worktrees needs the git program on PATH")
	}
	top := t.TempDir()
	git(t, top, "init", "-q", "-b", "main")
	git(t, top, "config", "user.name", "tester")
	git(t, top, "config", "user.email", "tester@example.com")
	dir := filepath.Join(top, sub)
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	git(t, top, "add", "--all")
	git(t, top, "commit", "-q", "-m", "initial")
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{LockTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	do(t, st, model.PlanStart{ID: "s1", Goal: "g"},
		model.PlanApply{Plan: model.Plan{Summary: "p", MaxParallel: 2, Features: []model.Feature{{ID: "f1", Title: "F1"}, {ID: "f2", Title: "F2"}}}},
		model.PlanApprove{})
	return dir, st
}

func do(t *testing.T, st *db.Store, acts ...model.Action) *ops.ActionResult {
	t.Helper()
	var res *ops.ActionResult
	for _, a := range acts {
		var err error
		if res, err = ops.DoSeen(st, a, 0, "tester", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), false, nil); err != nil || !res.OK {
			t.Fatalf("%s: %v %+v", a.Name(), err, res)
		}
	}
	return res
}

// A claimed feature's run is placed in its worktree with what the agent
// left there committed; a run given a directory records that HEAD.
func TestPlaceRun(t *testing.T) {
	dir, st := repoWithProject(t, "")
	do(t, st, model.RunStart{Feature: "f1"})
	wt := filepath.Join(dir, ".flow", "worktrees", "f1")
	os.WriteFile(filepath.Join(wt, "new.txt"), []byte("n\n"), 0o644)
	o := capture.Options{Feature: "f1", Dir: dir}
	if err := worktrees.PlaceRun(st, &o, true); err != nil {
		t.Fatal(err)
	}
	if o.Dir != wt || o.Commit != git(t, wt, "rev-parse", "HEAD") || git(t, wt, "status", "--porcelain") != "" {
		t.Fatalf("placed in %q at %q", o.Dir, o.Commit)
	}
	here := capture.Options{Feature: "f1", Dir: dir}
	if err := worktrees.PlaceRun(st, &here, false); err != nil || here.Dir != dir || here.Commit != git(t, dir, "rev-parse", "HEAD") {
		t.Fatalf("--here: %+v %v", here, err)
	}
	// A feature without a worktree (f2, not claimed) stays where it was
	// told to run, and gets none made.
	other := capture.Options{Feature: "f2", Dir: dir}
	if err := worktrees.PlaceRun(st, &other, true); err != nil || other.Dir != dir || other.Commit != git(t, dir, "rev-parse", "HEAD") {
		t.Fatalf("a feature that is not active: %+v %v", other, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".flow", "worktrees", "f2")); err == nil {
		t.Fatal("a worktree was made for a feature that is not active")
	}
}

// A project below the top of its repository runs a feature's commands in
// the same subdirectory of the feature's worktree.
func TestPlaceRunInSubdirectoryProject(t *testing.T) {
	dir, st := repoWithProject(t, "svc")
	res := do(t, st, model.RunStart{Feature: "f1"})
	if res.Git == nil || res.Git.Warning != "" {
		t.Fatalf("claim: %+v", res.Git)
	}
	o := capture.Options{Feature: "f1"}
	if err := worktrees.PlaceRun(st, &o, true); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, ".flow", "worktrees", "f1", "svc"); o.Dir != want {
		t.Fatalf("placed in %q, want %q", o.Dir, want)
	}
	if _, err := os.Stat(filepath.Join(o.Dir, "a.txt")); err != nil {
		t.Fatal("the project's files are not in the placed directory")
	}
}

// A symlink planted at .flow/worktrees cannot send a checkout out of the
// project: the claim stands, the worktree is refused and nothing is written
// outside.
func TestWorktreesDirSymlinkRefused(t *testing.T) {
	dir, st := repoWithProject(t, "")
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, ".flow", "worktrees")); err != nil {
		t.Fatal(err)
	}
	res := do(t, st, model.RunStart{Feature: "f1"})
	if res.Git == nil || !strings.Contains(res.Git.Warning, model.CodePathEscapes) {
		t.Fatalf("claim through a symlink: %+v", res.Git)
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Fatalf("wrote outside the project: %v", entries)
	}
}

// A plain directory where a completed feature's worktree was is part of the
// person's checkout: completing never commits in it.
func TestCompletionNeverCommitsInAPlainDirectory(t *testing.T) {
	dir, st := repoWithProject(t, "")
	do(t, st, model.RunStart{Feature: "f1"})
	wt := filepath.Join(dir, ".flow", "worktrees", "f1")
	do(t, st, model.Validate{Feature: "f1", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "true"},
		model.ReviewFeature{Feature: "f1", Decision: model.ReviewApproved})
	git(t, dir, "worktree", "remove", "--force", wt)
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(wt, "stray.txt"), []byte("x"), 0o644)
	head := git(t, dir, "rev-parse", "HEAD")
	do(t, st, model.RunComplete{Feature: "f1", Outcome: model.OutcomeCompleted})
	if git(t, dir, "rev-parse", "HEAD") != head {
		t.Fatal("a commit landed on the person's branch")
	}
}

// A symlink planted at a feature's own worktree path (by an agent working
// in a sibling worktree) cannot send that checkout out of the project.
func TestWorktreeEntrySymlinkRefused(t *testing.T) {
	dir, st := repoWithProject(t, "")
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".flow", "worktrees"), 0o755)
	if err := os.Symlink(outside, filepath.Join(dir, ".flow", "worktrees", "f1")); err != nil {
		t.Fatal(err)
	}
	res := do(t, st, model.RunStart{Feature: "f1"})
	if res.Git == nil || !strings.Contains(res.Git.Warning, model.CodePathEscapes) {
		t.Fatalf("claim through a symlink: %+v", res.Git)
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Fatalf("wrote outside the project: %v", entries)
	}
}

// A git lock held too long (a hung git) fails the next taker with ErrBusy
// after the store's lock timeout instead of stalling it for ever.
func TestLockTimesOut(t *testing.T) {
	dir, st := repoWithProject(t, "")
	unlock, _, err := worktrees.Lock(st)
	if err != nil {
		t.Fatal(err)
	}
	quick, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{LockTimeout: 100 * time.Millisecond, Existing: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := worktrees.Lock(quick); !errors.As(err, new(db.ErrBusy)) {
		t.Fatalf("second lock: %v", err)
	}
	unlock()
	again, _, err := worktrees.Lock(quick)
	if err != nil {
		t.Fatalf("after the release: %v", err)
	}
	again()
}

// Ensure reads the session under the git lock: a feature completed since
// its caller looked gets no worktree or branch made again.
func TestEnsureAfterCompletionMakesNothing(t *testing.T) {
	dir, st := repoWithProject(t, "")
	do(t, st, model.RunStart{Feature: "f1"})
	do(t, st, model.Validate{Feature: "f1", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "true"},
		model.ReviewFeature{Feature: "f1", Decision: model.ReviewApproved},
		model.RunComplete{Feature: "f1", Outcome: model.OutcomeCompleted})
	wt := filepath.Join(dir, ".flow", "worktrees", "f1")
	if _, err := worktrees.Ensure(st, "f1"); err == nil {
		t.Fatal("Ensure made the worktree of a completed feature")
	}
	if _, err := os.Stat(wt); err == nil {
		t.Fatal("the completed feature's worktree is back")
	}
	if out := git(t, dir, "branch", "--list", model.FeatureBranch("s1", "f1")); out != "" {
		t.Fatalf("the completed feature's branch is back: %q", out)
	}
}

// A merge recorded as under way is read from the database, which can be
// edited outside flowdeck: one that names the person's branch is never
// settled by moving it.
func TestSettleNeverMovesAnotherBranch(t *testing.T) {
	dir, st := repoWithProject(t, "")
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644)
	git(t, dir, "add", "b.txt")
	git(t, dir, "commit", "-q", "-m", "second")
	head, parent := git(t, dir, "rev-parse", "HEAD"), git(t, dir, "rev-parse", "HEAD^")
	s, err := st.Active()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.IntendMerge(db.MergeIntent{Session: s.ID, Feature: "f1", Branch: "main", Old: parent, New: head}); err != nil {
		t.Fatal(err)
	}
	if _, err := worktrees.Settle(st); err == nil {
		t.Fatal("a merge record naming main was settled")
	}
	if got := git(t, dir, "rev-parse", "main"); got != head {
		t.Fatalf("main moved from %s to %s", head, got)
	}
}

// info/exclude is where flowdeck keeps its worktrees out of git status; a
// symlink planted there (the git directory is the agents' to write) does
// not make flowdeck append to the file it points at, nor does a FIFO make
// it hang.
func TestExcludeFollowsNoLink(t *testing.T) {
	for _, plant := range []string{"symlink", "fifo"} {
		t.Run(plant, func(t *testing.T) {
			dir, st := repoWithProject(t, "")
			outside := filepath.Join(t.TempDir(), "bashrc")
			os.WriteFile(outside, []byte("the person's file\n"), 0o644)
			exclude := filepath.Join(dir, ".git", "info", "exclude")
			os.MkdirAll(filepath.Dir(exclude), 0o755)
			os.Remove(exclude)
			var err error
			if plant == "symlink" {
				err = os.Symlink(outside, exclude)
			} else {
				err = syscall.Mkfifo(exclude, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			if plant == "fifo" {
				// git itself reads info/exclude and waits on a FIFO for
				// ever: flowdeck stops it and says why.
				t.Setenv("FLOWDECK_GIT_TIMEOUT", "3s")
			}
			res := do(t, st, model.RunStart{Feature: "f1"})
			if data, _ := os.ReadFile(outside); string(data) != "the person's file\n" {
				t.Fatalf("the file the link points at became %q", data)
			}
			if plant == "fifo" {
				if res.Git == nil || !strings.Contains(res.Git.Warning, "did not finish within 3s") {
					t.Fatalf("the worktree over a FIFO: %+v", res.Git)
				}
				return
			}
			if _, err := os.Stat(filepath.Join(dir, ".flow", "worktrees", "f1", ".git")); err != nil {
				t.Fatalf("the worktree was not made: %v", err)
			}
		})
	}
}

// Nor is one whose commits are not object ids handed to git: as the old
// commit, "-d" would make update-ref delete the integration branch, and a
// revision ("main") would point it anywhere.
func TestSettleTakesOnlyObjectIDs(t *testing.T) {
	dir, st := repoWithProject(t, "")
	do(t, st, model.RunStart{Feature: "f1"})
	s, err := st.Active()
	if err != nil {
		t.Fatal(err)
	}
	integ := s.Git.Integration
	head := git(t, dir, "rev-parse", integ)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644)
	git(t, dir, "add", "b.txt")
	git(t, dir, "commit", "-q", "-m", "the person's work")
	for _, old := range []string{"-d", "main"} {
		m := db.MergeIntent{Session: s.ID, Feature: "f2", Branch: integ, Old: old, New: head}
		if err := st.IntendMerge(m); err != nil {
			t.Fatal(err)
		}
		if _, err := worktrees.Settle(st); err == nil {
			t.Errorf("a merge record whose old commit is %q was settled", old)
		}
		if got := git(t, dir, "for-each-ref", "--format=%(objectname)", "refs/heads/"+integ); got != head {
			t.Fatalf("old commit %q: the integration branch went from %s to %q", old, head, got)
		}
		if err := st.EndMerge(m); err != nil {
			t.Fatal(err)
		}
	}
}
