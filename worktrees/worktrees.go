// Package worktrees does the git work of a session whose features run in
// their own git worktrees (model.GitSetup): it makes a claimed feature's
// worktree, puts a feature's runs in it, and serializes everything that
// moves a branch under .flow/git.lock. The model records; this package acts.
package worktrees

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/flowdeck/flowdeck/capture"
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/contain"
	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
)

// ProjectRoot is the directory that holds st's .flow.
func ProjectRoot(st *db.Store) string { return filepath.Dir(st.Dir()) }

// Path is the absolute path of feature worktree rel (as model records it).
func Path(st *db.Store, rel string) string {
	return filepath.Join(ProjectRoot(st), filepath.FromSlash(rel))
}

// Ensure makes (or finds) the worktree of active feature id and returns
// its absolute path: the integration branch is created from the base
// commit if missing, the feature branch from the integration branch.
func Ensure(st *db.Store, s *model.Session, id string) (string, error) {
	f := s.Plan.Feature(id)
	if f == nil || f.Git == nil || s.Git == nil {
		return "", fmt.Errorf("feature %s has no worktree in session %s", id, s.ID)
	}
	root := ProjectRoot(st)
	abs := Path(st, f.Git.Worktree)
	unlock, err := Lock(st)
	if err != nil {
		return abs, err
	}
	defer unlock()
	if err := makeDir(root, f.Git.Worktree); err != nil {
		return abs, err
	}
	repo, err := gitwork.Open(root)
	if err != nil {
		return abs, err
	}
	_ = repo.Exclude("/" + model.WorktreesDir + "/") // cosmetic: keeps git status clean
	if _, err := repo.EnsureBranch(s.Git.Integration, s.Git.BaseCommit); err != nil {
		return abs, err
	}
	_, err = repo.AddWorktree(abs, f.Git.Branch, s.Git.Integration)
	return abs, err
}

// makeDir makes .flow/worktrees beneath the project root, so that a
// symlink planted there cannot send a checkout out of the project; nor can
// one planted at the worktree's own path rel (by an agent in a sibling).
func makeDir(root, rel string) error {
	r, err := contain.Open(root)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.MkdirAll(filepath.FromSlash(model.WorktreesDir), 0o755); err != nil {
		return contain.Fault(root, err)
	}
	fi, err := r.Lstat(filepath.FromSlash(model.WorktreesDir))
	if err != nil {
		return contain.Fault(root, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", filepath.Join(root, model.WorktreesDir))
	}
	if fi, err := r.Lstat(filepath.FromSlash(rel)); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", filepath.Join(root, filepath.FromSlash(rel)))
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return contain.Fault(root, err)
	}
	return nil
}

// Lock takes .flow/git.lock (an exclusive flock, waited for up to the
// store's lock timeout) and returns its release.
func Lock(st *db.Store) (func(), error) {
	return st.LockFile("git.lock")
}

// PlaceRun settles where a feature's run (o.Feature set) runs and the
// commit its evidence names. With inWorktree, a feature that runs in a
// worktree now runs there, with what the agent left uncommitted committed
// first, so that the evidence names exactly what ran (o.Commit). Otherwise
// the run stays in o.Dir (--here, or a feature without a worktree; "" is
// the process's directory) and records that directory's HEAD when its
// tracked files have no changes.
func PlaceRun(st *db.Store, o *capture.Options, inWorktree bool) error {
	if o.Feature == "" {
		return nil
	}
	if inWorktree {
		s, err := st.Active()
		if err != nil {
			return err
		}
		if f := activeWithWorktree(s, o.Feature); f != nil {
			wt, err := Ensure(st, s, f.ID)
			if err != nil {
				return err
			}
			head, err := gitwork.CommitAll(wt, "flowdeck: "+f.ID+": work as verified by flowdeck run")
			if err != nil {
				return err
			}
			o.Dir, o.Commit = projectIn(st, wt), head
			return nil
		}
	}
	dir := o.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if gitwork.IsRepo(dir) {
		if clean, err := gitwork.Clean(dir, false); err == nil && clean {
			o.Commit, _ = gitwork.HeadOf(dir)
		}
	}
	return nil
}

func activeWithWorktree(s *model.Session, id string) *model.Feature {
	if !s.UsesWorktrees() || s.Plan == nil {
		return nil
	}
	if f := s.Plan.Feature(id); f != nil && f.Status == model.FeatureInProgress && f.Git != nil {
		return f
	}
	return nil
}

// projectIn is the project's directory inside worktree wt: the worktree
// itself, or the same subdirectory when the project is below the top of its
// repository.
func projectIn(st *db.Store, wt string) string {
	root := ProjectRoot(st)
	repo, err := gitwork.Open(root)
	if err != nil {
		return wt
	}
	top, _ := filepath.EvalSymlinks(repo.Dir)
	real, _ := filepath.EvalSymlinks(root)
	rel, err := filepath.Rel(top, real)
	if err != nil || rel == "." || rel == ".." || len(rel) > 2 && rel[:3] == "../" {
		return wt
	}
	return filepath.Join(wt, rel)
}
