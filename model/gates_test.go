package model_test

import (
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// completeOK asserts that completing id is accepted.
func (r *testRig) completeOK(id string) []model.Event {
	r.t.Helper()
	return r.do(model.RunComplete{Feature: id, Outcome: model.OutcomeCompleted})
}

// completeRejected asserts that completing id is refused with code, that the
// refusal is written to history, and that nothing else changed.
func (r *testRig) completeRejected(id, code string) *model.Error {
	r.t.Helper()
	before := *r.feature(id)
	status := r.s.Status
	e, ev := r.refuseRecorded(model.RunComplete{Feature: id, Outcome: model.OutcomeCompleted}, code, model.EventCompletionRejected)
	if ev.Code != code || ev.Feature != id {
		r.t.Fatalf("completion_rejected event %+v, want code %s for %s", ev, code, id)
	}
	last := r.s.Execution.History[len(r.s.Execution.History)-1]
	if last.Type != model.EventCompletionRejected || last.Feature != id || !strings.Contains(last.Summary, code) {
		r.t.Fatalf("history does not record the rejected completion: %+v", last)
	}
	if f := r.feature(id); f.Status != model.FeatureInProgress || len(f.Validations) != len(before.Validations) || r.s.Status != status {
		r.t.Fatalf("a rejected completion changed the feature or session")
	}
	if r.s.Execution.ActiveFeature != id {
		r.t.Fatal("a rejected completion cleared the active feature")
	}
	if e.Recovery.NextAction != nil {
		r.t.Errorf("%s: next_action %+v, but every gate needs new evidence or a review first", code, e.Recovery.NextAction)
	}
	if got := model.NextCommand(r.s); got != e.Recovery.NextCommand {
		r.t.Errorf("NextCommand %q disagrees with the gate's next_command %q", got, e.Recovery.NextCommand)
	}
	return e
}

// TestCompletionGatesInOrder walks the last feature of a plan through every
// gate: each step satisfies one gate and exposes the next, so each code can
// only appear in its place.
func TestCompletionGatesInOrder(t *testing.T) {
	r := readyRig(t, mkFeature("only"))
	r.do(model.RunStart{})
	const id = "only"

	e := r.completeRejected(id, model.CodeMissingValidation)
	wantMentions(t, e.Message, id)
	if !strings.Contains(e.Recovery.NextCommand, "validate only") {
		t.Errorf("next_command %q", e.Recovery.NextCommand)
	}

	r.validate(id, model.ValidationFailed, model.ScopeTargeted)
	e = r.completeRejected(id, model.CodeFailingValidation)
	wantMentions(t, e.Message, id, "failed", "go test ./...")

	r.validate(id, model.ValidationPartial, model.ScopeTargeted)
	r.completeRejected(id, model.CodeFailingValidation)

	r.validate(id, model.ValidationPassed, model.ScopeTargeted)
	e = r.completeRejected(id, model.CodeMissingFeatureReview)
	wantMentions(t, e.Message, id)
	wantMentions(t, e.Recovery.NextCommand, "review only")

	r.review(id, model.ReviewNeedsFix)
	e = r.completeRejected(id, model.CodeFailingFeatureReview)
	wantMentions(t, e.Message, id, "needs_fix")
	wantMentions(t, e.Recovery.Hint, "looked at only")

	// A review counts only after the latest validation: validating again
	// after needs_fix asks for a new review instead of reusing the old one.
	r.validate(id, model.ValidationPassed, model.ScopeTargeted)
	r.completeRejected(id, model.CodeMissingFeatureReview)
	r.review(id, model.ReviewBlocked)
	e = r.completeRejected(id, model.CodeFailingFeatureReview)
	wantMentions(t, e.Message, "blocked")
	r.review(id, model.ReviewApproved)

	// The feature is the last one the session needs: the session gates.
	e = r.completeRejected(id, model.CodeMissingBroadValidation)
	wantMentions(t, e.Message, id)
	wantMentions(t, e.Recovery.NextCommand, "--scope broad")

	// Failing broad evidence is the latest evidence: the validation gate
	// comes first again.
	r.validate(id, model.ValidationFailed, model.ScopeBroad)
	r.completeRejected(id, model.CodeFailingValidation)
	// Passing targeted evidence after failing broad evidence is not broad.
	r.validate(id, model.ValidationPassed, model.ScopeTargeted)
	r.review(id, model.ReviewApproved)
	r.completeRejected(id, model.CodeMissingBroadValidation)

	r.validate(id, model.ValidationPassed, model.ScopeBroad)
	// The approving review came before the broad validation: it no longer counts.
	r.completeRejected(id, model.CodeMissingFeatureReview)
	r.review(id, model.ReviewApproved)
	e = r.completeRejected(id, model.CodeMissingFinalReview)
	wantMentions(t, e.Message, "s1")
	wantMentions(t, e.Recovery.NextCommand, "review --final")
	if !model.AwaitingFinalReview(r.s) {
		t.Error("AwaitingFinalReview = false while the final review is the only gate left")
	}

	r.do(model.ReviewFinal{Decision: model.ReviewNeedsFix, Findings: []string{"changelog"}})
	e = r.completeRejected(id, model.CodeFailingFinalReview)
	wantMentions(t, e.Message, "s1", "needs_fix")
	wantMentions(t, e.Recovery.Hint, "changelog")
	if model.AwaitingFinalReview(r.s) {
		t.Error("AwaitingFinalReview = true after a final review was recorded")
	}

	// A final review before the latest broad validation does not count.
	r.do(model.ReviewFinal{Decision: model.ReviewApproved})
	r.validate(id, model.ValidationPassed, model.ScopeBroad)
	r.review(id, model.ReviewApproved)
	r.completeRejected(id, model.CodeMissingFinalReview)
	r.do(model.ReviewFinal{Decision: model.ReviewApproved})

	r.wantNext("flowdeck flow run complete only --outcome completed")
	ev := r.completeOK(id)
	if got := eventTypes(ev); len(got) != 2 || got[0] != model.EventFeatureCompleted || got[1] != model.EventSessionCompleted {
		t.Fatalf("events %v, want feature_completed then session_completed", got)
	}
	r.wantSession(model.StatusCompleted, model.ApprovalApproved)
	rejected := 0
	for _, h := range r.s.Execution.History {
		if h.Type == model.EventCompletionRejected {
			rejected++
		}
	}
	if rejected != 14 {
		t.Errorf("%d rejected completions in history, want 14", rejected)
	}
}

func TestCompletionGatesForAFeatureThatIsNotLast(t *testing.T) {
	r := readyRig(t, mkFeature("a"), mkFeature("b", "a"))
	r.do(model.RunStart{})
	r.completeRejected("a", model.CodeMissingValidation)
	r.validate("a", model.ValidationPassed, model.ScopeTargeted)
	r.completeRejected("a", model.CodeMissingFeatureReview)
	r.review("a", model.ReviewApproved)
	// No broad validation and no final review needed: b is still to come.
	ev := r.completeOK("a")
	if len(ev) != 1 || ev[0].Type != model.EventFeatureCompleted {
		t.Fatalf("events %v", eventTypes(ev))
	}
	r.wantSession(model.StatusReady, model.ApprovalApproved)
	if x := r.s.Execution; x.ActiveFeature != "" || x.LastFeature != "a" || x.LastOutcome != model.OutcomeCompleted {
		t.Fatalf("execution after completing a: %+v", x)
	}
	if f := r.feature("a"); f.Status != model.FeatureCompleted || f.Outcome != model.OutcomeCompleted {
		t.Fatalf("feature a %+v", f)
	}
}

func TestEvidenceFromBeforeTheRestartDoesNotCount(t *testing.T) {
	r := readyRig(t, mkFeature("a"), mkFeature("b"))
	r.do(model.RunStart{Feature: "a"})
	r.validate("a", model.ValidationPassed, model.ScopeBroad)
	r.review("a", model.ReviewApproved)
	r.do(model.ReviewFinal{Decision: model.ReviewApproved})
	if model.StateOf(r.s, r.feature("a")) != model.StateInProgress || model.LatestEvidence(r.feature("a")) == nil {
		t.Fatal("validated and approved feature: want in_progress with evidence")
	}
	// The worker asks for a re-plan; the feature keeps its old evidence and
	// reviews but they predate the next start.
	r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeReplanRequired, Summary: "scope changed"})
	r.do(model.PlanApprove{})
	r.do(model.RunStart{Feature: "a"})
	f := r.feature("a")
	if len(f.Validations) == 0 || len(f.Reviews) == 0 {
		t.Fatal("test premise: the old evidence should still be stored")
	}
	r.completeRejected("a", model.CodeMissingValidation)
	if st := model.StateOf(r.s, f); st != model.StateInProgress {
		t.Errorf("StateOf a restarted feature = %s, want in_progress", st)
	}
	if ev := model.LatestEvidence(r.feature("a")); ev != nil {
		t.Errorf("LatestEvidence of a restarted feature = %+v, want none since it started", ev)
	}
	r.validate("a", model.ValidationPassed, model.ScopeTargeted)
	// The old approving review is older than the new evidence.
	r.completeRejected("a", model.CodeMissingFeatureReview)
	r.review("a", model.ReviewApproved)
	r.completeOK("a")

	// For the last feature, a final review recorded while another feature
	// ran is older than this feature's broad evidence.
	r.do(model.RunStart{Feature: "b"})
	r.do(model.ReviewFinal{Decision: model.ReviewApproved})
	r.validate("b", model.ValidationPassed, model.ScopeBroad)
	r.review("b", model.ReviewApproved)
	r.completeRejected("b", model.CodeMissingFinalReview)
}

func TestBroadEvidenceFromBeforeTheRestartDoesNotCount(t *testing.T) {
	r := readyRig(t, mkFeature("a"))
	r.do(model.RunStart{})
	r.validate("a", model.ValidationPassed, model.ScopeBroad)
	r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeReplanRequired})
	r.do(model.PlanApprove{})
	r.do(model.RunStart{})
	r.validate("a", model.ValidationPassed, model.ScopeTargeted)
	r.review("a", model.ReviewApproved)
	r.completeRejected("a", model.CodeMissingBroadValidation)
}

func TestMinCompletedFeatures(t *testing.T) {
	tests := []struct {
		min, features, want int
	}{
		{0, 3, 3}, {1, 3, 1}, {2, 3, 2}, {3, 3, 3}, {9, 3, 3},
	}
	for _, tt := range tests {
		p := model.Plan{Completion: model.Completion{MinCompletedFeatures: tt.min}}
		for i := range tt.features {
			p.Features = append(p.Features, mkFeature(string(rune('a'+i))))
		}
		if got := p.Required(); got != tt.want {
			t.Errorf("Required() with min %d of %d = %d, want %d", tt.min, tt.features, got, tt.want)
		}
	}
	var nilPlan *model.Plan
	if nilPlan.Required() != 0 || nilPlan.CompletedCount() != 0 || nilPlan.Feature("a") != nil {
		t.Error("nil plan helpers")
	}

	r := newTestRig(t)
	r.do(model.PlanStart{ID: "s1", Goal: "g"})
	p := mkPlan(mkFeature("a"), mkFeature("b"), mkFeature("c"))
	p.Completion.MinCompletedFeatures = 2
	r.do(model.PlanApply{Plan: p})
	r.do(model.PlanApprove{})

	// The first of two required features needs no session gates.
	r.do(model.RunStart{})
	r.validate("a", model.ValidationPassed, model.ScopeTargeted)
	r.review("a", model.ReviewApproved)
	r.completeOK("a")
	// The second completes the session, so it does.
	r.do(model.RunStart{})
	r.validate("b", model.ValidationPassed, model.ScopeTargeted)
	r.review("b", model.ReviewApproved)
	r.completeRejected("b", model.CodeMissingBroadValidation)
	r.pass("b")
	r.wantSession(model.StatusCompleted, model.ApprovalApproved)
	if got := r.statuses(); got != "a=completed b=completed c=pending" {
		t.Fatalf("statuses %s", got)
	}
	r.wantNext("flowdeck flow plan start GOAL")

	// Resetting the optional feature reopens the session; starting the run
	// again finds the requirement still met and completes it.
	r.do(model.ResetFeature{Feature: "c"})
	r.wantSession(model.StatusReady, model.ApprovalApproved)
	if r.s.Timestamps.Completed != nil {
		t.Fatal("reset kept the completed timestamp")
	}
	ev := r.do(model.RunStart{})
	if ev[0].Type != model.EventSessionCompleted {
		t.Fatalf("run start with the requirement met: %v", eventTypes(ev))
	}
}

func TestOutcomes(t *testing.T) {
	t.Run("replan_required returns the session to planning", func(t *testing.T) {
		r := readyRig(t, mkFeature("a"), mkFeature("b", "a"))
		r.do(model.RunStart{})
		r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeReplanRequired, Summary: "the API is wrong"})
		r.wantSession(model.StatusPlanning, model.ApprovalPending)
		f := r.feature("a")
		if f.Status != model.FeaturePending || f.Outcome != model.OutcomeReplanRequired || f.OutcomeNote != "the API is wrong" {
			t.Fatalf("feature after replan %+v", f)
		}
		if x := r.s.Execution; x.ActiveFeature != "" || x.LastFeature != "a" || x.LastOutcome != model.OutcomeReplanRequired {
			t.Fatalf("execution after replan %+v", x)
		}
		if r.s.Timestamps.Approved != nil {
			t.Fatal("replan kept the approval timestamp")
		}
		r.wantNext("flowdeck flow plan approve")
		r.refuse(model.RunStart{}, model.CodePlanNotApproved)
		// A new plan can be applied while planning.
		r.do(model.PlanApply{Plan: mkPlan(mkFeature("a2"))})
		r.wantSession(model.StatusPlanning, model.ApprovalPending)
	})
	for _, o := range []model.Outcome{model.OutcomeBlocked, model.OutcomeNeedsInput} {
		t.Run(string(o)+" marks feature and session blocked", func(t *testing.T) {
			r := readyRig(t, mkFeature("a"), mkFeature("b"))
			r.do(model.RunStart{})
			r.do(model.RunComplete{Feature: "a", Outcome: o, Summary: "no credentials"})
			r.wantSession(model.StatusBlocked, model.ApprovalApproved)
			f := r.feature("a")
			if f.Status != model.FeatureBlocked || f.Outcome != o || f.OutcomeNote != "no credentials" {
				t.Fatalf("feature %+v", f)
			}
			if r.s.Execution.ActiveFeature != "" || r.s.Execution.LastOutcome != o {
				t.Fatalf("execution %+v", r.s.Execution)
			}
			if st := model.StateOf(r.s, f); st != model.StateBlocked {
				t.Errorf("StateOf = %s", st)
			}
			// Independent work can go on; the blocked feature needs a reset.
			r.wantNext("flowdeck flow run start")
			r.do(model.RunStart{})
			if r.s.Execution.ActiveFeature != "b" {
				t.Fatalf("started %q, want b", r.s.Execution.ActiveFeature)
			}
		})
	}
	t.Run("no completion gates for other outcomes", func(t *testing.T) {
		r := readyRig(t, mkFeature("a"))
		r.do(model.RunStart{})
		r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeBlocked})
		r.wantNext("flowdeck flow reset feature a")
	})
	t.Run("unknown outcome", func(t *testing.T) {
		r := readyRig(t, mkFeature("a"))
		r.do(model.RunStart{})
		r.refuse(model.RunComplete{Feature: "a", Outcome: "done"}, model.CodeInvalidArgument)
		r.refuse(model.RunComplete{Feature: "a"}, model.CodeInvalidArgument)
	})
}
