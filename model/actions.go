package model

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Context is what an action needs from outside the session: the clock and who
// acts. Passing it in keeps Decide pure and replay deterministic.
type Context struct {
	Now   time.Time
	Actor string
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
	// PlanApprove approves the plan for execution.
	PlanApprove struct{}
	// RunStart starts (claims) Feature for Agent, or the first claimable
	// feature (ClaimOrder) when Feature is empty. Agent may be empty.
	RunStart struct{ Feature, Agent string }
	// Validate records validation evidence on the active feature.
	Validate struct {
		Feature string
		Status  ValidationStatus
		Scope   Scope
		Command string
		Summary string
		Source  EvidenceSource
		RunID   string
	}
	// ReviewFeature records a reviewer's decision on the active feature.
	ReviewFeature struct {
		Feature  string
		Decision ReviewDecision
		Findings []string
	}
	// ReviewFinal records the final review of the session.
	ReviewFinal struct {
		Decision ReviewDecision
		Findings []string
	}
	// RunComplete ends the active feature with a worker outcome.
	RunComplete struct {
		Feature string
		Outcome Outcome
		Summary string
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
		return nil, err
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

type builder struct {
	ctx     Context
	session string
	seq     uint64
	events  []Event
}

func (b *builder) emit(e Event) *Event {
	b.seq++
	e.Seq, e.Session, e.At, e.Actor = b.seq, b.session, b.ctx.Now.UTC(), b.ctx.Actor
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
		return refuse(CodeSessionCompleted, "completed", "a session that is not completed",
			"The session is completed. Start a new one, or reset a feature to reopen it.",
			nextPlanStart, "session %s is completed", s.ID)
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
		e := refuse(CodeFeatureNotActive, string(s.Status), "feature "+id+" is the active feature",
			"Evidence, reviews and completion apply to the active feature only.",
			"flowdeck flow run start "+id, "feature %s is not active", id)
		if claims := ActiveClaims(s); len(claims) == 1 {
			e.Message += " (the active feature is " + s.Execution.ActiveFeature + ")"
			e.Recovery.NextCommand = "flowdeck flow status"
		} else if len(claims) > 1 {
			e.Message += " (the active features are " + claimsText(claims) + ")"
			e.Recovery.NextCommand = "flowdeck flow status"
		}
		return nil, e
	}
	return f, nil
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

func (a PlanStart) decide(s *Session, b *builder) error {
	if inProgress(s) && SameGoal(s.Goal, a.Goal) {
		return nil // Flow's habit: the same goal again continues the session
	}
	if inProgress(s) {
		return refuse(CodeSessionAlreadyActive, string(s.Status), "no session in progress",
			"Session "+s.ID+" is still in progress. Archive it first (it stays in history), or finish it.",
			"flowdeck flow reset session", "session %s is active (%s)", s.ID, s.Goal).withAction("flow", "reset", "session")
	}
	goal := strings.TrimSpace(a.Goal)
	if goal == "" {
		return invalidArg("goal", "the goal is empty")
	}
	if !ValidSessionID(a.ID) {
		return refuse(CodeInvalidSessionID, "", "a valid session id", "Session ids are kebab-case.",
			nextPlanStart, "invalid session id %s", quoteID(a.ID))
	}
	b.session, b.seq = a.ID, 0
	e := Event{Type: EventSessionStarted, Goal: goal}
	if a.Replaces != "" {
		e.Summary = "replaces session " + a.Replaces + ", archived"
	}
	b.emit(e)
	return nil
}

func (a PlanApply) decide(s *Session, b *builder) error {
	if err := requireOpen(s); err != nil {
		return err
	}
	if s.Execution.ActiveFeature != "" {
		return refuse(CodePlanNotEditable, string(s.Status), "no active feature",
			"Finish or reset the active feature before replacing the plan.",
			"flowdeck flow reset feature "+s.Execution.ActiveFeature,
			"feature %s is in progress", s.Execution.ActiveFeature)
	}
	if err := ValidatePlan(&a.Plan); err != nil {
		return err
	}
	if a.Plan.Completion.MinCompletedFeatures < 0 {
		return refuse(CodePlanInvalid, "planning", "a non-negative completion.min_completed_features",
			"Leave min_completed_features out to require every feature.",
			"flowdeck flow plan apply FILE", "completion.min_completed_features is negative")
	}
	if m := a.Plan.MaxParallel; m < 0 || m > MaxParallelLimit {
		return refuse(CodePlanInvalid, "planning", fmt.Sprintf("max_parallel between 1 and %d", MaxParallelLimit),
			"Leave max_parallel out (or 1) for one active feature at a time.",
			"flowdeck flow plan apply FILE", "max_parallel is %d; it must be between 1 and %d", m, MaxParallelLimit)
	}
	plan := normalizePlan(a.Plan)
	b.emit(Event{Type: EventPlanApplied, Plan: &plan})
	return nil
}

// normalizePlan copies p with every feature reset to pending and no execution
// data, so that the stored event is exactly what Apply installs.
func normalizePlan(p Plan) Plan {
	out := p
	out.Requirements = slices.Clone(p.Requirements)
	out.Decisions = slices.Clone(p.Decisions)
	out.Features = make([]Feature, len(p.Features))
	for i, f := range p.Features {
		title := strings.TrimSpace(f.Title)
		if title == "" {
			title = f.ID
		}
		out.Features[i] = Feature{
			ID: f.ID, Title: title, Summary: f.Summary,
			Files:        slices.Clone(f.Files),
			Verification: slices.Clone(f.Verification),
			DependsOn:    slices.Clone(f.DependsOn),
			BlockedBy:    slices.Clone(f.BlockedBy),
			Status:       FeaturePending,
		}
	}
	return out
}

func (a PlanSelect) decide(s *Session, b *builder) error {
	if err := requireOpen(s); err != nil {
		return err
	}
	if err := requirePlan(s); err != nil {
		return err
	}
	if s.Status != StatusPlanning || s.Execution.ActiveFeature != "" {
		return refuse(CodePlanNotEditable, string(s.Status), "a session in planning with no active feature",
			"The plan can be narrowed only while planning. A replan_required outcome or a new plan returns the session to planning.",
			"flowdeck flow status", "session %s is %s; the plan can be narrowed only while planning", s.ID, s.Status)
	}
	if len(a.FeatureIDs) == 0 {
		return invalidArg("feature_ids", "select needs at least one feature id")
	}
	keep := map[string]bool{}
	for _, id := range a.FeatureIDs {
		if _, err := requireFeature(s, id); err != nil {
			return err
		}
		keep[id] = true
	}
	var missing []string
	var kept []string
	for _, f := range s.Plan.Features {
		if !keep[f.ID] {
			continue
		}
		kept = append(kept, f.ID)
		for _, d := range edges(f) {
			if !keep[d] {
				missing = append(missing, f.ID+" needs "+d)
			}
		}
	}
	if len(missing) > 0 {
		return refuse(CodeSelectionMissingDep, "planning", "a selection closed under dependencies",
			"Add the missing dependencies to the selection.",
			"flowdeck flow plan select "+strings.Join(kept, " ")+" ...",
			"the selection leaves out dependencies: %s", strings.Join(missing, ", "))
	}
	b.emit(Event{Type: EventPlanSelected, FeatureIDs: kept})
	return nil
}

func (PlanApprove) decide(s *Session, b *builder) error {
	if err := requireOpen(s); err != nil {
		return err
	}
	if err := requirePlan(s); err != nil {
		return err
	}
	if s.Approval == ApprovalApproved || s.Status != StatusPlanning {
		return refuse(CodePlanAlreadyApproved, string(s.Status), "a plan awaiting approval",
			"The plan is already approved; execution has its own commands.",
			NextCommand(s), "the plan of session %s is already approved", s.ID)
	}
	b.emit(Event{Type: EventPlanApproved})
	return nil
}

func (a RunStart) decide(s *Session, b *builder) error {
	if err := requireApproved(s, "Review the plan, then approve it."); err != nil {
		return err
	}
	limit := s.MaxParallel()
	if act := s.Execution.ActiveFeature; act != "" && limit == 1 {
		return refuse(CodeFeatureAlreadyActive, string(s.Status), "no active feature",
			"Finish the active feature first: validate, review, then complete it.",
			NextCommand(s), "feature %s is already active", act)
	}
	if a.Agent != "" && !ValidAgentName(a.Agent) {
		return invalidArg("agent", "agent name %s is not letters, digits, '.', '_' and '-' (at most %d)", quoteID(a.Agent), MaxAgentNameLen)
	}
	var f *Feature
	if a.Feature != "" {
		var err error
		if f, err = requireFeature(s, a.Feature); err != nil {
			return err
		}
	}
	if err := checkCapacity(s, f, limit); err != nil {
		return err
	}
	if s.Plan.CompletedCount() >= s.Plan.Required() {
		b.emit(Event{Type: EventSessionCompleted, Summary: "every required feature is completed"})
		return nil
	}
	if f != nil {
		switch {
		case f.Status == FeatureCompleted:
			return refuse(CodeFeatureNotRunnable, string(s.Status), "a feature that is not completed",
				"Reset the feature to run it again.", "", "feature %s is already completed", f.ID).
				withAction("flow", "reset", "feature", f.ID)
		case f.Status == FeatureBlocked:
			return refuse(CodeFeatureNotRunnable, string(s.Status), "a feature that is not blocked",
				"Reset the feature once what blocked it is resolved.", "", "feature %s is blocked", f.ID).
				withAction("flow", "reset", "feature", f.ID)
		}
		if waiting := Waiting(s.Plan, *f); len(waiting) > 0 {
			return refuse(CodeFeatureNotRunnable, string(s.Status), "completed dependencies and blockers",
				"Complete what it waits for first.", "flowdeck flow run start",
				"feature %s waits for %s", f.ID, strings.Join(waiting, ", "))
		}
		b.emit(Event{Type: EventFeatureStarted, Feature: f.ID, Agent: a.Agent})
		return nil
	}
	if order := ClaimOrder(s); len(order) > 0 {
		b.emit(Event{Type: EventFeatureStarted, Feature: order[0], Agent: a.Agent})
		return nil
	}
	why := BlockReasons(s.Plan)
	if claims := ActiveClaims(s); len(claims) > 0 {
		// Others are at work: nothing is claimable yet, but the session is
		// not blocked, so no session_blocked event.
		return refuse(CodeNoRunnableFeature, string(s.Status), "a feature whose dependencies and blockers are completed",
			"Wait for the active features to complete: "+claimsText(claims)+".", NextCommand(s),
			"no feature is claimable while %s %s active: %s", claimsText(claims), isAre(len(claims)), why)
	}
	if s.Status != StatusBlocked {
		b.emit(Event{Type: EventSessionBlocked, Summary: "no runnable feature: " + why})
	}
	next := "flowdeck flow status"
	if blocked := firstBlocked(s.Plan); blocked != "" {
		next = "flowdeck flow reset feature " + blocked
	}
	return refuse(CodeNoRunnableFeature, string(StatusBlocked), "a feature whose dependencies and blockers are completed",
		"Resolve what blocks the features, then reset the blocked ones.", next,
		"no feature is runnable: %s", why)
}

// checkCapacity refuses a claim of f (nil: the next claimable one) when f is
// already active or max_parallel features are.
func checkCapacity(s *Session, f *Feature, limit int) error {
	if f != nil && f.Status == FeatureInProgress {
		who := ""
		if f.Agent != "" {
			who = " by agent " + f.Agent
		}
		return refuse(CodeFeatureAlreadyActive, string(s.Status), "a feature that is not active",
			"Work on it, or claim another feature.", nextForActive(s, f.ID),
			"feature %s is already active%s", f.ID, who)
	}
	claims := ActiveClaims(s)
	if len(claims) < limit {
		return nil
	}
	return refuse(CodeMaxParallelReached, string(s.Status), fmt.Sprintf("fewer than %d active features", limit),
		fmt.Sprintf("The plan allows %d active features at once: finish, block or reset one of them first.", limit),
		NextCommand(s), "%d features are active (%s): max_parallel is %d", len(claims), claimsText(claims), limit)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// BlockReasons says, for every feature that is neither completed nor active,
// what keeps it from running.
func BlockReasons(p *Plan) string {
	var parts []string
	for _, f := range p.Features {
		switch f.Status {
		case FeatureBlocked:
			parts = append(parts, f.ID+" is blocked")
		case FeaturePending:
			if w := Waiting(p, f); len(w) > 0 {
				parts = append(parts, f.ID+" waits for "+strings.Join(w, ", "))
			}
		}
	}
	return strings.Join(parts, "; ")
}

func firstBlocked(p *Plan) string {
	for _, f := range p.Features {
		if f.Status == FeatureBlocked {
			return f.ID
		}
	}
	return ""
}

func (a Validate) decide(s *Session, b *builder) error {
	if _, err := requireActive(s, a.Feature); err != nil {
		return err
	}
	switch a.Status {
	case ValidationPassed, ValidationFailed, ValidationPartial:
	default:
		return invalidArg("status", "validation status %s is not passed, failed or partial", quoteID(string(a.Status)))
	}
	if err := checkScope(a.Scope); err != nil {
		return err
	}
	if strings.TrimSpace(a.Command) == "" {
		return invalidArg("command", "validation needs the command that was run")
	}
	src := a.Source
	if src == "" {
		src = SourceReported
	}
	if src != SourceReported && src != SourceObserved {
		return invalidArg("source", "evidence source %s is not reported or observed", quoteID(string(src)))
	}
	e := b.emit(Event{Type: EventValidationRecorded, Feature: a.Feature})
	e.Evidence = &Evidence{
		Seq: e.Seq, At: e.At, Actor: e.Actor, Feature: a.Feature, Status: a.Status, Scope: a.Scope,
		Command: a.Command, Summary: a.Summary, Source: src, RunID: a.RunID,
	}
	return nil
}

func checkScope(s Scope) error {
	if s != ScopeTargeted && s != ScopeBroad {
		return invalidArg("scope", "scope %s is not targeted or broad", quoteID(string(s)))
	}
	return nil
}

func checkDecision(d ReviewDecision) error {
	switch d {
	case ReviewApproved, ReviewNeedsFix, ReviewBlocked:
		return nil
	}
	return invalidArg("decision", "review decision %s is not approved, needs_fix or blocked", quoteID(string(d)))
}

func (a ReviewFeature) decide(s *Session, b *builder) error {
	if _, err := requireActive(s, a.Feature); err != nil {
		return err
	}
	if err := checkDecision(a.Decision); err != nil {
		return err
	}
	e := b.emit(Event{Type: EventReviewRecorded, Feature: a.Feature})
	e.Review = &Review{Seq: e.Seq, At: e.At, Actor: e.Actor, Feature: a.Feature, Decision: a.Decision, Findings: cleanList(a.Findings)}
	return nil
}

func (a ReviewFinal) decide(s *Session, b *builder) error {
	if err := requireApproved(s, "The final review comes after execution; approve the plan first."); err != nil {
		return err
	}
	if err := checkDecision(a.Decision); err != nil {
		return err
	}
	e := b.emit(Event{Type: EventReviewRecorded})
	e.Review = &Review{Seq: e.Seq, At: e.At, Actor: e.Actor, Final: true, Decision: a.Decision, Findings: cleanList(a.Findings)}
	return nil
}

func cleanList(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (a RunComplete) decide(s *Session, b *builder) error {
	f, err := requireActive(s, a.Feature)
	if err != nil {
		return err
	}
	switch a.Outcome {
	case OutcomeCompleted:
		if gerr := CompletionGate(s, f); gerr != nil {
			b.emit(Event{Type: EventCompletionRejected, Feature: f.ID, Code: gerr.Code, Summary: gerr.Message})
			return gerr
		}
		b.emit(Event{Type: EventFeatureCompleted, Feature: f.ID, Outcome: a.Outcome, Summary: a.Summary})
		if s.Plan.CompletedCount()+1 >= s.Plan.Required() {
			b.emit(Event{Type: EventSessionCompleted, Summary: "every required feature is completed"})
		}
	case OutcomeReplanRequired:
		b.emit(Event{Type: EventReplanRequired, Feature: f.ID, Outcome: a.Outcome, Summary: a.Summary})
	case OutcomeBlocked, OutcomeNeedsInput:
		b.emit(Event{Type: EventFeatureBlocked, Feature: f.ID, Outcome: a.Outcome, Summary: a.Summary})
	default:
		return invalidArg("outcome", "outcome %s is not completed, replan_required, blocked or needs_input", quoteID(string(a.Outcome)))
	}
	return nil
}

// CompletionGate returns the first gate that keeps the active feature f from
// completing, or nil. The order of the gates is part of the contract.
func CompletionGate(s *Session, f *Feature) *Error {
	st := string(s.Status)
	since := evidenceSince(f.Validations, f.StartedSeq, "")
	// validate names the command that records evidence: the feature's own
	// verification run through flowdeck (observed evidence, and executable
	// right now), or a report when the plan gave no verification command.
	validate := func(e *Error, scope Scope) *Error {
		if len(f.Verification) == 0 {
			e.Recovery.NextCommand = fmt.Sprintf("flowdeck flow validate %s --status passed --scope %s --command CMD", f.ID, scope)
			return e
		}
		// The verification is shell text: the argv runs it with sh -c (or as
		// its words, when no word needs a shell), and next_command is that
		// argv quoted, so both say the same.
		argv := []string{"run", "--feature", f.ID, "--scope", string(scope), "--"}
		if words, ok := plainWords(f.Verification[0]); ok {
			return e.withAction(append(argv, words...)...)
		}
		return e.withAction(append(argv, "sh", "-c", f.Verification[0])...)
	}
	if len(since) == 0 {
		return validate(refuse(CodeMissingValidation, st, "validation evidence recorded since the feature started",
			verifyHint(f), "", "feature %s has no validation evidence since it started", f.ID), ScopeTargeted)
	}
	latest := since[len(since)-1]
	if latest.Status != ValidationPassed {
		return validate(refuse(CodeFailingValidation, st, "passing validation evidence",
			"Fix what failed, then validate again: "+latest.Command, "",
			"the latest validation of feature %s %s: %s", f.ID, latest.Status, latest.Command), latest.Scope)
	}
	review := lastReviewAfter(f.Reviews, latest.Seq)
	reviewCmd := "flowdeck flow review " + f.ID + " --decision approved|needs_fix|blocked"
	if review == nil {
		return refuse(CodeMissingFeatureReview, st, "a feature review recorded after the latest validation",
			"A reviewer must look at the validated change.", reviewCmd,
			"feature %s has no review since its latest validation", f.ID)
	}
	if review.Decision != ReviewApproved {
		return validate(refuse(CodeFailingFeatureReview, st, "an approved feature review",
			"Address the findings, validate again and ask for a new review."+findingsText(review.Findings),
			"", "the review of feature %s is %s", f.ID, review.Decision), latest.Scope)
	}
	if s.Plan.CompletedCount()+1 < s.Plan.Required() {
		return nil
	}
	broad := evidenceSince(f.Validations, f.StartedSeq, ScopeBroad)
	if len(broad) == 0 || broad[len(broad)-1].Status != ValidationPassed {
		return validate(refuse(CodeMissingBroadValidation, st, "passing broad validation since the feature started",
			"This is the last feature: run the whole test suite and record it with --scope broad.",
			"", "feature %s completes the session but has no passing broad validation", f.ID), ScopeBroad)
	}
	final := lastReviewAfter(s.Execution.FinalReviews, broad[len(broad)-1].Seq)
	finalCmd := "flowdeck flow review --final --decision approved|needs_fix|blocked"
	if final == nil {
		return refuse(CodeMissingFinalReview, st, "a final review after the latest broad validation",
			"The session's final review must follow its broad validation.", finalCmd,
			"session %s has no final review since its latest broad validation", s.ID)
	}
	if final.Decision != ReviewApproved {
		return validate(refuse(CodeFailingFinalReview, st, "an approved final review",
			"Address the final review's findings, validate broadly again and ask for a new final review."+findingsText(final.Findings),
			"", "the final review of session %s is %s", s.ID, final.Decision), ScopeBroad)
	}
	return nil
}

func verifyHint(f *Feature) string {
	if len(f.Verification) == 0 {
		return "Run the feature's tests and record the result."
	}
	return "Run the feature's verification and record the result: " + strings.Join(f.Verification, "; ")
}

func findingsText(findings []string) string {
	if len(findings) == 0 {
		return ""
	}
	return " Findings: " + strings.Join(findings, "; ")
}

// evidenceSince returns the evidence recorded after seq, of the given scope
// (any scope when empty), oldest first.
func evidenceSince(all []Evidence, seq uint64, scope Scope) []Evidence {
	var out []Evidence
	for _, e := range all {
		if e.Seq > seq && (scope == "" || e.Scope == scope) {
			out = append(out, e)
		}
	}
	return out
}

// lastReviewAfter returns the latest review when it was recorded after seq.
func lastReviewAfter(reviews []Review, seq uint64) *Review {
	if n := len(reviews); n > 0 && reviews[n-1].Seq > seq {
		return &reviews[n-1]
	}
	return nil
}

func (a ResetFeature) decide(s *Session, b *builder) error {
	if err := requireSession(s); err != nil {
		return err
	}
	if _, err := requireFeature(s, a.Feature); err != nil {
		return err
	}
	ids := append([]string{a.Feature}, Downstream(s.Plan.Features, a.Feature)...)
	b.emit(Event{Type: EventFeaturesReset, Feature: a.Feature, FeatureIDs: ids})
	return nil
}

func (a ResetSession) decide(s *Session, b *builder) error {
	if s == nil {
		return nil // nothing to reset is not an error (Flow's habit)
	}
	b.emit(Event{Type: EventSessionArchived, Summary: a.Reason})
	return nil
}

func (a ActivateSession) decide(s *Session, b *builder) error {
	if !ValidSessionID(a.ID) {
		return refuse(CodeInvalidSessionID, "", "a valid session id", "Session ids are kebab-case; flowdeck flow history lists them.",
			"flowdeck flow history", "invalid session id %s", quoteID(a.ID))
	}
	if s == nil || s.ID != a.ID {
		return refuse(CodeUnknownSession, "", "a stored session", "flowdeck flow history lists the stored sessions.",
			"flowdeck flow history", "no session %s", a.ID)
	}
	b.emit(Event{Type: EventSessionActivated})
	return nil
}

func (a AddNote) decide(s *Session, b *builder) error {
	if err := requireSession(s); err != nil {
		return err
	}
	text := strings.TrimSpace(a.Text)
	if text == "" {
		return invalidArg("text", "the note is empty")
	}
	b.emit(Event{Type: EventNoteAdded, Text: text})
	return nil
}
