package model

import (
	"fmt"
	"strings"
)

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
	if a.Commit != "" && !isObjectID(a.Commit) {
		return invalidArg("commit", "commit %s is not a git object id", quoteID(a.Commit))
	}
	if err := checkTree("tree", a.Tree); err != nil {
		return err
	}
	e := b.emit(Event{Type: EventValidationRecorded, Feature: a.Feature})
	e.Evidence = &Evidence{
		Seq: e.Seq, At: e.At, Actor: e.Actor, Feature: a.Feature, Status: a.Status, Scope: a.Scope,
		Command: a.Command, Summary: a.Summary, Source: src, RunID: a.RunID, Commit: a.Commit,
		Tree: a.Tree,
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
	f, err := requireActive(s, a.Feature)
	if err != nil {
		return err
	}
	if err := checkDecision(a.Decision); err != nil {
		return err
	}
	if err := checkTree("tree", a.Pin.Tree); err != nil {
		return err
	}
	// An approval is of the code as it is: not of evidence of other code.
	if a.Decision == ReviewApproved {
		if err := checkPinned(s, f, a.Pin); err != nil {
			return err
		}
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
	if err := checkTree("tree", a.Pin.Tree); err != nil {
		return err
	}
	if a.Decision == ReviewApproved {
		if err := finalPinned(s, a.Pin); err != nil {
			return err
		}
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
		if a.Head != "" && !isObjectID(a.Head) {
			return invalidArg("head", "head %s is not a git object id", quoteID(a.Head))
		}
		if err := checkTree("tree", a.Pin.Tree); err != nil {
			return err
		}
		gerr := CompletionGateAt(s, f, a.Pin)
		if gerr == nil {
			gerr = CommitGate(s, f, a.Head)
		}
		if gerr != nil {
			b.emit(Event{Type: EventCompletionRejected, Feature: f.ID, Code: gerr.Code, Summary: gerr.Message})
			return gerr
		}
		if a.MergeCommit != "" && !isObjectID(a.MergeCommit) {
			return invalidArg("merge_commit", "merge commit %s is not a git object id", quoteID(a.MergeCommit))
		}
		if a.MergeBase != "" && (!isObjectID(a.MergeBase) || a.MergeCommit == "") {
			return invalidArg("merge_base", "merge base %s is not a git object id of a merge", quoteID(a.MergeBase))
		}
		b.emit(Event{Type: EventFeatureCompleted, Feature: f.ID, Outcome: a.Outcome, Summary: a.Summary, Commit: a.MergeCommit, Base: a.MergeBase})
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
// completing, or nil, with the code's tree unknown (no evidence is stale).
func CompletionGate(s *Session, f *Feature) *Error { return CompletionGateAt(s, f, Pin{}) }

// CompletionGateAt returns the first gate that keeps the active feature f
// from completing on the code p pins, or nil. The order of the gates is
// part of the contract.
func CompletionGateAt(s *Session, f *Feature, p Pin) *Error {
	st := string(s.Status)
	since := evidenceSince(f.Validations, f.StartedSeq, "")
	// validate names the command that records evidence: the feature's own
	// verification run through flowdeck (observed evidence, and executable
	// right now), or a report when the plan gave no verification command.
	// The feature that completes the session validates broadly from the
	// start: one broad run is its evidence and the session's, so the person
	// reviews once (then the final review) instead of validating twice and
	// reviewing again.
	last := CompletesSession(s, f)
	validate := func(e *Error, scope Scope) *Error {
		if last {
			return withBroadValidate(s, f, e)
		}
		return withValidate(f, e, scope)
	}
	if len(since) == 0 {
		hint := verifyHint(f)
		if last {
			hint = broadHint(f)
		}
		return validate(refuse(CodeMissingValidation, st, "validation evidence recorded since the feature started",
			hint, "", "feature %s has no validation evidence since it started", f.ID), ScopeTargeted)
	}
	// Every verification command of the plan is the contract: each needs
	// passing evidence of the code as it is.
	for _, c := range Checks(f, p.Tree) {
		switch c.State {
		case CheckMissing:
			e := refuse(CodeMissingValidation, st, "passing evidence of every verification command of the plan",
				verifyHint(f), "", "feature %s has no validation evidence of %s since it started", f.ID, FirstLine(c.Command, 120))
			if last {
				e.Recovery.Hint = broadHint(f)
				return withBroadValidate(s, f, e)
			}
			return withValidateCommand(f, e, ScopeTargeted, c.Command)
		case CheckFailed, CheckPartial:
			e := c.Evidence
			r := refuse(CodeFailingValidation, st, "passing validation evidence",
				"Fix what failed, then validate again: "+e.Command, "",
				"the latest validation of feature %s %s: %s", f.ID, e.Status, e.Command)
			if last {
				return withBroadValidate(s, f, r)
			}
			return withValidateCommand(f, r, e.Scope, c.Command)
		case CheckStale:
			return staleRefusal(s, f, c.Evidence, p, c.Evidence.Scope)
		}
	}
	latest := since[len(since)-1]
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
	if !last {
		return nil
	}
	broad := LatestBroad(f)
	if broad == nil || broad.Status != ValidationPassed {
		return validate(refuse(CodeMissingBroadValidation, st, "passing broad validation since the feature started",
			broadHint(f), "", "feature %s completes the session but has no passing broad validation", f.ID), ScopeBroad)
	}
	if StaleOn(broad, p.Tree) {
		return staleRefusal(s, f, broad, p, ScopeBroad)
	}
	final := lastReviewAfter(s.Execution.FinalReviews, broad.Seq)
	finalCmd := "flowdeck flow review --final --decision approved|needs_fix|blocked"
	if final == nil {
		e := refuse(CodeMissingFinalReview, st, "a final review after the latest broad validation",
			"The session's final review must follow its broad validation.", finalCmd,
			"session %s has no final review since its latest broad validation", s.ID)
		if s.Approval != ApprovalApproved { // a replan left the plan to approve again first
			e.Recovery.Hint += " The final review needs the plan approved again first."
			e.withAction("flow", "plan", "approve")
		}
		return e
	}
	if final.Decision != ReviewApproved {
		return validate(refuse(CodeFailingFinalReview, st, "an approved final review",
			"Address the final review's findings, validate broadly again and ask for a new final review."+findingsText(final.Findings),
			"", "the final review of session %s is %s", s.ID, final.Decision), ScopeBroad)
	}
	return nil
}

// withValidate gives e the next command that records evidence on f: the
// feature's own verification run through flowdeck (observed evidence, and
// executable right now), or a report when the plan gave no verification.
func withValidate(f *Feature, e *Error, scope Scope) *Error {
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

// CompletesSession reports whether completing f completes the session:
// then its validation must be broad, and the final review follows it.
func CompletesSession(s *Session, f *Feature) bool {
	return s.Plan != nil && f.Status != FeatureCompleted && s.Plan.CompletedCount()+1 >= s.Plan.Required()
}

// VerifyCommands are the commands that verify f in scope: its own, or for
// broad scope every feature's of the plan, in plan order, once each (the
// whole suite as the plan knows it). flows verify, the cockpit's v and the
// demo agent all run these.
func VerifyCommands(p *Plan, f *Feature, scope Scope) []string {
	if scope != ScopeBroad || p == nil {
		return f.Verification
	}
	var cmds []string
	seen := map[string]bool{}
	for _, pf := range p.Features {
		for _, c := range pf.Verification {
			if !seen[c] {
				seen[c] = true
				cmds = append(cmds, c)
			}
		}
	}
	return cmds
}

// withBroadValidate gives e the command that validates f broadly: every
// verification command of the plan, observed (flows verify --scope broad),
// or a broad report when the plan has none.
func withBroadValidate(s *Session, f *Feature, e *Error) *Error {
	if len(VerifyCommands(s.Plan, f, ScopeBroad)) == 0 {
		return withValidate(f, e, ScopeBroad)
	}
	return e.withAction("flows", "verify", f.ID, "--scope", string(ScopeBroad))
}

func broadHint(f *Feature) string {
	return "This feature completes the session: validate broadly (every verification command of the plan), " +
		"then review " + f.ID + ", then the session's final review, then complete it."
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
