package gitwork

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// newRepo makes a repository with one commit on main in a temp dir.
func newRepo(t *testing.T) *Repo {
	t.Helper()
	if !Available() {
		t.Skip("git is not installed: the gitwork tests need the git program on PATH")
	}
	dir := t.TempDir()
	gitT(t, dir, "init", "-q", "-b", "main")
	gitT(t, dir, "config", "user.name", "tester")
	gitT(t, dir, "config", "user.email", "tester@example.com")
	write(t, dir, "a.txt", "one\ntwo\nthree\n")
	gitT(t, dir, "add", "a.txt")
	gitT(t, dir, "commit", "-q", "-m", "initial")
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestIsRepoAndCurrentBranch(t *testing.T) {
	r := newRepo(t)
	if !IsRepo(r.Dir) || IsRepo(t.TempDir()) {
		t.Fatal("IsRepo wrong")
	}
	b, head, err := r.CurrentBranch()
	if err != nil || b != "main" || head != gitT(t, r.Dir, "rev-parse", "HEAD") {
		t.Fatalf("CurrentBranch = %q %q %v", b, head, err)
	}
}

func TestEnsureBranchIdempotentAndHostileNames(t *testing.T) {
	r := newRepo(t)
	created, err := r.EnsureBranch("flowdeck/s1", "main")
	if err != nil || !created {
		t.Fatalf("first EnsureBranch: %v %v", created, err)
	}
	if created, err = r.EnsureBranch("flowdeck/s1", "main"); err != nil || created {
		t.Fatalf("second EnsureBranch: %v %v", created, err)
	}
	for _, bad := range []string{"--upload-pack=x", "-b", "a..b", "x.lock", "A/B", "a b", "", "/x", "x/"} {
		if _, err := r.EnsureBranch(bad, "main"); err == nil {
			t.Errorf("EnsureBranch(%q) accepted", bad)
		}
	}
	if _, err := r.EnsureBranch("flowdeck/s2", "--output=/tmp/x"); err == nil {
		t.Error("an option as the start point was accepted")
	}
}

func TestWorktreeAddReuseRemove(t *testing.T) {
	r := newRepo(t)
	if _, err := r.EnsureBranch("flowdeck/s", "main"); err != nil {
		t.Fatal(err)
	}
	path, err := r.AddWorktree(".flow/worktrees/f1", "flowdeck/s.f1", "flowdeck/s")
	if err != nil {
		t.Fatal(err)
	}
	if got := gitT(t, path, "symbolic-ref", "--short", "HEAD"); got != "flowdeck/s.f1" {
		t.Fatalf("worktree branch %q", got)
	}
	if again, err := r.AddWorktree(".flow/worktrees/f1", "flowdeck/s.f1", "flowdeck/s"); err != nil || again != path {
		t.Fatalf("reuse: %q %v", again, err)
	}
	if _, err := r.AddWorktree(".flow/worktrees/f1", "flowdeck/s.f2", "flowdeck/s"); err == nil {
		t.Fatal("a worktree on another branch was reused")
	}
	write(t, path, "scratch.txt", "uncommitted")
	if err := r.RemoveWorktree(".flow/worktrees/f1", "flowdeck/s.f1", true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("worktree dir still there: %v", err)
	}
	if h, _ := r.BranchHead("flowdeck/s.f1"); h != "" {
		t.Fatal("branch not deleted")
	}
	if err := r.RemoveWorktree(".flow/worktrees/f1", "flowdeck/s.f1", true); err != nil {
		t.Fatalf("removing again: %v", err)
	}
}

func TestMergeFastForwardThenMergeCommit(t *testing.T) {
	r := newRepo(t)
	mustBranch(t, r, "flowdeck/s", "main")
	p1 := mustAdd(t, r, ".flow/worktrees/f1", "flowdeck/s.f1", "flowdeck/s")
	p2 := mustAdd(t, r, ".flow/worktrees/f2", "flowdeck/s.f2", "flowdeck/s")
	write(t, p1, "f1.txt", "f1\n")
	c1, err := linked(t, r, p1, "flowdeck/s.f1").CommitAll("f1 work")
	if err != nil {
		t.Fatal(err)
	}
	write(t, p2, "f2.txt", "f2\n")
	if _, err := linked(t, r, p2, "flowdeck/s.f2").CommitAll("f2 work"); err != nil {
		t.Fatal(err)
	}
	res, err := mergeBranch(t, r, "flowdeck/s", "flowdeck/s.f1", "merge f1")
	if err != nil || !res.FastForward || res.Commit != c1 {
		t.Fatalf("first merge: %+v %v", res, err)
	}
	res, err = mergeBranch(t, r, "flowdeck/s", "flowdeck/s.f2", "flowdeck: merge feature f2")
	if err != nil || res.FastForward || len(res.Conflicts) > 0 {
		t.Fatalf("second merge: %+v %v", res, err)
	}
	parents := strings.Fields(gitT(t, r.Dir, "rev-list", "--parents", "-n1", res.Commit))
	if len(parents) != 3 || gitT(t, r.Dir, "log", "-1", "--format=%s", res.Commit) != "flowdeck: merge feature f2" {
		t.Fatalf("merge commit %v", parents)
	}
	files := gitT(t, r.Dir, "ls-tree", "--name-only", "flowdeck/s")
	if !strings.Contains(files, "f1.txt") || !strings.Contains(files, "f2.txt") {
		t.Fatalf("merged tree: %s", files)
	}
	if again, err := mergeBranch(t, r, "flowdeck/s", "flowdeck/s.f2", "x"); err != nil || !again.UpToDate {
		t.Fatalf("merging again: %+v %v", again, err)
	}
}

func TestMergeConflictChangesNothing(t *testing.T) {
	r := newRepo(t)
	mustBranch(t, r, "flowdeck/s", "main")
	p1 := mustAdd(t, r, ".flow/worktrees/f1", "flowdeck/s.f1", "flowdeck/s")
	p2 := mustAdd(t, r, ".flow/worktrees/f2", "flowdeck/s.f2", "flowdeck/s")
	write(t, p1, "a.txt", "one\nTWO by f1\nthree\n")
	mustCommit(t, r, p1, "f1")
	write(t, p2, "a.txt", "one\nTWO by f2\nthree\n")
	mustCommit(t, r, p2, "f2")
	if _, err := mergeBranch(t, r, "flowdeck/s", "flowdeck/s.f1", "m1"); err != nil {
		t.Fatal(err)
	}
	before, _ := r.BranchHead("flowdeck/s")
	res, err := mergeBranch(t, r, "flowdeck/s", "flowdeck/s.f2", "m2")
	if err != nil || !slices.Equal(res.Conflicts, []string{"a.txt"}) || res.Commit != before {
		t.Fatalf("conflict: %+v %v", res, err)
	}
	if after, _ := r.BranchHead("flowdeck/s"); after != before {
		t.Fatal("the integration branch moved on a conflict")
	}
	// Resolved by hand in the worktree (merging the integration branch in),
	// the feature merges.
	exec.Command("git", "-C", p2, "merge", "-q", "flowdeck/s").Run()
	write(t, p2, "a.txt", "one\nTWO by both\nthree\n")
	gitT(t, p2, "add", "a.txt")
	gitT(t, p2, "commit", "-q", "--no-edit")
	res, err = mergeBranch(t, r, "flowdeck/s", "flowdeck/s.f2", "m2")
	if err != nil || len(res.Conflicts) > 0 || !res.FastForward {
		t.Fatalf("after resolution: %+v %v", res, err)
	}
}

func TestMergeRefusesCheckedOutTarget(t *testing.T) {
	r := newRepo(t)
	mustBranch(t, r, "flowdeck/s.f1", "main")
	p1 := mustAdd(t, r, ".flow/worktrees/f1", "flowdeck/s.f1", "main")
	write(t, p1, "x", "x")
	mustCommit(t, r, p1, "x")
	if _, err := mergeBranch(t, r, "main", "flowdeck/s.f1", "m"); !errors.Is(err, ErrCheckedOut) {
		t.Fatalf("merge into the checked-out main: %v", err)
	}
}

func TestLand(t *testing.T) {
	r := newRepo(t)
	mustBranch(t, r, "flowdeck/s", "main")
	p1 := mustAdd(t, r, ".flow/worktrees/f1", "flowdeck/s.f1", "flowdeck/s")
	write(t, p1, "f1.txt", "f1\n")
	mustCommit(t, r, p1, "f1")
	mustMerge(t, r, "flowdeck/s", "flowdeck/s.f1", "m")
	if err := r.Exclude("/.flow/worktrees/"); err != nil {
		t.Fatal(err)
	}
	r.Exclude("/.flow/worktrees/")
	excl, _ := os.ReadFile(filepath.Join(r.Dir, ".git", "info", "exclude"))
	if n := strings.Count(string(excl), "/.flow/worktrees/"); n != 1 {
		t.Fatalf("exclude holds the pattern %d times", n)
	}
	if st := gitT(t, r.Dir, "status", "--porcelain"); st != "" {
		t.Fatalf("worktrees show in git status: %q", st)
	}
	write(t, r.Dir, "a.txt", "dirty\n")
	if _, err := r.Land("flowdeck/s", "land", ".flow"); !errors.Is(err, ErrDirty) {
		t.Fatalf("dirty land: %v", err)
	}
	gitT(t, r.Dir, "checkout", "-q", "--", "a.txt")
	// The person's merge.ff does not make a reported fast-forward a merge
	// commit.
	gitT(t, r.Dir, "config", "merge.ff", "false")
	res, err := r.Land("flowdeck/s", "land", ".flow")
	if err != nil || res.Branch != "main" || !res.FastForward || res.Commit != gitT(t, r.Dir, "rev-parse", "flowdeck/s") {
		t.Fatalf("land: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "f1.txt")); err != nil {
		t.Fatal("landed file missing from the checkout")
	}
	if again, err := r.Land("flowdeck/s", "land", ".flow"); err != nil || !again.UpToDate {
		t.Fatalf("land again: %+v %v", again, err)
	}
}

func TestLandConflictLeavesTreeAlone(t *testing.T) {
	r := newRepo(t)
	mustBranch(t, r, "flowdeck/s", "main")
	p1 := mustAdd(t, r, ".flow/worktrees/f1", "flowdeck/s.f1", "flowdeck/s")
	write(t, p1, "a.txt", "one\nfeature\nthree\n")
	mustCommit(t, r, p1, "f1")
	mustMerge(t, r, "flowdeck/s", "flowdeck/s.f1", "m")
	write(t, r.Dir, "a.txt", "one\nuser\nthree\n")
	mustCommit(t, r, r.Dir, "user edit")
	head := gitT(t, r.Dir, "rev-parse", "HEAD")
	res, err := r.Land("flowdeck/s", "land", ".flow")
	if err != nil || !slices.Equal(res.Conflicts, []string{"a.txt"}) {
		t.Fatalf("land conflict: %+v %v", res, err)
	}
	if gitT(t, r.Dir, "rev-parse", "HEAD") != head || gitT(t, r.Dir, "status", "--porcelain") != "" {
		t.Fatal("a conflicting land changed the checkout")
	}
}

func TestCommitAllNothingToCommit(t *testing.T) {
	r := newRepo(t)
	head := gitT(t, r.Dir, "rev-parse", "HEAD")
	if got, err := r.CommitAll("nothing"); err != nil || got != head {
		t.Fatalf("CommitAll on a clean tree: %q %v", got, err)
	}
}

func TestErrorCarriesCommandAndStderr(t *testing.T) {
	r := newRepo(t)
	_, err := r.git("rev-parse", "--verify", "no-such-ref")
	var ge *Error
	if !errors.As(err, &ge) || !strings.Contains(err.Error(), "rev-parse") || ge.Stderr == "" {
		t.Fatalf("error %v", err)
	}
}

// A conflicting path with a newline and a space comes back as it is.
func TestConflictOnHostileFileName(t *testing.T) {
	r := newRepo(t)
	name := "we ird\nname.txt"
	write(t, r.Dir, name, "base\n")
	mustCommit(t, r, r.Dir, "add")
	mustBranch(t, r, "flowdeck/s", "main")
	p1 := mustAdd(t, r, ".flow/worktrees/f1", "flowdeck/s.f1", "flowdeck/s")
	p2 := mustAdd(t, r, ".flow/worktrees/f2", "flowdeck/s.f2", "flowdeck/s")
	write(t, p1, name, "one\n")
	mustCommit(t, r, p1, "f1")
	write(t, p2, name, "two\n")
	mustCommit(t, r, p2, "f2")
	mustMerge(t, r, "flowdeck/s", "flowdeck/s.f1", "m1")
	res, err := mergeBranch(t, r, "flowdeck/s", "flowdeck/s.f2", "m2")
	if err != nil || !slices.Equal(res.Conflicts, []string{name}) {
		t.Fatalf("conflicts %q %v", res.Conflicts, err)
	}
}

// A GIT_DIR inherited from a git hook does not redirect flowdeck's git.
func TestInheritedGitDirIgnored(t *testing.T) {
	r := newRepo(t)
	other := newRepo(t)
	t.Setenv("GIT_DIR", filepath.Join(other.Dir, ".git"))
	if _, err := r.EnsureBranch("flowdeck/s", "main"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_DIR", "")
	os.Unsetenv("GIT_DIR")
	if h, _ := other.BranchHead("flowdeck/s"); h != "" {
		t.Fatal("the branch was made in the repository GIT_DIR named")
	}
	if h, _ := r.BranchHead("flowdeck/s"); h == "" {
		t.Fatal("the branch is missing from the repository -C named")
	}
}

// The helpers fail the test at once: a step that failed silently would
// leave a path empty, and git -C "" would work on the current directory.
func mustAdd(t *testing.T, r *Repo, path, branch, from string) string {
	t.Helper()
	p, err := r.AddWorktree(path, branch, from)
	if err != nil || p == "" {
		t.Fatalf("AddWorktree %s %s: %q %v", path, branch, p, err)
	}
	return p
}

// linked opens the worktree at path on branch, failing the test when it
// is not the one made.
func linked(t *testing.T, r *Repo, path, branch string) *Repo {
	t.Helper()
	w, err := r.Linked(path, branch)
	if err != nil || w == nil {
		t.Fatalf("Linked %s %s: %v %v", path, branch, w, err)
	}
	return w
}

// mustCommit commits all in dir: r's own work tree, or a worktree of r's.
func mustCommit(t *testing.T, r *Repo, dir, msg string) string {
	t.Helper()
	in := r
	if dir != r.Dir {
		w, err := r.WorktreeAt(dir)
		if err != nil || w == nil {
			t.Fatalf("no worktree at %s: %v", dir, err)
		}
		in = linked(t, r, dir, w.Branch)
	}
	c, err := in.CommitAll(msg)
	if err != nil {
		t.Fatalf("CommitAll %s: %v", dir, err)
	}
	return c
}

func mustBranch(t *testing.T, r *Repo, branch, from string) {
	t.Helper()
	if _, err := r.EnsureBranch(branch, from); err != nil {
		t.Fatalf("EnsureBranch %s: %v", branch, err)
	}
}

func mustMerge(t *testing.T, r *Repo, target, feature, msg string) *MergeResult {
	t.Helper()
	res, err := mergeBranch(t, r, target, feature, msg)
	if err != nil || len(res.Conflicts) > 0 {
		t.Fatalf("merge %s into %s: %+v %v", target, feature, res, err)
	}
	return res
}

func TestEmptyDirRefused(t *testing.T) {
	if !Available() {
		t.Skip("git is not installed")
	}
	if _, err := (&Repo{}).CommitAll("x"); err == nil {
		t.Fatal(`CommitAll in "" worked on the current directory`)
	}
	if _, err := (&Repo{}).Head(); err == nil {
		t.Fatal(`Head in "" answered`)
	}
}

// Removing the worktree of one branch must not force away a worktree at that
// path on another branch (another session's feature of the same id): its
// uncommitted work would be lost.
func TestRemoveWorktreeLeavesAnotherBranchsWorktree(t *testing.T) {
	r := newRepo(t)
	mustBranch(t, r, "flowdeck/s1", "main")
	path := mustAdd(t, r, ".flow/worktrees/f1", "flowdeck/s1.f1", "flowdeck/s1")
	write(t, path, "scratch.txt", "uncommitted")
	if err := r.RemoveWorktree(".flow/worktrees/f1", "flowdeck/s2.f1", true); err == nil {
		t.Fatal("removed a worktree on another branch")
	}
	if _, err := os.Stat(filepath.Join(path, "scratch.txt")); err != nil {
		t.Fatalf("the other branch's uncommitted work is gone: %v", err)
	}
}

// A feature branch the person checked out in their own checkout (to look at
// an archived session's kept work) is not deleted under it, as git branch
// -D would not: their HEAD would name a branch that no longer exists.
func TestDeleteBranchRefusesCheckedOutBranch(t *testing.T) {
	r := newRepo(t)
	mustBranch(t, r, "flowdeck/s1.f1", "main")
	gitT(t, r.Dir, "checkout", "-q", "flowdeck/s1.f1")
	if err := r.RemoveWorktree(".flow/worktrees/f1", "flowdeck/s1.f1", true); !errors.Is(err, ErrCheckedOut) {
		t.Fatalf("deleting a checked-out branch: %v", err)
	}
	if h, _ := r.BranchHead("flowdeck/s1.f1"); h == "" {
		t.Fatal("the checked-out branch was deleted")
	}
}

// mergeBranch merges feature's head as it is now.
func mergeBranch(t *testing.T, r *Repo, target, feature, msg string) (*MergeResult, error) {
	t.Helper()
	tip, err := r.BranchHead(feature)
	if err != nil || tip == "" {
		t.Fatalf("BranchHead %s: %q %v", feature, tip, err)
	}
	return mergeInto(r, target, feature, tip, msg)
}

// mergeInto is PrepareMerge and the move of target, as a completion makes
// them (with nothing to record between).
func mergeInto(r *Repo, target, feature, tip, msg string) (*MergeResult, error) {
	res, err := r.PrepareMerge(target, feature, tip, msg)
	if err != nil || res.Commit == res.Base {
		return res, err
	}
	if err := r.moveBranch(target, res.Commit, res.Base, "flowdeck: merge "+feature); err != nil {
		return nil, err
	}
	return res, nil
}

// A merge takes the commit it is given, not a later one the feature
// branch moved to, and reports the head it merged onto.
func TestMergeIntoTakesTheGivenTip(t *testing.T) {
	r := newRepo(t)
	mustBranch(t, r, "flowdeck/s", "main")
	base, _ := r.BranchHead("flowdeck/s")
	p1 := mustAdd(t, r, ".flow/worktrees/f1", "flowdeck/s.f1", "flowdeck/s")
	write(t, p1, "a.txt", "validated\n")
	validated := mustCommit(t, r, p1, "validated")
	write(t, p1, "b.txt", "later\n")
	mustCommit(t, r, p1, "later")
	res, err := mergeInto(r, "flowdeck/s", "flowdeck/s.f1", validated, "m")
	if err != nil || res.Commit != validated || res.Base != base {
		t.Fatalf("merge: %+v %v (want commit %s base %s)", res, err, validated, base)
	}
	if _, err := mergeInto(r, "flowdeck/s", "flowdeck/s.f1", "flowdeck/s.f1", "m"); err == nil {
		t.Fatal("a branch name was taken as the tip")
	}
}

// A branch named like a commit id does not stand in for that commit.
func TestResolvePrefersTheCommitID(t *testing.T) {
	r := newRepo(t)
	base := gitT(t, r.Dir, "rev-parse", "HEAD")
	write(t, r.Dir, "b.txt", "b\n")
	other := mustCommit(t, r, r.Dir, "other")
	gitT(t, r.Dir, "branch", base, other)
	mustBranch(t, r, "flowdeck/s", base)
	if h, _ := r.BranchHead("flowdeck/s"); h != base {
		t.Fatalf("branch made at %s, want the commit %s", h, base)
	}
}
