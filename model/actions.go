package model

import (
	"strings"
	"time"
)

// Context is what an action needs from outside the session: the clock and who
// acts. Passing it in keeps Decide pure and replay deterministic.
type Context struct {
	Now   time.Time
	Actor string
	// Via is where the call came from when it did not come from this
	// machine's own front-ends (e.g. "fleet@laptop"): recorded on the
	// events, "" otherwise. CheckVia holds it to its rule.
	Via string
}

// Action is one of the /flow-* actions. Decide turns it into events or a
// structured *Error; it never mutates the session.
type Action interface {
	// Name is the action's name as in "plan_apply"; used in logs and history.
	Name() string
	decide(s *Session, b *builder) error
}

type (
	// PlanStart creates a new planning session with the given id and goal.
	// With the active session's goal it changes nothing; with another goal
	// the caller archives the active session first (see Steps) and
	// names it in Replaces.
	PlanStart struct{ ID, Goal, Replaces string }
	// PlanApply replaces the session's plan.
	PlanApply struct{ Plan Plan }
	// PlanSelect narrows the plan to the given features.
	PlanSelect struct{ FeatureIDs []string }
	// PlanApprove approves the plan for execution. Git, when set by the
	// caller that found a git repository and a plan that wants worktrees,
	// is recorded as the session's git setup (the first approval's stays).
	// Base is the tree the code is at (Session.Base; the first stays).
	PlanApprove struct {
		Git  *GitSetup
		Base string
	}
	// RunStart starts (claims) Feature for Agent, or the first claimable
	// feature (ClaimOrder) when Feature is empty. Agent may be empty.
	// Base is the tree the feature's code starts from (Feature.Base).
	RunStart struct{ Feature, Agent, Base string }
	// Validate records validation evidence on the active feature.
	Validate struct {
		Feature string
		Status  ValidationStatus
		Scope   Scope
		Command string
		Summary string
		Source  EvidenceSource
		RunID   string
		Commit  string // the git commit the command ran against, if known
		Tree    string // the git tree the code was at, if known
	}
	// ReviewFeature records a reviewer's decision on the active feature.
	ReviewFeature struct {
		Feature  string
		Decision ReviewDecision
		Findings []string
		Pin      Pin // the code now: an approval of stale evidence is refused
	}
	// ReviewFinal records the final review of the session.
	ReviewFinal struct {
		Decision ReviewDecision
		Findings []string
		Pin      Pin // the code now (see ReviewFeature)
	}
	// RunComplete ends the active feature with a worker outcome.
	// MergeCommit is the integration branch's head after the caller merged
	// the feature's branch and MergeBase its head before, Head the feature
	// branch's commit that the merge takes (sessions using worktrees; see
	// CommitGate).
	RunComplete struct {
		Feature     string
		Outcome     Outcome
		Summary     string
		MergeCommit string
		MergeBase   string
		Head        string
		Pin         Pin // the code now: completion takes evidence of it only
	}
	// ResetFeature resets a feature and everything downstream of it.
	ResetFeature struct{ Feature string }
	// ResetSession archives the session; Reason is recorded on the event.
	// With no active session it changes nothing.
	ResetSession struct{ Reason string }
	// ActivateSession makes a stored session the active one again.
	ActivateSession struct{ ID string }
	// AddNote attaches a note to the session.
	AddNote struct{ Text string }
)

func (PlanStart) Name() string       { return "plan_start" }
func (PlanApply) Name() string       { return "plan_apply" }
func (PlanSelect) Name() string      { return "plan_select" }
func (PlanApprove) Name() string     { return "plan_approve" }
func (RunStart) Name() string        { return "run_start" }
func (Validate) Name() string        { return "validate" }
func (ReviewFeature) Name() string   { return "review_feature" }
func (ReviewFinal) Name() string     { return "review_final" }
func (RunComplete) Name() string     { return "run_complete" }
func (ResetFeature) Name() string    { return "reset_feature" }
func (ResetSession) Name() string    { return "reset_session" }
func (ActivateSession) Name() string { return "session_activate" }
func (AddNote) Name() string         { return "note" }

// Decide validates action a against session s (nil when there is no active
// session; for ActivateSession, the session to activate) and returns the
// events it causes. Some refusals still record an event (a rejected completion
// goes to history; a run start that finds nothing runnable blocks the
// session): then both events and an error are returned, and the events must
// be stored.
func Decide(s *Session, a Action, c Context) ([]Event, error) {
	b := &builder{ctx: c}
	if s != nil {
		b.session, b.seq = s.ID, s.Seq
	}
	if err := checkActionText(a); err != nil {
		return nil, sizeRecovery(s, a, err)
	}
	// Every event names its actor on one line of history, status and docs:
	// a name that could forge or swallow that line is refused here, behind
	// whichever front-end let it in.
	if c.Actor != "" {
		if err := CheckAgentName("actor", c.Actor); err != nil {
			return nil, err
		}
	}
	err := a.decide(s, b)
	return b.events, err
}

// Execute decides a against s and applies the resulting events. It returns the
// session the events were applied to: s itself, or a new session for
// PlanStart.
func Execute(s *Session, a Action, c Context) (*Session, []Event, error) {
	events, err := Decide(s, a, c)
	if len(events) == 0 {
		return s, nil, err
	}
	target := s
	if _, ok := a.(PlanStart); ok {
		target = &Session{}
	}
	for _, e := range events {
		if aerr := Apply(target, e); aerr != nil {
			return s, nil, aerr
		}
	}
	return target, events, err
}

// sizeRecovery gives an over-long action's refusal a next command that is
// accepted now: a plan apply where a plan can be applied, else what the
// session needs next (the hint says to shorten the text).
func sizeRecovery(s *Session, a Action, err error) error {
	e, ok := AsError(err)
	if !ok {
		return err
	}
	e.Recovery.NextAction = nil
	e.Recovery.NextCommand = NextCommand(s)
	if _, apply := a.(PlanApply); apply && inProgress(s) && s.Execution.ActiveFeature == "" {
		e.Recovery.NextCommand = "flowdeck flow plan apply FILE"
	}
	return e
}

type builder struct {
	ctx     Context
	session string
	seq     uint64
	events  []Event
}

func (b *builder) emit(e Event) *Event {
	b.seq++
	e.Seq, e.Session, e.At, e.Actor, e.Via = b.seq, b.session, b.ctx.Now.UTC(), b.ctx.Actor, b.ctx.Via
	b.events = append(b.events, e)
	return &b.events[len(b.events)-1]
}

const nextPlanStart = "flowdeck flow plan start GOAL"

func requireSession(s *Session) error {
	if s == nil {
		return refuse(CodeNoActiveSession, "no_session", "an active session",
			"Start a planning session, or activate a stored one (flowdeck flow history lists them).",
			nextPlanStart, "there is no active session")
	}
	return nil
}

func requireOpen(s *Session) error {
	if err := requireSession(s); err != nil {
		return err
	}
	if s.Status == StatusCompleted {
		hint, next := "The session is completed. Start a new one, or reset a feature to reopen it.", nextPlanStart
		if Landable(s) {
			hint, next = "The session is completed and its work waits on "+s.Git.Integration+
				": land it on your branch, start a new session, or reset a feature to reopen it.", nextLand
		}
		return refuse(CodeSessionCompleted, "completed", "a session that is not completed", hint,
			next, "session %s is completed", s.ID)
	}
	return nil
}

func requirePlan(s *Session) error {
	if s.Plan == nil {
		return refuse(CodeNoPlan, "planning", "a plan", "Apply a plan first.",
			"flowdeck flow plan apply FILE", "session %s has no plan yet", s.ID)
	}
	return nil
}

// requireApproved checks for an open session whose plan is approved.
func requireApproved(s *Session, hint string) error {
	if err := requireOpen(s); err != nil {
		return err
	}
	if err := requirePlan(s); err != nil {
		return err
	}
	if s.Approval != ApprovalApproved {
		return refuse(CodePlanNotApproved, string(s.Status), "an approved plan", hint, "",
			"the plan of session %s is not approved", s.ID).withAction("flow", "plan", "approve")
	}
	return nil
}

func requireFeature(s *Session, id string) (*Feature, error) {
	if err := requirePlan(s); err != nil {
		return nil, err
	}
	f := s.Plan.Feature(id)
	if f == nil {
		return nil, refuse(CodeUnknownFeature, string(s.Status), "a feature of the plan",
			"Use one of the plan's feature ids: "+strings.Join(featureIDs(s.Plan), ", "),
			"flowdeck flow status", "unknown feature %s", quoteID(id))
	}
	return f, nil
}

func requireActive(s *Session, id string) (*Feature, error) {
	if err := requireOpen(s); err != nil {
		return nil, err
	}
	f, err := requireFeature(s, id)
	if err != nil {
		return nil, err
	}
	if f.Status != FeatureInProgress { // in progress is active (several when max_parallel > 1)
		claims := ActiveClaims(s)
		// Hint the claim of f only when run start would take it now;
		// else what the session needs next.
		next := "flowdeck flow status"
		switch {
		case claimable(s, f, len(claims)):
			next = "flowdeck flow run start " + id
		case len(claims) == 0:
			next = NextCommand(s)
		}
		e := refuse(CodeFeatureNotActive, string(s.Status), "feature "+id+" is the active feature",
			"Evidence, reviews and completion apply to the active feature only.",
			next, "feature %s is not active", id)
		if len(claims) == 1 {
			e.Message += " (the active feature is " + s.Execution.ActiveFeature + ")"
		} else if len(claims) > 1 {
			e.Message += " (the active features are " + claimsText(claims) + ")"
		}
		return nil, e
	}
	return f, nil
}

// claimable reports whether run start would claim f now, with active
// features already claimed.
func claimable(s *Session, f *Feature, active int) bool {
	return s.Approval == ApprovalApproved && f.Status == FeaturePending && len(Waiting(s.Plan, *f)) == 0 &&
		active < s.MaxParallel()
}

func featureIDs(p *Plan) []string {
	ids := make([]string, len(p.Features))
	for i, f := range p.Features {
		ids[i] = f.ID
	}
	return ids
}

// invalidArg refuses an argument; field is its name (the MCP argument,
// the CLI flag without --).
// InvalidArgument is the invalid_argument refusal for field, for the
// packages that check arguments of their own (render's diagram format).
func InvalidArgument(field, msg string, args ...any) *Error { return invalidArg(field, msg, args...) }

func invalidArg(field, msg string, args ...any) *Error {
	e := refuse(CodeInvalidArgument, "", "valid arguments", "Check the command's arguments (flowdeck help flow).",
		"flowdeck help flow", msg, args...)
	e.Field = field
	return e
}

// ValidSessionID reports whether id can name a session (and its docs folder).
func ValidSessionID(id string) bool {
	return len(id) <= 100 && kebab(id)
}
