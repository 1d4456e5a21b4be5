package ui

import (
	"testing"

	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
)

// A review recorded by another process closes the open review prompt at the
// next live update, saying who recorded what; a cannot override it.
func TestReviewPromptClosesWhenReviewedElsewhere(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "review")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.mustSee("Review reset-api")
	if _, err := st.Do(model.ReviewFeature{Feature: "reset-api", Decision: model.ReviewNeedsFix, Findings: []string{"no expiry test"}}, "bob", t0); err != nil {
		t.Fatal(err)
	}
	h.tick()
	h.mustNotSee("Review reset-api")
	h.mustSee("review reset-api closed: review of reset-api: needs_fix (by bob")
	seq := active(t, st).Seq
	h.key("1", "a")
	if s := active(t, st); s.Seq != seq {
		t.Fatalf("a recorded something after bob's review (seq %d -> %d)", seq, s.Seq)
	}
	h.mustSee("reset-api does not wait for a review")
}

// The approval races a review recorded elsewhere (before the cockpit's next
// load): the store refuses it as stale and the note says who changed it.
func TestStaleApprovalIsRefused(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "review")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.mustSee("Review reset-api")
	if _, err := st.Do(model.ReviewFeature{Feature: "reset-api", Decision: model.ReviewNeedsFix, Findings: []string{"no expiry test"}}, "bob", t0); err != nil {
		t.Fatal(err)
	}
	h.key("a") // no tick: the prompt still shows the state before bob's review
	h.mustSee("refused (stale_decision): the review of reset-api changed after you looked", "needs_fix by bob")
	f := active(t, st).Plan.Feature("reset-api")
	if r := f.Reviews[len(f.Reviews)-1]; r.Decision != model.ReviewNeedsFix || r.Actor != "bob" {
		t.Fatalf("last review = %+v", r)
	}
}

// The final review prompt closes when the session completes elsewhere.
func TestFinalPromptClosesWhenSessionCompletes(t *testing.T) {
	st := newStore(t)
	s := &seeder{tb: t, st: st, now: t0}
	s.do(model.PlanStart{Goal: "Tiny"})
	s.do(model.PlanApply{Plan: model.Plan{Summary: "one", Features: []model.Feature{{ID: "only", Title: "Only"}}}})
	s.do(model.PlanApprove{})
	s.do(model.RunStart{})
	s.pass("only", model.ScopeBroad)
	s.do(model.ReviewFeature{Feature: "only", Decision: model.ReviewApproved})
	h := newHarness(t, st, 100, 30, zeroConfig())
	h.mustSee("Final review of the session")
	s.do(model.ReviewFinal{Decision: model.ReviewApproved})
	s.do(model.RunComplete{Feature: "only", Outcome: model.OutcomeCompleted})
	h.tick()
	h.mustNotSee("Final review of the session")
	h.mustSee("final review closed:")
	h.key("q")
	if !h.quit {
		t.Fatal("q does not quit once the final review closed")
	}
}

// A decision answered elsewhere closes its prompt with who answered it.
func TestDecisionPromptClosesWhenAnsweredElsewhere(t *testing.T) {
	st := newStore(t)
	pendingDecisions(t, st)
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.mustSee("Ship it?")
	if _, err := flows.ResolveDecision(st, "d1", flows.Answer{Option: "no"}, "bob", t0); err != nil {
		t.Fatal(err)
	}
	h.tick()
	h.mustSee("decision d1 closed: no by bob")
	if d, _ := st.Decision("d1"); d.Status != model.DecisionResolved || d.Resolution.Actor != "bob" {
		t.Fatalf("d1 = %+v", d)
	}
}
