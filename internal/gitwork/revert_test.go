package gitwork

import (
	"slices"
	"strings"
	"testing"
)

// integration makes branch integ from main with two features merged into
// it: x (a fast-forward that adds x.txt and changes a.txt) and y (a merge
// commit that adds y.txt); it returns each merge's before and after heads.
func integration(t *testing.T, r *Repo) (x, y Revert) {
	t.Helper()
	base := gitT(t, r.Dir, "rev-parse", "main")
	mustBranch(t, r, "integ", base)
	wx := mustAdd(t, r, ".flow/worktrees/x", "fx", base)
	write(t, wx, "x.txt", "x\n")
	write(t, wx, "a.txt", "one\nTWO by x\nthree\n")
	mustCommit(t, r, wx, "x")
	wy := mustAdd(t, r, ".flow/worktrees/y", "fy", base)
	write(t, wy, "y.txt", "y\n")
	mustCommit(t, r, wy, "y")
	x = Revert{Before: base, After: mustMerge(t, r, "integ", "fx", "merge x").Commit, Msg: "revert x"}
	y = Revert{Before: x.After, After: mustMerge(t, r, "integ", "fy", "merge y").Commit, Msg: "revert y"}
	return x, y
}

// laterChange merges a feature z, made from from, that writes a.txt into
// integ, and returns the merge.
func laterChange(t *testing.T, r *Repo, from, aTxt string) string {
	t.Helper()
	wz := mustAdd(t, r, ".flow/worktrees/z", "fz", from)
	write(t, wz, "a.txt", aTxt)
	mustCommit(t, r, wz, "z")
	return mustMerge(t, r, "integ", "fz", "merge z").Commit
}

// TestRevertOnUndoesAFeatureAndKeepsTheOthers: reverting x's fast-forward
// under y's merge takes x.txt and x's line out, keeps y.txt, and moves
// nothing until MoveBranch.
func TestRevertOnUndoesAFeatureAndKeepsTheOthers(t *testing.T) {
	r := newRepo(t)
	x, y := integration(t, r)
	head, old, conflicts, err := r.RevertOn("integ", []Revert{x})
	if err != nil || len(conflicts) > 0 || old != y.After || head == "" {
		t.Fatalf("RevertOn: %q %q %v %v", head, old, conflicts, err)
	}
	if got := gitT(t, r.Dir, "rev-parse", "integ"); got != y.After {
		t.Fatalf("RevertOn moved the branch to %s", got)
	}
	files := strings.Fields(gitT(t, r.Dir, "ls-tree", "--name-only", head))
	if !slices.Equal(files, []string{"a.txt", "y.txt"}) || gitT(t, r.Dir, "show", head+":a.txt") != "one\ntwo\nthree" {
		t.Fatalf("after the revert: %v, a.txt %q", files, gitT(t, r.Dir, "show", head+":a.txt"))
	}
	if parent := gitT(t, r.Dir, "rev-parse", head+"^"); parent != y.After || gitT(t, r.Dir, "log", "-1", "--format=%s", head) != "revert x" {
		t.Fatalf("revert commit: parent %s", parent)
	}
	if err := r.MoveBranch("integ", head, old, "test"); err != nil || gitT(t, r.Dir, "rev-parse", "integ") != head {
		t.Fatalf("MoveBranch: %v", err)
	}
	// The guard: moving from a head the branch no longer has fails.
	if err := r.MoveBranch("integ", old, old, "test"); err == nil {
		t.Fatal("MoveBranch ignored its guard")
	}
}

// TestRevertOnChain: y then x, newest first, leaves the base's tree.
func TestRevertOnChain(t *testing.T) {
	r := newRepo(t)
	x, y := integration(t, r)
	head, _, conflicts, err := r.RevertOn("integ", []Revert{y, x})
	if err != nil || len(conflicts) > 0 {
		t.Fatalf("RevertOn: %v %v", conflicts, err)
	}
	if got, want := gitT(t, r.Dir, "rev-parse", head+"^{tree}"), gitT(t, r.Dir, "rev-parse", x.Before+"^{tree}"); got != want {
		t.Fatalf("tree %s, want the base's %s", got, want)
	}
}

// TestRevertOnConflictNamesThePaths: a later change to a path the feature
// changed is a conflict; nothing is made or moved.
func TestRevertOnConflictNamesThePaths(t *testing.T) {
	r := newRepo(t)
	x, y := integration(t, r)
	z := laterChange(t, r, y.After, "one\nTWO by x, then z\nthree\n")
	head, old, conflicts, err := r.RevertOn("integ", []Revert{x})
	if err != nil || head != "" || old != z || !slices.Equal(conflicts, []string{"a.txt"}) {
		t.Fatalf("RevertOn: %q %q %v %v", head, old, conflicts, err)
	}
	if gitT(t, r.Dir, "rev-parse", "integ") != z {
		t.Fatal("the branch moved")
	}
}

// TestRevertOnRefusesWhatIsNotACommitID: the ids come from the session,
// which an imported log wrote: a ref or an option never reaches git.
func TestRevertOnRefusesWhatIsNotACommitID(t *testing.T) {
	r := newRepo(t)
	for _, bad := range []string{"main", "--output=/tmp/x", "", "HEAD~1"} {
		if _, _, _, err := r.RevertOn("main", []Revert{{Before: bad, After: strings.Repeat("a", 40)}}); err == nil {
			t.Errorf("RevertOn took %q", bad)
		}
	}
}

// TestRevertOnMergesLinesOfTheSameFile: a later change elsewhere in a file
// the feature changed is kept, line by line, as git revert keeps it.
func TestRevertOnMergesLinesOfTheSameFile(t *testing.T) {
	r := newRepo(t)
	x, y := integration(t, r)
	laterChange(t, r, y.After, "one\nTWO by x\nthree\nfour by z\n")
	head, _, conflicts, err := r.RevertOn("integ", []Revert{x})
	if err != nil || len(conflicts) > 0 {
		t.Fatalf("RevertOn: %v %v", conflicts, err)
	}
	if got := gitT(t, r.Dir, "show", head+":a.txt"); got != "one\ntwo\nthree\nfour by z" {
		t.Fatalf("a.txt after the revert: %q", got)
	}
	if files := strings.Fields(gitT(t, r.Dir, "ls-tree", "--name-only", head)); !slices.Equal(files, []string{"a.txt", "y.txt"}) {
		t.Fatalf("files after the revert: %v", files)
	}
}
