package ops

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/termtext"
	"github.com/flowdeck/flowdeck/worktrees"
)

// Refusal codes of flow land (the action codes are model's).
const (
	CodeNotLandable   = "session_not_completed"
	CodeNoIntegration = "no_integration_branch"
	CodeWorktreeDirty = "worktree_dirty"
	CodeLandConflict  = "land_conflict"
	CodeDetachedHEAD  = "detached_head"
	// CodeInTheWay: files the land would write over that git does not
	// track (untracked or ignored).
	CodeInTheWay       = "untracked_in_the_way"
	landForceCommand   = "flowdeck flow land --force"
	landStatusCommand  = "flowdeck flow status"
	landDefaultMessage = "flowdeck: land session %s (%s)"
)

// LandResult is what flow land did: the integration branch merged into the
// branch checked out in the project, and the landing recorded.
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
	// Events are what the landing stored (session_landed; none when it
	// was recorded before), NextCommand the session's next step after it.
	Events      []EventView `json:"events,omitempty"`
	NextCommand string      `json:"next_command,omitempty"`
	// Warning says that git landed but the landing was not recorded, or
	// that a merge a crashed completion left was taken back first.
	Warning string         `json:"warning,omitempty"`
	State   *model.Session `json:"-"` // the session after the landing, for Go callers
}

func (r *LandResult) Refusal() *model.Error { return r.Error }

// Done says what an accepted land did, in one line: what the CLI prints
// and the cockpit notes.
func (r *LandResult) Done() string {
	switch {
	case r.UpToDate:
		return fmt.Sprintf("%s already has everything in %s", r.Branch, r.Integration)
	case r.FastForward:
		return fmt.Sprintf("%s fast-forwarded to %s (%s)", r.Branch, r.Integration, model.ShortCommit(r.Commit))
	}
	return fmt.Sprintf("%s merged into %s (%s)", r.Integration, r.Branch, model.ShortCommit(r.Commit))
}

func landRefusal(code, prerequisite, hint, next, msg string, args ...any) *LandResult {
	return &LandResult{Error: &model.Error{Code: code, Message: fmt.Sprintf(msg, args...),
		Recovery: model.Recovery{Prerequisite: prerequisite, Hint: hint, NextCommand: next}}}
}

// LandRequest is a flow land: Force lands a session that is not completed;
// Seen is the session sequence the caller decided on (0: no guard), as an
// action's expect_seq; Actor and Now are who lands and when, for the record,
// and Via where the call came from (model.Context.Via).
type LandRequest struct {
	Force bool
	Seen  uint64
	Actor string
	Via   string
	Now   time.Time
}

// LandGate is flow land's refusal of active session s before any git work
// (nil: land may go on): no session, a session whose features did not run
// in worktrees, a session not completed unless forced. The cockpit asks it
// before it offers to land, so that both refuse alike.
func LandGate(s *model.Session, force bool) *model.Error {
	var r *LandResult
	switch {
	case s == nil:
		r = landRefusal(model.CodeNoActiveSession, "an active session", "There is nothing to land.",
			"flowdeck flow history", "there is no active session")
	case !s.UsesWorktrees():
		r = landRefusal(CodeNoIntegration, "a session whose features ran in worktrees",
			"Its features were worked in the project's own checkout: there is no branch to land.",
			landStatusCommand, "session %s has no integration branch", s.ID)
	case s.Status != model.StatusCompleted && !force:
		r = landRefusal(CodeNotLandable, "a completed session",
			"Land merges what the session delivered once it is complete; --force lands what is merged so far.",
			landForceCommand, "session %s is %s, not completed", s.ID, s.Status)
	default:
		return nil
	}
	return r.Error
}

// Land merges the active session's integration branch into the branch
// checked out in the project (a fast-forward when possible) and records
// the landing (session_landed), so that the session's next step and status
// say it landed. It is refused unless the session is completed (force
// lands a session still running), on a tree with changes to tracked files,
// and on a conflict, which it leaves to the person: nothing is changed then.
func Land(st *db.Store, r LandRequest) (*LandResult, error) {
	var s *model.Session
	if st != nil {
		var err error
		if s, err = st.Active(); err != nil {
			return nil, err
		}
	}
	if e := LandGate(s, r.Force); e != nil {
		return &LandResult{Error: e}, nil
	}
	unlock, settled, err := worktrees.Lock(st)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Read again under the lock: a merge or a reset may have moved the
	// session since, and a caller who decided on an older state is told.
	if s, err = st.Active(); err != nil {
		return nil, err
	}
	if e := LandGate(s, r.Force); e != nil {
		return &LandResult{Error: e}, nil
	}
	if e, err := landStale(st, s, r.Seen); e != nil || err != nil {
		if err != nil {
			return nil, err
		}
		return &LandResult{Error: e}, nil
	}
	// The branch's name is derived from the session's id, not read from
	// the database.
	n, err := model.GitNamesOf(s, "")
	if err != nil {
		return nil, err
	}
	integ := n.Integration
	repo, err := gitwork.Open(worktrees.ProjectRoot(st))
	if err != nil {
		return nil, err
	}
	// A missing branch is not made again here: made at the base commit it
	// would land nothing, and say so, while the session's merges are lost.
	if h, err := repo.BranchHead(integ); err != nil {
		return nil, err
	} else if h == "" {
		return landRefusal(CodeNoIntegration, "the session's integration branch",
			"Nothing was merged into it yet, or it was deleted: restore a deleted one (git reflog), then land again.",
			landStatusCommand, "the integration branch %s of session %s does not exist", integ, s.ID), nil
	}
	flow, err := repo.FlowPath(worktrees.ProjectRoot(st))
	if err != nil {
		return nil, err
	}
	res, err := repo.Land(integ, fmt.Sprintf(landDefaultMessage, s.ID, termtext.Line(s.Goal)), flow)
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
	if len(res.Protected) > 0 {
		return landRefusal(model.CodeProtectedPaths, "a session that changes the project's code only",
			"Nothing was changed. These files are flowdeck's own (.flow) or ones your checkout ignores: landing would put the agents' over yours. "+
				"Take them out of "+integ+" (reset the feature that added them, or commit their removal onto the branch by hand), then land again.",
			landStatusCommand, "landing %s into %s would change what is not the project's code: %s",
			integ, res.Branch, model.NamedPaths(res.Protected)), nil
	}
	if len(res.InTheWay) > 0 {
		return landRefusal(CodeInTheWay, "no untracked files where the session's files land",
			"Nothing was changed. Move those files aside (or delete them if they are not yours to keep), then land again.",
			"flowdeck flow land", "landing %s into %s would overwrite files git does not track: %s",
			integ, res.Branch, model.NamedPaths(res.InTheWay)), nil
	}
	out := &LandResult{OK: len(res.Conflicts) == 0, Session: s.ID, Integration: integ, Branch: res.Branch,
		Commit: res.Commit, FastForward: res.FastForward, UpToDate: res.UpToDate, Conflicts: model.CapFiles(res.Conflicts)}
	if len(res.Conflicts) > 0 {
		out.Error = &model.Error{Code: CodeLandConflict, // names from git: quoted, controls and all
			Message: fmt.Sprintf("merging %s into %s conflicts on %s", integ, res.Branch, model.QuotedFiles(out.Conflicts)),
			Recovery: model.Recovery{Prerequisite: "a branch that merges cleanly",
				Hint:        "Nothing was changed. Merge it yourself and resolve the conflicts: git merge " + integ,
				NextCommand: "git merge " + integ}}
		return out, nil
	}
	recordLanding(st, out, r)
	if settled != "" {
		out.Warning = strings.TrimPrefix(out.Warning+"; "+settled, "; ")
	}
	return out, nil
}

// landStale is the stale_decision refusal of a land decided on the session
// as of seen, when what it would land changed since (a merge, a reset,
// another landing).
func landStale(st *db.Store, s *model.Session, seen uint64) (*model.Error, error) {
	if seen == 0 || s.Seq <= seen {
		return nil, nil
	}
	since, err := st.Events(s.ID, seen+1, 0)
	if err != nil {
		return nil, err
	}
	return model.Stale(model.Land{}, seen, since), nil
}

// recordLanding stores what git did as the session's landing, in one
// transaction like any action. Git has moved the branch by then: a failure
// to record is a warning on the result, not a refusal of what happened.
func recordLanding(st *db.Store, out *LandResult, r LandRequest) {
	o, err := st.DoBy(model.Land{Branch: out.Branch, Commit: out.Commit}, 0, model.Context{Actor: r.Actor, Now: r.Now, Via: r.Via})
	if o != nil {
		out.State = o.Session
		out.Events = ViewEvents(o.Events, out.Session)
		out.NextCommand = model.NextCommand(o.Session)
	}
	if err != nil {
		out.Warning = "the landing was not recorded: " + err.Error()
	}
}

// LandTarget is the branch land would merge into: the one checked out in
// the project ("" when HEAD is detached, which land refuses). The cockpit
// names it before the person decides.
func LandTarget(st *db.Store) (string, error) {
	if st == nil || !worktrees.InGit(st) {
		return "", nil
	}
	repo, err := gitwork.Open(worktrees.ProjectRoot(st))
	if err != nil {
		return "", err
	}
	branch, _, err := repo.CurrentBranch()
	return branch, err
}
