package gitwork

import (
	"bytes"
	"errors"
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
	out, _, err := r.runFull(nil, "worktree", "list", "--porcelain", "-z")
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
	if _, err := r.runFiles(r.Dir, nil, "worktree", "add", "--quiet", "--", abs, branch); err != nil {
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
		if err := r.noLinkOn(existing.Path); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrForeignWorktree, existing.Path, err)
		}
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

// ErrForeignWorktree means a directory where flowdeck made a worktree is
// no longer that worktree: its .git file, its git directory or its HEAD
// was changed (an agent can write all three from inside it), or a symlink
// now stands on its path. Nothing is run in it.
var ErrForeignWorktree = errors.New("gitwork: not the worktree flowdeck made")

// Linked opens the linked worktree at path (absolute, below r's top) that
// flowdeck made on branch, for commands run inside it. Its git directory
// is never taken from its .git file alone: the file must name a directory
// of r's own worktrees/, that directory must name path back, and its HEAD
// must be branch; and no symlink may stand on path. Otherwise the error is
// ErrForeignWorktree, saying what differs. A path that does not exist, or
// holds no .git at all, is (nil, nil): the worktree is gone.
func (r *Repo) Linked(path, branch string) (*Repo, error) {
	if err := checkBranch(branch); err != nil {
		return nil, err
	}
	foreign := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrForeignWorktree, path, fmt.Sprintf(format, args...))
	}
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err := r.noLinkOn(path); err != nil {
		return nil, foreign("%v", err)
	}
	dotgit, err := readRegular(path, ".git")
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // a plain directory (the worktree removed by hand): no worktree to run in
	}
	if err != nil {
		return nil, foreign("its .git file cannot be read (%v)", err)
	}
	admin, ok := strings.CutPrefix(strings.TrimSpace(string(dotgit)), "gitdir: ")
	if !ok || !filepath.IsAbs(admin) {
		return nil, foreign("its .git file does not name a git directory")
	}
	admin = filepath.Clean(admin)
	if fi, err := os.Lstat(admin); err != nil || !fi.IsDir() {
		return nil, foreign("its git directory %q is not a directory", admin)
	}
	if filepath.Dir(admin) != filepath.Join(r.common, "worktrees") {
		return nil, foreign("its .git file names %q, outside %s", admin, filepath.Join(r.common, "worktrees"))
	}
	back, err := os.ReadFile(filepath.Join(admin, "gitdir"))
	if err != nil || canonical(strings.TrimSpace(string(back))) != canonical(filepath.Join(path, ".git")) {
		return nil, foreign("the git directory %q does not name it back", admin)
	}
	head, err := os.ReadFile(filepath.Join(admin, "HEAD"))
	if err != nil || !bytes.Equal(bytes.TrimSpace(head), []byte("ref: "+ref(branch))) {
		return nil, foreign("its HEAD is not branch %s", branch)
	}
	return &Repo{Dir: path, gitDir: admin, common: r.common}, nil
}

// noLinkOn refuses a path below r's top with a symlink on it: every
// directory from the top down must be one, so that a command run there is
// run where its name says. The top itself may be spelled through a link
// (a temporary directory, a home on another disk): r.Dir is its real path.
func (r *Repo) noLinkOn(path string) error {
	top := filepath.Clean(path)
	for canonical(top) != r.Dir {
		up := filepath.Dir(top)
		if up == top {
			return fmt.Errorf("it is not below %s", r.Dir)
		}
		top = up
	}
	rel, err := filepath.Rel(top, path)
	if err != nil || rel == "." {
		return fmt.Errorf("it is not below %s", r.Dir)
	}
	at := top
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		at = filepath.Join(at, part)
		fi, err := os.Lstat(at)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory (a symlink stands there)", at)
		}
	}
	return nil
}
