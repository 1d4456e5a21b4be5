package model_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// wantHintAccepted asserts that the refusal's next command and the
// session's NextCommand would both be accepted on the rig's session.
func wantHintAccepted(r *testRig, e *model.Error) {
	r.t.Helper()
	h := &hintWalk{t: r.t, rng: rand.New(rand.NewPCG(1, 2)), s: r.s, now: r.now, checked: map[string]int{}}
	var argv []string
	if e.Recovery.NextAction != nil {
		argv = e.Recovery.NextAction.Args
	}
	h.checkHint("refusal "+e.Code, e.Recovery.NextCommand, argv)
	h.checkHint("NextCommand", model.NextCommand(r.s), nil)
}

// Evidence on a blocked feature hinted "run start" of that feature, which
// is refused (feature_not_runnable): the hint is the reset it needs.
func TestNotActiveHintOnBlockedFeature(t *testing.T) {
	r := readyRig(t, mkFeature("a"))
	r.do(model.RunStart{Feature: "a"})
	r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeBlocked})
	e := r.refuse(model.Validate{Feature: "a", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test"}, model.CodeFeatureNotActive)
	if e.Recovery.NextCommand != "flowdeck flow reset feature a" {
		t.Fatalf("next command %q, want the reset of a", e.Recovery.NextCommand)
	}
	wantHintAccepted(r, e)
}

// Claiming a feature that waits hinted "run start" when nothing else was
// claimable either (no_runnable_feature): the hint is the active feature's step.
func TestWaitingHintWhenNothingElseRuns(t *testing.T) {
	r := parallelRig(t, 2, mkFeature("a"), mkFeature("b", "a"))
	r.do(model.RunStart{Feature: "a"})
	e := r.refuse(model.RunStart{Feature: "b"}, model.CodeFeatureNotRunnable)
	if e.Recovery.NextCommand != model.NextCommand(r.s) {
		t.Fatalf("next command %q, want NextCommand %q", e.Recovery.NextCommand, model.NextCommand(r.s))
	}
	wantHintAccepted(r, e)
}

// A replan while another feature runs on leaves the plan to approve; once
// the other feature is blocked (or completed, or reset) the session is no
// longer planning, and NextCommand's "plan approve" must still be accepted.
func TestApproveAfterReplanWhileOthersRan(t *testing.T) {
	r := parallelRig(t, 2, mkFeature("a"), mkFeature("b"), mkFeature("c"))
	r.do(model.RunStart{Feature: "a"})
	r.do(model.RunStart{Feature: "b"})
	r.do(model.RunComplete{Feature: "b", Outcome: model.OutcomeReplanRequired})
	r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeBlocked})
	r.wantSession(model.StatusBlocked, model.ApprovalPending)
	r.wantNext("flowdeck flow plan approve")
	r.do(model.PlanApprove{})
	r.wantSession(model.StatusReady, model.ApprovalApproved)
}

// The last feature awaiting its final review while the plan awaits
// re-approval (a replan by another feature): the final review would be
// refused (plan_not_approved), so the hint is the approval.
func TestFinalReviewHintWhilePlanAwaitsApproval(t *testing.T) {
	r := newTestRig(t)
	p := mkPlan(mkFeature("a"), mkFeature("b"))
	p.MaxParallel, p.Completion.MinCompletedFeatures = 2, 1 // a alone completes the session
	r.do(model.PlanStart{ID: "s1", Goal: "ship it"})
	r.do(model.PlanApply{Plan: p})
	r.do(model.PlanApprove{})
	r.do(model.RunStart{Feature: "a"})
	r.do(model.RunStart{Feature: "b"})
	r.do(model.RunComplete{Feature: "b", Outcome: model.OutcomeReplanRequired})
	r.validate("a", model.ValidationPassed, model.ScopeBroad)
	r.review("a", model.ReviewApproved)
	e, _ := r.refuseRecorded(model.RunComplete{Feature: "a", Outcome: model.OutcomeCompleted},
		model.CodeMissingFinalReview, model.EventCompletionRejected)
	if e.Recovery.NextCommand != "flowdeck flow plan approve" {
		t.Fatalf("next command %q, want the plan's approval", e.Recovery.NextCommand)
	}
	wantHintAccepted(r, e)
	for _, st := range model.NextSteps(r.s) {
		if st.Feature == "a" && st.Command != "flowdeck flow plan approve" {
			t.Fatalf("next step of a = %q, want the plan's approval", st.Command)
		}
	}
}

// An over-long text had no next command at all, and an over-long plan
// hinted "plan apply" while a feature was active (plan_not_editable).
func TestOversizedTextHints(t *testing.T) {
	long := strings.Repeat("x", model.MaxTextBytes+1)
	r := readyRig(t, mkFeature("a"))
	e := r.refuse(model.AddNote{Text: long}, model.CodeTextTooLarge)
	if e.Recovery.NextCommand != "flowdeck flow run start" {
		t.Fatalf("note too long: next command %q, want the session's next step", e.Recovery.NextCommand)
	}
	wantHintAccepted(r, e)
	r.do(model.RunStart{Feature: "a"})
	p := mkPlan(mkFeature("b"))
	p.Features[0].Title = long
	e = r.refuse(model.PlanApply{Plan: p}, model.CodeTextTooLarge)
	if strings.Contains(e.Recovery.NextCommand, "plan apply") {
		t.Fatalf("plan too long while a runs: next command %q would be refused", e.Recovery.NextCommand)
	}
	wantHintAccepted(r, e)
}
