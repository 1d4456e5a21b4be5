package gitwork

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Worktree is one linked worktree as git lists it.
type Worktree struct {
	Path   string
	Head   string
	Branch string // "" when detached
}

// Worktrees lists the repository's worktrees, the main one first.
func (r *Repo) Worktrees() ([]Worktree, error) {
	out, _, err := runFull(context.Background(), r.Dir, nil, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, err
	}
	return parseWorktrees(out), nil
}

// parseWorktrees reads git worktree list --porcelain -z: NUL-ended
// "key value" fields, an empty field between worktrees.
func parseWorktrees(out string) []Worktree {
	var list []Worktree
	var cur *Worktree
	for _, field := range strings.Split(out, "\x00") {
		k, v, _ := strings.Cut(field, " ")
		switch k {
		case "worktree":
			list = append(list, Worktree{Path: v})
			cur = &list[len(list)-1]
		case "HEAD":
			if cur != nil {
				cur.Head = v
			}
		case "branch":
			if cur != nil {
				cur.Branch = strings.TrimPrefix(v, "refs/heads/")
			}
		}
	}
	return list
}

// WorktreeAt is the worktree registered at path, or nil when there is none
// (a directory there that git does not list is not one).
func (r *Repo) WorktreeAt(path string) (*Worktree, error) { return r.findWorktree(r.abs(path)) }

// findWorktree returns the worktree at path, or nil.
func (r *Repo) findWorktree(path string) (*Worktree, error) {
	list, err := r.Worktrees()
	if err != nil {
		return nil, err
	}
	want := canonical(path)
	for i := range list {
		if canonical(list[i].Path) == want {
			return &list[i], nil
		}
	}
	return nil, nil
}

// canonical resolves symlinks where it can (t.TempDir on macOS, /tmp links)
// so that two spellings of one directory compare equal.
func canonical(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// AddWorktree makes path (relative to the repository's top level, or
// absolute) a worktree on branch, creating branch at from when it does not
// exist. A worktree already at path on branch is reused; one on another
// branch is an error.
func (r *Repo) AddWorktree(path, branch, from string) (string, error) {
	if err := checkBranch(branch); err != nil {
		return "", err
	}
	abs := r.abs(path)
	existing, err := r.findWorktree(abs)
	if err != nil {
		return "", err
	}
	if existing != nil {
		if existing.Branch != branch {
			return "", fmt.Errorf("gitwork: %s is a worktree on branch %q, not %q", abs, existing.Branch, branch)
		}
		return abs, nil
	}
	if _, err := os.Stat(abs); err == nil {
		// A directory left over (a worktree removed by hand, a crash
		// between mkdir and checkout): let git forget stale entries first.
		if _, err := r.git("worktree", "prune"); err != nil {
			return "", err
		}
	}
	if _, err := r.EnsureBranch(branch, from); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return "", err
	}
	if _, err := runFiles(context.Background(), r.Dir, nil, "worktree", "add", "--quiet", "--", abs, branch); err != nil {
		return "", err
	}
	return abs, nil
}

// RemoveWorktree removes the worktree at path (even with changes in it:
// the person asked to drop the feature) and, with deleteBranch, its branch.
// A worktree already gone is fine.
func (r *Repo) RemoveWorktree(path, branch string, deleteBranch bool) error {
	abs := r.abs(path)
	existing, err := r.findWorktree(abs)
	if err != nil {
		return err
	}
	if existing != nil {
		// Another branch's worktree at path (another session's feature of the
		// same id) is not ours to force away; a detached one (a rebase
		// stopped midway) is.
		if branch != "" && existing.Branch != "" && existing.Branch != branch {
			return fmt.Errorf("gitwork: %s is a worktree on branch %q, not %q", existing.Path, existing.Branch, branch)
		}
		if _, err := r.git("worktree", "remove", "--force", "--force", "--", existing.Path); err != nil {
			return err
		}
	} else if _, err := r.git("worktree", "prune"); err != nil {
		return err
	}
	if deleteBranch && branch != "" {
		return r.DeleteBranch(branch)
	}
	return nil
}

// gitDir is the repository's common git directory (shared by worktrees).
func (r *Repo) gitDir() (string, error) {
	out, err := run(context.Background(), r.Dir, nil, "rev-parse", "--path-format=absolute", "--git-common-dir")
	return out, err
}
