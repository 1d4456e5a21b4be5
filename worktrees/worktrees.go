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

// Ensure makes (or finds) the worktree of feature id, in progress in the
// active session, and returns its absolute path: the integration branch is
// created from the base commit if missing, the feature branch from the
// integration branch. The session is read under the git lock, so a
// completion, reset or archive that just removed the worktree and its
// branch is seen, not undone.
func Ensure(st *db.Store, id string) (string, error) {
	unlock, err := Lock(st)
	if err != nil {
		return "", err
	}
	defer unlock()
	s, err := st.Active()
	if err != nil {
		return "", err
	}
	f := activeWithWorktree(s, id)
	if f == nil {
		return "", fmt.Errorf("feature %s is not in progress in a worktree of the active session", id)
	}
	wt, err := ensureLocked(st, s, f)
	if err != nil {
		return "", err
	}
	return wt.Dir, nil
}

// ensureLocked is Ensure for a caller that holds the git lock and read s
// under it: it returns the worktree, checked to be the one flowdeck made.
// The names are derived from the ids (model.GitNamesOf), not read from the
// database.
func ensureLocked(st *db.Store, s *model.Session, f *model.Feature) (*gitwork.Repo, error) {
	n, err := model.GitNamesOf(s, f.ID)
	if err != nil {
		return nil, err
	}
	root := ProjectRoot(st)
	if err := makeDir(root, n.Worktree); err != nil {
		return nil, err
	}
	repo, err := gitwork.Open(root)
	if err != nil {
		return nil, err
	}
	_ = repo.Exclude("/" + model.WorktreesDir + "/") // cosmetic: keeps git status clean
	if _, err := repo.EnsureBranch(n.Integration, n.BaseCommit); err != nil {
		return nil, err
	}
	abs, err := repo.AddWorktree(Path(st, n.Worktree), n.Branch, n.Integration)
	if err != nil {
		return nil, err
	}
	return Linked(repo, s, f.ID, abs, n.Branch)
}

// Linked opens the worktree of feature id at abs on branch for git work
// inside it, refusing (worktree_changed) one that is no longer what
// flowdeck made: its .git file or git directory rewritten, a symlink on
// its path. nil (and no error) when it is gone.
func Linked(repo *gitwork.Repo, s *model.Session, id, abs, branch string) (*gitwork.Repo, error) {
	wt, err := repo.Linked(abs, branch)
	if errors.Is(err, gitwork.ErrForeignWorktree) {
		return nil, model.WorktreeChanged(s, id, abs, err)
	}
	return wt, err
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
		if fi.Mode()&fs.ModeSymlink != 0 {
			// One out of the project is named as such (path_escapes_project).
			if _, err := contain.ResolveLinks(r, filepath.FromSlash(rel)); err != nil {
				return err
			}
		}
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
		if placed, err := placeInWorktree(st, o); err != nil || placed {
			return err
		}
	}
	// The evidence names the code it ran against: the project's checkout,
	// as a snapshot taken before the command can change it. When git
	// cannot tell, the run goes on and its evidence is not pinned.
	if o.Tree == "" {
		if s, err := st.Active(); err == nil && s != nil && !s.UsesWorktrees() {
			o.Tree = KeptTree(st, s, o.Feature)
		}
	}
	dir := o.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if gitwork.IsRepo(dir) {
		if repo, err := gitwork.Open(dir); err == nil {
			if clean, err := repo.Clean(false); err == nil && clean {
				o.Commit, _ = repo.Head()
			}
		}
	}
	return nil
}

// placeInWorktree places o in its feature's worktree when the feature runs
// in one, reporting whether it did. The session is read again and the
// leftovers committed under the git lock: a completion or archive may have
// removed the worktree meanwhile, and a commit outside the lock races a
// completion's own (git's index.lock).
func placeInWorktree(st *db.Store, o *capture.Options) (bool, error) {
	s, err := st.Active()
	if err != nil || activeWithWorktree(s, o.Feature) == nil {
		return false, err // a cheap look first: most runs take no git lock
	}
	unlock, err := Lock(st)
	if err != nil {
		return false, err
	}
	defer unlock()
	if s, err = st.Active(); err != nil {
		return false, err
	}
	f := activeWithWorktree(s, o.Feature)
	if f == nil {
		return false, nil
	}
	wt, err := ensureLocked(st, s, f)
	if err != nil || wt == nil {
		if err == nil {
			err = fmt.Errorf("the worktree of %s was not made", f.ID)
		}
		return false, err
	}
	head, err := wt.CommitAll("flowdeck: " + f.ID + ": work as verified by flowdeck run")
	if err != nil {
		return false, err
	}
	o.Dir, o.Commit = ProjectIn(st, wt.Dir), head
	o.Tree = KeptTree(st, s, f.ID)
	return true, nil
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

// ProjectIn is the project's directory inside worktree wt: the worktree
// itself, or the same subdirectory when the project is below the top of its
// repository.
func ProjectIn(st *db.Store, wt string) string {
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
