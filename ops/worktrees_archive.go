package ops

import (
	"os"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/worktrees"
)

// archiveWithWorktrees stores an action that may archive the active
// session (flow reset session, a new goal replacing it, activating another
// session) and then removes the worktrees of the archived session's
// unfinished features: worktree paths are per feature id, so another
// session's feature of the same id could not have its own. Their branches
// stay, with what the agent left uncommitted committed onto them, so that
// activating the session again (run --feature remakes a worktree) loses
// nothing; Kept says so.
func archiveWithWorktrees(st *db.Store, a model.Action, seen uint64, by model.Context) (*db.Outcome, *GitReport, error) {
	out, err := st.DoBy(a, seen, by)
	if err != nil || out == nil {
		return out, nil, err
	}
	var archived string
	for _, e := range out.Events {
		if e.Type == model.EventSessionArchived {
			archived = e.Session
		}
	}
	if archived == "" || !worktrees.MaybeGit(worktrees.ProjectRoot(st)) {
		return out, nil, nil
	}
	s, serr := st.Session(archived)
	if serr != nil || !s.UsesWorktrees() || s.Plan == nil {
		return out, nil, nil
	}
	// The names are derived from the ids: a database changed outside
	// flowdeck must not make it remove or commit in another directory.
	var left []model.GitNames
	var rep *GitReport
	for _, f := range s.Plan.Features {
		if f.Git == nil || f.Git.Worktree == "" || f.Status == model.FeatureCompleted {
			continue
		}
		n, err := model.GitNamesOf(s, f.ID)
		if err != nil {
			if rep == nil {
				rep = &GitReport{}
			}
			rep.warn("the worktree of " + f.ID + " was left alone: " + err.Error())
			continue
		}
		left = append(left, n)
	}
	if len(left) == 0 {
		return out, rep, nil
	}
	return out, removeArchived(st, s, left, rep), nil
}

// removeArchived removes the worktrees of features named (an archived
// session's), committing leftovers first and keeping the branches.
func removeArchived(st *db.Store, s *model.Session, names []model.GitNames, rep *GitReport) *GitReport {
	if rep == nil {
		rep = &GitReport{}
	}
	unlock, settled, err := worktrees.Lock(st)
	if err != nil {
		rep.warn(err.Error())
		return rep
	}
	defer unlock()
	rep.warn(settled)
	root := worktrees.ProjectRoot(st)
	repo, err := gitwork.Open(root)
	if err != nil {
		rep.warn(err.Error())
		return rep
	}
	for _, n := range names {
		wt := worktrees.Path(st, n.Worktree)
		w, err := repo.WorktreeAt(wt)
		if err == nil && w != nil && w.Branch != n.Branch {
			continue // someone else's worktree now: not the archived session's to remove
		}
		if err == nil && w != nil {
			var in *gitwork.Repo
			if in, err = worktrees.Linked(repo, s, n.Feature, wt, n.Branch); err == nil && in != nil {
				_, err = in.CommitAll("flowdeck: changes left uncommitted when the session was archived")
			}
		}
		if err == nil {
			_, statErr := os.Stat(wt)
			if err = repo.RemoveWorktree(wt, n.Branch, false); err == nil && statErr == nil {
				rep.Removed = append(rep.Removed, wt)
				rep.Kept = append(rep.Kept, n.Branch)
			}
		}
		if err != nil {
			rep.warn("the worktree " + wt + " was not removed: " + err.Error())
		}
	}
	if len(rep.Removed) == 0 && rep.Warning == "" {
		return nil
	}
	return rep
}
