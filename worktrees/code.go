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
// worktree when it runs in one, else of the project's own checkout; and
// the project's repository it was taken in (nil where none was opened),
// for a caller that goes on to diff it. It is "" (nil error) where no .git is
// found, and for a feature whose worktree is gone (nothing to look at
// until run --feature makes it again). It runs no git to ask whether the
// project is a repository: a caller that must tell "not git" from "git
// failed" asks InGit once, before.
func CodeTree(st *db.Store, s *model.Session, id string) (string, *gitwork.Repo, error) {
	root := ProjectRoot(st)
	if !MaybeGit(root) {
		return "", nil, nil
	}
	repo, err := gitwork.Open(root)
	if err != nil {
		return "", nil, err
	}
	if !s.UsesWorktrees() || s.Plan == nil {
		tree, err := repo.Snapshot(root, flowDir)
		return tree, repo, err
	}
	if f := s.Plan.Feature(id); f == nil || f.Git == nil {
		return "", nil, nil
	}
	n, err := model.GitNamesOf(s, id)
	if err != nil {
		return "", nil, err
	}
	wt, err := Linked(repo, s, id, Path(st, n.Worktree), n.Branch)
	if err != nil || wt == nil {
		return "", nil, err
	}
	tree, err := wt.Snapshot(projectIn(st, repo, wt.Dir), flowDir)
	return tree, repo, err
}

// SessionTree is the tree the session's code is at: the integration
// branch's head (its base commit before the branch exists) in a session
// with worktrees, else a snapshot of the project's checkout; and the
// repository it is in. "" where no .git is found (see CodeTree).
func SessionTree(st *db.Store, s *model.Session) (string, *gitwork.Repo, error) {
	root := ProjectRoot(st)
	if !MaybeGit(root) {
		return "", nil, nil
	}
	repo, err := gitwork.Open(root)
	if err != nil {
		return "", nil, err
	}
	if !s.UsesWorktrees() {
		tree, err := repo.Snapshot(root, flowDir)
		return tree, repo, err
	}
	// The tree of the integration branch's head without .flow/, or of the
	// session's base commit when the branch is not made yet.
	n, err := model.GitNamesOf(s, "")
	if err != nil {
		return "", nil, err
	}
	head, err := repo.BranchHead(n.Integration)
	if err != nil {
		return "", nil, err
	}
	if head == "" {
		head = n.BaseCommit
	}
	tree, err := repo.TreeWithout(root, head, flowDir)
	return tree, repo, err
}

// StartTree is SessionTree kept from gc: where a feature starting now, or
// the session when its plan is approved, starts from.
func StartTree(st *db.Store, s *model.Session) (string, error) {
	tree, repo, err := SessionTree(st, s)
	if err != nil || tree == "" {
		return "", err
	}
	return tree, repo.Keep(tree)
}

// Keep keeps tree from gc in the project's repository ("" is nothing).
func Keep(st *db.Store, tree string) error {
	if tree == "" {
		return nil
	}
	repo, err := gitwork.Open(ProjectRoot(st))
	if err != nil {
		return err
	}
	return repo.Keep(tree)
}

// KeptTree is CodeTree kept from gc, or "" when git cannot say (evidence
// is then recorded unpinned rather than the action or run refused).
func KeptTree(st *db.Store, s *model.Session, id string) string {
	tree, repo, err := CodeTree(st, s, id)
	return kept(repo, tree, err)
}

// kept is tree, taken in repo (err the taking's), once repo keeps it from
// gc; "" when git cannot say.
func kept(repo *gitwork.Repo, tree string, err error) string {
	if err != nil || tree == "" || repo.Keep(tree) != nil {
		return ""
	}
	return tree
}
