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
	unlock, _, err := Lock(st)
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
	_, wt, err := ensureLocked(st, s, f)
	if err != nil {
		return "", err
	}
	return wt.Dir, nil
}

// ensureLocked is Ensure for a caller that holds the git lock and read s
// under it: it returns the project's repository and the worktree, checked
// to be the one flowdeck made.
// The names are derived from the ids (model.GitNamesOf), not read from the
// database.
func ensureLocked(st *db.Store, s *model.Session, f *model.Feature) (repo, wt *gitwork.Repo, err error) {
	n, err := model.GitNamesOf(s, f.ID)
	if err != nil {
		return nil, nil, err
	}
	root := ProjectRoot(st)
	if err := makeDir(root, n.Worktree); err != nil {
		return nil, nil, err
	}
	if repo, err = gitwork.Open(root); err != nil {
		return nil, nil, err
	}
	_ = repo.Exclude("/" + model.WorktreesDir + "/") // cosmetic: keeps git status clean
	if _, err := repo.EnsureBranch(n.Integration, n.BaseCommit); err != nil {
		return nil, nil, err
	}
	abs, err := repo.AddWorktree(Path(st, n.Worktree), n.Branch, n.Integration)
	if err != nil {
		return nil, nil, err
	}
	wt, err = Linked(repo, s, f.ID, abs, n.Branch)
	return repo, wt, err
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
// store's lock timeout) and returns its release. A merge a process that
// died holding the lock left half made is settled first (Settle), so that
// whoever moves a branch or starts a worktree next starts from the branch
// as the stored state says it is; settled says what that did ("": nothing).
func Lock(st *db.Store) (unlock func(), settled string, err error) {
	if unlock, err = st.LockFile("git.lock"); err != nil {
		return nil, "", err
	}
	if settled, err = Settle(st); err != nil {
		unlock()
		return nil, "", err
	}
	return unlock, settled, nil
}

// Settle, under the git lock, finishes with the merge recorded as under
// way (db.MergeIntent): its process died between moving the integration
// branch and clearing the record. When the completion was stored the
// record just goes; when it was not, the merge goes too (the branch moves
// back to where it was, only if it still points at the merge), so that the
// branch holds only completed features and no later feature starts from,
// and no land lands, work that never completed. It says what it did ("":
// nothing to settle). The record is in the database, which can be edited
// outside flowdeck: a branch other than its session's integration branch
// is never moved, and its feature and commits must be ids (MoveBranch
// refuses a commit that is not one).
func Settle(st *db.Store) (string, error) {
	m, err := st.PendingMerge()
	if err != nil || m == nil {
		return "", err
	}
	if !model.ValidSessionID(m.Session) || m.Branch != model.IntegrationBranch(m.Session) {
		return "", fmt.Errorf("the merge recorded as under way names branch %q, not its session's integration branch: "+
			"the database was changed outside flowdeck (flowdeck flow verify)", m.Branch)
	}
	if !model.ValidFeatureID(m.Feature) {
		return "", fmt.Errorf("the merge recorded as under way names feature %q, not a feature id: "+
			"the database was changed outside flowdeck (flowdeck flow verify)", m.Feature)
	}
	s, err := st.Session(m.Session)
	if err != nil {
		return "", err
	}
	note := ""
	if !mergeStored(s, m) {
		repo, err := gitwork.Open(ProjectRoot(st))
		if err != nil {
			return "", err
		}
		head, err := repo.BranchHead(m.Branch)
		if err != nil {
			return "", err
		}
		if head == m.New {
			if err := repo.MoveBranch(m.Branch, m.Old, m.New, "flowdeck: take back the interrupted merge of "+m.Feature); err != nil {
				return "", err
			}
			note = "the merge of " + m.Feature + " into " + m.Branch + ", interrupted before its completion was stored, was taken back"
		} else {
			note = "the merge of " + m.Feature + " into " + m.Branch + " was interrupted before its completion was stored; the branch has moved since (now at " +
				model.ShortCommit(head) + "), so it was left as it is: the merge is " + model.ShortCommit(m.New)
		}
	}
	return note, st.EndMerge(*m)
}

// mergeStored reports whether s stored the completion m merged for.
func mergeStored(s *model.Session, m *db.MergeIntent) bool {
	if s == nil || s.Plan == nil {
		return false
	}
	f := s.Plan.Feature(m.Feature)
	return f != nil && f.Status == model.FeatureCompleted && f.Git != nil && f.Git.MergeCommit == m.New
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
	unlock, _, err := Lock(st)
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
	repo, wt, err := ensureLocked(st, s, f)
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
	o.Dir, o.Commit = projectIn(st, repo, wt.Dir), head
	tree, err := wt.Snapshot(o.Dir, flowDir) // CodeTree, of the worktree just made sure of
	o.Tree = kept(repo, tree, err)
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
	repo, err := gitwork.Open(ProjectRoot(st))
	if err != nil {
		return wt
	}
	return projectIn(st, repo, wt)
}

// projectIn is ProjectIn with the project's repository open.
func projectIn(st *db.Store, repo *gitwork.Repo, wt string) string {
	rel, err := repo.Rel(ProjectRoot(st))
	if err != nil || rel == "." {
		return wt
	}
	return filepath.Join(wt, rel)
}
