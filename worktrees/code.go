package worktrees

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
)

// The code state of a project as git trees (model.Pin): where a feature's
// code is now, where it started, where the session started. Every tree is
// a snapshot without .flow/ (flowdeck's own files are not the code), so
// that one state of the code is one tree wherever it is taken.

// ErrNoGit says the project is not in a git repository (or git is not
// installed): diffs and pinning need git.
var ErrNoGit = errors.New("diffs and pinning need git: the project is not in a git repository")

// flowDir is what every snapshot leaves out, relative to the project.
const flowDir = ".flow"

// InGit reports whether the project of st is in a git work tree.
func InGit(st *db.Store) bool {
	return MaybeGit(ProjectRoot(st)) && gitwork.IsRepo(ProjectRoot(st))
}

// MaybeGit is a cheap first look (no git run, no database read) whether
// dir may be in a git repository: a .git at it or above it.
func MaybeGit(dir string) bool {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}

// CodeTree is the tree feature id's code is at now in s: a snapshot of its
// worktree when it runs in one, else of the project's own checkout. It is
// "" (nil error) where no .git is found, and for a feature whose worktree
// is gone (nothing to look at until run --feature makes it again). It runs
// no git to ask whether the project is a repository: a caller that must
// tell "not git" from "git failed" asks InGit once, before.
func CodeTree(st *db.Store, s *model.Session, id string) (string, error) {
	if !MaybeGit(ProjectRoot(st)) {
		return "", nil
	}
	dir := ProjectRoot(st)
	if s.UsesWorktrees() && s.Plan != nil {
		f := s.Plan.Feature(id)
		if f == nil || f.Git == nil {
			return "", nil
		}
		wt := Path(st, f.Git.Worktree)
		repo, err := gitwork.Open(ProjectRoot(st))
		if err != nil {
			return "", err
		}
		if w, err := repo.WorktreeAt(wt); err != nil || w == nil || w.Branch != f.Git.Branch {
			return "", err
		}
		dir = ProjectIn(st, wt)
	}
	return gitwork.Snapshot(dir, flowDir)
}

// SessionTree is the tree the session's code is at: the integration
// branch's head (its base commit before the branch exists) in a session
// with worktrees, else a snapshot of the project's checkout. "" where no
// .git is found (see CodeTree).
func SessionTree(st *db.Store, s *model.Session) (string, error) {
	root := ProjectRoot(st)
	switch {
	case !MaybeGit(root):
		return "", nil
	case s.UsesWorktrees():
		return integrationTree(st, s)
	}
	return gitwork.Snapshot(root, flowDir)
}

// StartTree is SessionTree kept from gc: where a feature starting now, or
// the session when its plan is approved, starts from.
func StartTree(st *db.Store, s *model.Session) (string, error) {
	tree, err := SessionTree(st, s)
	if err != nil || tree == "" {
		return "", err
	}
	return tree, Keep(st, tree)
}

// integrationTree is the tree of the integration branch's head without
// .flow/, or of the session's base commit when the branch is not made yet.
func integrationTree(st *db.Store, s *model.Session) (string, error) {
	root := ProjectRoot(st)
	repo, err := gitwork.Open(root)
	if err != nil {
		return "", err
	}
	head, err := repo.BranchHead(s.Git.Integration)
	if err != nil {
		return "", err
	}
	if head == "" {
		head = s.Git.BaseCommit
	}
	return gitwork.TreeWithout(root, head, flowDir)
}

// Keep keeps tree from gc in the project's repository ("" is nothing).
func Keep(st *db.Store, tree string) error {
	if tree == "" {
		return nil
	}
	return gitwork.Keep(ProjectRoot(st), tree)
}

// KeptTree is CodeTree kept from gc, or "" when git cannot say (evidence
// is then recorded unpinned rather than the action or run refused).
func KeptTree(st *db.Store, s *model.Session, id string) string {
	tree, err := CodeTree(st, s, id)
	if err != nil || tree == "" || Keep(st, tree) != nil {
		return ""
	}
	return tree
}
