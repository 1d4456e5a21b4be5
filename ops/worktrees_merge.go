package ops

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/termtext"
	"github.com/flowdeck/flowdeck/worktrees"
)

// completeWithMerge completes a feature of a session that uses worktrees:
// the completion gate is checked first (on the stored state, changing
// nothing), then, under the git lock, the feature branch is merged into the
// integration branch and the completion stored with the merge commit. A
// conflict is stored as such and refused with merge_conflict; the worktree
// stays. Without worktrees it is the plain action.
func completeWithMerge(st *db.Store, a model.RunComplete, seen uint64, by model.Context, faults Faults) (*db.Outcome, *GitReport, error) {
	plain := func() (*db.Outcome, *GitReport, error) {
		out, err := st.DoBy(a, seen, by)
		return out, nil, err
	}
	// Merges happen one at a time, each on the state as the previous one
	// left it.
	s, unlock, settled, ok, err := underGitLock(st)
	if err != nil || !ok {
		if err != nil {
			return nil, nil, err
		}
		return plain()
	}
	defer unlock()
	if s.Plan == nil {
		return plain()
	}
	f := s.Plan.Feature(a.Feature)
	if f == nil || f.Git == nil || f.Status != model.FeatureInProgress {
		return plain()
	}
	// The names are derived from the ids, not read from the database.
	n, err := model.GitNamesOf(s, f.ID)
	if err != nil {
		return nil, nil, err
	}
	root := worktrees.ProjectRoot(st)
	repo, err := gitwork.Open(root)
	if err != nil {
		return nil, nil, err
	}
	wt := worktrees.Path(st, n.Worktree)
	rep := &GitReport{Worktree: wt, Branch: n.Branch}
	rep.warn(settled)
	if err := saveLeftovers(repo, s, f.ID, wt, n.Branch); err != nil {
		return nil, nil, err
	}
	// The completion gates include the commit the merge takes: what
	// changed after the latest validation is not merged unvalidated.
	if a.Head, err = repo.BranchHead(n.Branch); err != nil {
		return nil, nil, err
	}
	// A refusal (a gate, stale_decision, a bad argument) is the stored
	// action's own business: it records what it records, and no merge runs.
	if _, derr := model.Decide(s, a, by); derr != nil {
		return plain()
	}
	return mergeAndStore(st, repo, s, f, a, rep, seen, by, faults)
}

// underGitLock takes the git lock for an action on a session that uses
// worktrees, settles a merge a crashed process left (worktrees.Settle; settled
// says what it did), and reads the session again under it: a merge or a
// reset may have moved it since. ok is false for a project or a session
// without worktrees: the action is then the plain one, and nothing is
// locked.
func underGitLock(st *db.Store) (s *model.Session, unlock func(), settled string, ok bool, err error) {
	if !worktrees.MaybeGit(worktrees.ProjectRoot(st)) {
		return nil, nil, "", false, nil
	}
	if s, err := st.Active(); err != nil || !s.UsesWorktrees() {
		return nil, nil, "", false, nil
	}
	if unlock, settled, err = worktrees.Lock(st); err != nil {
		return nil, nil, "", false, err
	}
	if s, err = st.Active(); err != nil || !s.UsesWorktrees() {
		unlock()
		return nil, nil, "", false, nil
	}
	return s, unlock, settled, true, nil
}

// settleGit settles a merge left half made before git work that does not
// take the git lock first (the trees a plan approval, a feature's start or
// the final review pins): a cheap read when there is none.
func settleGit(st *db.Store) (string, error) {
	if m, err := st.PendingMerge(); err != nil || m == nil {
		return "", err
	}
	unlock, settled, err := worktrees.Lock(st)
	if err != nil {
		return "", err
	}
	unlock()
	return settled, nil
}

// mergeAndStore merges f's branch into the integration branch and stores
// a, the completion, with the merge commit; a conflict is stored instead.
// The caller holds the git lock and checked the gates. A merge that would
// change what is not the project's code (.flow, ignored files) is refused
// with protected_paths, changing nothing. The merge is recorded as under
// way (db.MergeIntent) before the branch moves and cleared once the
// completion is stored: a process that dies in between leaves it for the
// next one to settle (worktrees.Settle).
func mergeAndStore(st *db.Store, repo *gitwork.Repo, s *model.Session, f *model.Feature, a model.RunComplete,
	rep *GitReport, seen uint64, by model.Context, faults Faults) (*db.Outcome, *GitReport, error) {
	n, err := model.GitNamesOf(s, f.ID)
	if err != nil {
		return nil, nil, err
	}
	if _, err := repo.EnsureBranch(n.Integration, n.BaseCommit); err != nil {
		return nil, nil, err
	}
	msg := "flowdeck: merge feature " + f.ID + " (session " + s.ID + ")\n\n" + termtext.Line(f.Title)
	// a.Head, the commit the gates passed, is merged; not the branch's
	// head now, which the agent may have moved since.
	res, err := repo.PrepareMerge(n.Integration, n.Branch, a.Head, msg)
	if err != nil {
		return nil, nil, err
	}
	if len(res.Conflicts) > 0 {
		rep.Merge = res
		out, cerr := st.DoBy(model.RecordConflict{Feature: f.ID, Files: res.Conflicts}, 0, by)
		return out, rep, cerr
	}
	moved := res.Commit != res.Base
	intent := db.MergeIntent{Session: s.ID, Feature: f.ID, Branch: n.Integration, Old: res.Base, New: res.Commit}
	// The record goes once the completion is stored or the merge undone;
	// when that fails, the next action under the git lock settles it.
	end := func() {
		if eerr := st.EndMerge(intent); eerr != nil {
			rep.warn("the record of the merge stays until the next git action settles it: " + eerr.Error())
		}
	}
	if moved {
		flow, err := repo.FlowPath(worktrees.ProjectRoot(st))
		if err != nil {
			return nil, nil, err
		}
		paths, err := repo.ProtectedSince(flow, res.Base, res.Commit)
		if err != nil {
			return nil, nil, err
		}
		if len(paths) > 0 {
			return nil, rep, model.ProtectedPathsError(s, f, paths)
		}
		if err := st.IntendMerge(intent); err != nil {
			return nil, nil, err
		}
		if err := repo.MoveBranch(n.Integration, res.Commit, res.Base, "flowdeck: merge "+f.ID); err != nil {
			end()
			return nil, nil, err
		}
		faults.afterMerge()
	}
	rep.Merge = res
	a.MergeCommit = res.Commit
	if moved {
		a.MergeBase = res.Base // what a reset of the feature reverts to
	}
	out, err := st.DoBy(a, seen, by)
	_, refused := model.AsError(err)
	if err != nil && !refused && moved {
		// The store failed: whether the completion is stored is the
		// database's to say, and settling asks it, as the next action
		// would (which does it when the database does not answer now).
		if note, serr := worktrees.Settle(st); serr != nil {
			rep.warn("the merge stays recorded until the next git action settles it: " + serr.Error())
		} else {
			rep.warn(note)
		}
		rep.Merge = nil
		return out, rep, err
	}
	if err != nil || refused || !completed(out, f.ID) {
		// Not stored as completed (the state moved since the check): the
		// merge goes too, so the branch holds only completed features.
		if moved {
			if uerr := repo.MoveBranch(n.Integration, res.Base, res.Commit, "flowdeck: undo merge"); uerr != nil {
				rep.warn("the merge was not undone: " + uerr.Error())
			} else {
				end()
			}
		}
		rep.Merge = nil
		return out, rep, err
	}
	if moved {
		end()
	}
	if rerr := repo.RemoveWorktree(rep.Worktree, n.Branch, true); rerr != nil {
		rep.warn("the worktree was not removed: " + rerr.Error())
	} else {
		rep.Removed = []string{rep.Worktree}
	}
	return out, rep, nil
}

// saveLeftovers commits what the agent left uncommitted in feature id's
// worktree at wt, so that removing it loses nothing and the merge carries
// all of it. Only the worktree flowdeck made on the feature's branch is
// committed in (worktrees.Linked): a plain directory at its path is inside
// the person's own checkout, and one whose .git file now names another
// repository or branch is refused.
func saveLeftovers(repo *gitwork.Repo, s *model.Session, id, wt, branch string) error {
	w, err := worktrees.Linked(repo, s, id, wt, branch)
	if err != nil || w == nil {
		return err // no worktree (removed by hand): the branch is what there is
	}
	_, err = w.CommitAll("flowdeck: " + id + ": changes left uncommitted at completion")
	return err
}

func completed(out *db.Outcome, id string) bool {
	if out == nil {
		return false
	}
	for _, e := range out.Events {
		if e.Type == model.EventFeatureCompleted && e.Feature == id {
			return true
		}
	}
	return false
}

// resetWithWorktrees resets features, takes the merges of the completed
// ones among them back out of the integration branch, and removes the
// worktree and branch of every feature the reset cascaded to. A reset
// feature is redone from scratch, so its old work must not be in the
// branch its new worktree starts from. The reverts are made before the
// reset is stored and the branch moves after it, all under the git lock:
// a revert that conflicts refuses the reset (reset_conflict) and changes
// nothing.
func resetWithWorktrees(st *db.Store, a model.ResetFeature, seen uint64, by model.Context) (*db.Outcome, *GitReport, error) {
	s, unlock, settled, ok, err := underGitLock(st)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		out, err := st.DoBy(a, seen, by)
		return out, nil, err
	}
	defer unlock()
	root := worktrees.ProjectRoot(st)
	rep := &GitReport{}
	rep.warn(settled)
	move, err := revertMerges(root, s, a.Feature, by.Actor, rep)
	if _, refused := model.AsError(err); refused {
		return nil, nil, err // reset_conflict: nothing changes
	} else if err != nil {
		// git failed (not a conflict): the reset still goes through, so
		// that no feature is stuck; its merges stay, and the report says so.
		rep.warn("the merges of " + strings.Join(rep.Reverted, ", ") + " stay on " + model.IntegrationBranch(s.ID) + ": " + err.Error())
		move, rep.Reverted = nil, nil
	}
	out, err := st.DoBy(a, seen, by)
	if err != nil || out == nil || out.Session == nil || !resetStored(out, rep.Reverted) {
		return out, nil, err // not stored: nothing moved
	}
	if move != nil {
		if merr := move(); merr != nil {
			rep.warn("the merges of " + strings.Join(rep.Reverted, ", ") + " were not taken out of the integration branch: " + merr.Error())
			rep.Reverted = nil
		}
	}
	removeResetWorktrees(root, out, rep)
	return out, rep, nil
}

// revertMerges prepares the reverts, on s's integration branch, of the
// merges of the completed features that resetting id cascades to (the
// newest first) and returns the move of the branch that applies them (nil:
// nothing to revert). A revert that conflicts is a reset_conflict refusal.
func revertMerges(root string, s *model.Session, id, actor string, rep *GitReport) (func() error, error) {
	merged, premerged := model.ResetMerges(s, id)
	for _, fid := range premerged {
		rep.warn("the merge of " + fid + " stays on " + model.IntegrationBranch(s.ID) + ": it was made before flowdeck recorded what it merged onto")
	}
	var reverts []gitwork.Revert
	for _, fid := range merged {
		g := s.Plan.Feature(fid).Git
		reverts = append(reverts, gitwork.Revert{Before: g.MergeBase, After: g.MergeCommit,
			Msg: "flowdeck: take back feature " + fid + " (reset of " + id + " by " + termtext.Line(actor) + ", session " + s.ID + ")"})
		rep.Reverted = append(rep.Reverted, fid)
	}
	if len(reverts) == 0 {
		return nil, nil
	}
	n, err := model.GitNamesOf(s, "")
	if err != nil {
		return nil, err
	}
	repo, err := gitwork.Open(root)
	if err != nil {
		return nil, err
	}
	if err := newestFirst(repo, reverts, rep.Reverted); err != nil {
		return nil, err
	}
	head, old, conflicts, err := repo.RevertOn(n.Integration, reverts)
	if err != nil {
		return nil, err
	}
	if len(conflicts) > 0 {
		return nil, resetConflict(s, id, rep.Reverted, conflicts)
	}
	return func() error { return repo.MoveBranch(n.Integration, head, old, "flowdeck: reset "+id) }, nil
}

// resetStored reports whether out stored a reset of every one of ids (and
// of something at all).
func resetStored(out *db.Outcome, ids []string) bool {
	reset := map[string]bool{}
	for _, e := range out.Events {
		if e.Type == model.EventFeaturesReset {
			for _, id := range e.FeatureIDs {
				reset[id] = true
			}
		}
	}
	for _, id := range ids {
		if !reset[id] {
			return false
		}
	}
	return len(reset) > 0
}

// newestFirst orders reverts (and names alike) so that a merge is taken
// back before the merges it was made on: each merge's result is an
// ancestor of every later one's on the integration branch.
func newestFirst(repo *gitwork.Repo, reverts []gitwork.Revert, names []string) error {
	for i := 1; i < len(reverts); i++ {
		for j := i; j > 0; j-- {
			older, err := repo.IsAncestor(reverts[j-1].After, reverts[j].After)
			if err != nil {
				return err
			}
			if !older {
				break
			}
			reverts[j-1], reverts[j] = reverts[j], reverts[j-1]
			names[j-1], names[j] = names[j], names[j-1]
		}
	}
	return nil
}

// resetConflict refuses a reset whose reverts conflict with later work on
// the integration branch.
func resetConflict(s *model.Session, id string, features, files []string) *model.Error {
	return &model.Error{Code: model.CodeResetConflict,
		Message: fmt.Sprintf("taking %s back out of %s conflicts on %s: work merged after it changed them",
			strings.Join(features, ", "), model.IntegrationBranch(s.ID), model.QuotedFiles(model.CapFiles(files))),
		Recovery: model.Recovery{Hint: "Reset the features that changed those files after " + id + " as well (reset the earliest first, " +
			"or all of them at once from a common dependency), or take " + id + "'s changes out of " + model.IntegrationBranch(s.ID) + " by hand and reset again.",
			NextCommand: "flowdeck flow status"}}
}

// removeResetWorktrees removes the worktree and branch of every feature
// the stored reset cascaded to. The names are the model's, so the reset
// state (which forgot them) is enough to find what to remove.
func removeResetWorktrees(root string, out *db.Outcome, rep *GitReport) {
	var drop []*model.FeatureGit
	for _, e := range out.Events {
		if e.Type != model.EventFeaturesReset {
			continue
		}
		for _, id := range e.FeatureIDs {
			drop = append(drop, &model.FeatureGit{Branch: model.FeatureBranch(out.Session.ID, id), Worktree: model.WorktreePath(id)})
		}
	}
	if len(drop) == 0 {
		return
	}
	repo, err := gitwork.Open(root)
	if err != nil {
		rep.warn(err.Error())
		return
	}
	for _, g := range drop {
		wt := filepath.Join(root, filepath.FromSlash(g.Worktree))
		_, statErr := os.Stat(wt)
		if rerr := repo.RemoveWorktree(wt, g.Branch, true); rerr != nil {
			rep.warn("the worktree " + wt + " was not removed: " + rerr.Error())
			continue
		}
		if statErr == nil {
			rep.Removed = append(rep.Removed, wt)
		}
	}
}
