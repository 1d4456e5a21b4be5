package ops

import (
	"errors"
	"fmt"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/termtext"
	"github.com/flowdeck/flowdeck/worktrees"
)

// Refusal codes of flow land (the action codes are model's).
const (
	CodeNotLandable    = "session_not_completed"
	CodeNoIntegration  = "no_integration_branch"
	CodeWorktreeDirty  = "worktree_dirty"
	CodeLandConflict   = "land_conflict"
	CodeDetachedHEAD   = "detached_head"
	landForceCommand   = "flowdeck flow land --force"
	landStatusCommand  = "flowdeck flow status"
	landDefaultMessage = "flowdeck: land session %s (%s)"
)

// LandResult is what flow land did: the integration branch merged into the
// branch checked out in the project.
type LandResult struct {
	OK          bool         `json:"ok"`
	Error       *model.Error `json:"error,omitempty"`
	Session     string       `json:"session,omitempty"`
	Integration string       `json:"integration,omitempty"`
	Branch      string       `json:"branch,omitempty"`
	Commit      string       `json:"commit,omitempty"`
	FastForward bool         `json:"fast_forward,omitempty"`
	UpToDate    bool         `json:"up_to_date,omitempty"`
	Conflicts   []string     `json:"conflicts,omitempty"`
}

func (r *LandResult) Refusal() *model.Error { return r.Error }

func landRefusal(code, prerequisite, hint, next, msg string, args ...any) *LandResult {
	return &LandResult{Error: &model.Error{Code: code, Message: fmt.Sprintf(msg, args...),
		Recovery: model.Recovery{Prerequisite: prerequisite, Hint: hint, NextCommand: next}}}
}

// Land merges the active session's integration branch into the branch
// checked out in the project (a fast-forward when possible). It is refused
// unless the session is completed (force lands a session still running), on
// a tree with changes to tracked files, and on a conflict, which it leaves
// to the person: nothing is changed then.
func Land(st *db.Store, force bool) (*LandResult, error) {
	var s *model.Session
	if st != nil {
		var err error
		if s, err = st.Active(); err != nil {
			return nil, err
		}
	}
	switch {
	case s == nil:
		return landRefusal(model.CodeNoActiveSession, "an active session", "There is nothing to land.",
			"flowdeck flow history", "there is no active session"), nil
	case !s.UsesWorktrees():
		return landRefusal(CodeNoIntegration, "a session whose features ran in worktrees",
			"Its features were worked in the project's own checkout: there is no branch to land.",
			landStatusCommand, "session %s has no integration branch", s.ID), nil
	case s.Status != model.StatusCompleted && !force:
		return landRefusal(CodeNotLandable, "a completed session",
			"Land merges what the session delivered once it is complete; --force lands what is merged so far.",
			landForceCommand, "session %s is %s, not completed", s.ID, s.Status), nil
	}
	unlock, err := worktrees.Lock(st)
	if err != nil {
		return nil, err
	}
	defer unlock()
	repo, err := gitwork.Open(worktrees.ProjectRoot(st))
	if err != nil {
		return nil, err
	}
	// A missing branch is not made again here: made at the base commit it
	// would land nothing, and say so, while the session's merges are lost.
	if h, err := repo.BranchHead(s.Git.Integration); err != nil {
		return nil, err
	} else if h == "" {
		return landRefusal(CodeNoIntegration, "the session's integration branch",
			"Nothing was merged into it yet, or it was deleted: restore a deleted one (git reflog), then land again.",
			landStatusCommand, "the integration branch %s of session %s does not exist", s.Git.Integration, s.ID), nil
	}
	res, err := repo.Land(s.Git.Integration, fmt.Sprintf(landDefaultMessage, s.ID, termtext.Line(s.Goal)))
	switch {
	case errors.Is(err, gitwork.ErrDirty):
		return landRefusal(CodeWorktreeDirty, "no uncommitted changes to tracked files",
			"Commit or stash your changes, then land again.", "flowdeck flow land", "%v", err), nil
	case errors.Is(err, gitwork.ErrDetached):
		return landRefusal(CodeDetachedHEAD, "a branch checked out",
			"Check out the branch the session's work should land on, then land again.", "flowdeck flow land", "%v", err), nil
	case err != nil:
		return nil, err
	}
	out := &LandResult{OK: len(res.Conflicts) == 0, Session: s.ID, Integration: s.Git.Integration, Branch: res.Branch,
		Commit: res.Commit, FastForward: res.FastForward, UpToDate: res.UpToDate, Conflicts: model.CapFiles(res.Conflicts)}
	if len(res.Conflicts) > 0 {
		out.Error = &model.Error{Code: CodeLandConflict, // names from git: quoted, controls and all
			Message: fmt.Sprintf("merging %s into %s conflicts on %s", s.Git.Integration, res.Branch, model.QuotedFiles(out.Conflicts)),
			Recovery: model.Recovery{Prerequisite: "a branch that merges cleanly",
				Hint:        "Nothing was changed. Merge it yourself and resolve the conflicts: git merge " + s.Git.Integration,
				NextCommand: "git merge " + s.Git.Integration}}
	}
	return out, nil
}
