package ops

import (
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/worktrees"
)

// pin gives an action the code state it is about (model.Pin): the tree a
// starting feature or an approved plan starts from, the tree a reported
// validation is of, and the tree the code is at for the approvals and the
// completion, with the files that changed since stale evidence. Outside
// git it leaves the action as it is: nothing is pinned there.
func pin(st *db.Store, a model.Action) (model.Action, error) {
	switch a.(type) {
	case model.PlanApprove, model.RunStart, model.Validate, model.ReviewFeature, model.ReviewFinal, model.RunComplete:
	default:
		return a, nil
	}
	if !worktrees.InGit(st) {
		return a, nil
	}
	s, err := st.Active()
	if err != nil || s == nil || s.Plan == nil {
		return a, err
	}
	switch act := a.(type) {
	// Where the code starts and what a report was of are recorded when git
	// can tell; when it cannot (a worktree being made or removed), the
	// action goes on unpinned rather than fail: its diff then says so.
	case model.PlanApprove:
		if s.Base == "" && act.Base == "" {
			act.Base, _ = worktrees.StartTree(st, s)
		}
		return act, nil
	case model.RunStart:
		if act.Base == "" {
			act.Base, _ = worktrees.StartTree(st, s)
		}
		return act, nil
	case model.Validate:
		if act.Tree == "" {
			act.Tree = worktrees.KeptTree(st, s, act.Feature)
		}
		return act, nil
	case model.ReviewFeature:
		if act.Decision == model.ReviewApproved {
			act.Pin, err = pinOf(st, s, act.Feature, false)
		}
		return act, err
	case model.ReviewFinal:
		if act.Decision == model.ReviewApproved && s.Execution.ActiveFeature != "" {
			act.Pin, err = pinOf(st, s, s.Execution.ActiveFeature, true)
		}
		return act, err
	case model.RunComplete:
		if act.Outcome == model.OutcomeCompleted {
			act.Pin, err = pinOf(st, s, act.Feature, false)
		}
		return act, err
	}
	return a, nil
}

// pinOf is the code state of feature id in s (one snapshot), with the
// files changed since the stale evidence that counts: its checks', then
// its latest broad evidence's (the last feature's completion takes both;
// finalOnly, the final review, only the broad).
func pinOf(st *db.Store, s *model.Session, id string, finalOnly bool) (model.Pin, error) {
	f := s.Plan.Feature(id)
	if f == nil || model.SharedCheckout(s) {
		return model.Pin{}, nil
	}
	tree, repo, err := worktrees.CodeTree(st, s, id)
	if err != nil || tree == "" {
		return model.Pin{}, err
	}
	p := model.Pin{Tree: tree}
	old := ""
	if !finalOnly {
		old = model.StaleTree(f, tree, false)
	}
	if old == "" {
		old = model.StaleTree(f, tree, true)
	}
	if old != "" {
		p.Changed, err = repo.Changed(old, tree)
	}
	return p, err
}

// CodeTrees are the trees the active features of s with pinned evidence
// have their code at now (none outside git, or in one shared checkout):
// what tells stale evidence from current (model.Checks).
func CodeTrees(st *db.Store, s *model.Session) (map[string]string, error) {
	if !model.Pinned(s) || model.SharedCheckout(s) || !worktrees.InGit(st) {
		return nil, nil
	}
	trees := map[string]string{}
	for _, c := range model.ActiveClaims(s) {
		// A worktree that is being made or removed right now (another
		// feature's completion) cannot be read: its feature shows as it
		// is stored, and status never fails for it.
		if tree, _, err := worktrees.CodeTree(st, s, c.Feature); err == nil {
			trees[c.Feature] = tree
		}
	}
	return trees, nil
}
