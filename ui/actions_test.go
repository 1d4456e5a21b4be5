package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// Approving a review from its prompt stores the review event and the screen
// says so.
func TestApproveStoresReviewEvent(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "review")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.mustSee("Review reset-api", "validation: targeted passed (reported) · go test ./reset-api/...", "12 passed")
	h.key("a")
	h.mustSee("✓ review of reset-api: approved")
	h.mustNotSee("Review reset-api")

	s := active(t, st)
	f := s.Plan.Feature("reset-api")
	if n := len(f.Reviews); n == 0 || f.Reviews[n-1].Decision != model.ReviewApproved || f.Reviews[n-1].Actor != "human" {
		t.Fatalf("reviews = %+v", f.Reviews)
	}
	evs, err := st.Events(s.ID, s.Seq, 0)
	if err != nil || len(evs) != 1 || evs[0].Type != model.EventReviewRecorded || evs[0].Review.Decision != model.ReviewApproved {
		t.Fatalf("last event = %+v, %v", evs, err)
	}
	// The feature no longer waits: its row says running, the bar nothing waits.
	h.mustSee("nothing waits for you")
}

// x asks for findings and stores them with the needs_fix decision.
func TestNeedsFixStoresFindings(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "review")
	h := newHarness(t, st, 100, 30, zeroConfig())
	h.key("x")
	h.mustSee("Request changes to reset-api", "findings:")
	h.typeText("no test for expiry; name is unclear")
	h.key("enter")
	h.mustSee("review of reset-api: needs_fix")
	f := active(t, st).Plan.Feature("reset-api")
	r := f.Reviews[len(f.Reviews)-1]
	if r.Decision != model.ReviewNeedsFix || strings.Join(r.Findings, "|") != "no test for expiry|name is unclear" {
		t.Fatalf("review = %+v", r)
	}
	h.mustSee("✗ reset-api", "needs fix")
}

// A review prompt that appears by itself ignores keys for the grace period:
// a key typed for something else cannot approve.
func TestPromptGraceIgnoresKeystrokeInFlight(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.mustNotSee("Review reset-api")

	// An agent records passing evidence from another process.
	if _, err := st.Do(model.Validate{Feature: "reset-api", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./reset-api/...", Summary: "8 passed"}, "agent", t0); err != nil {
		t.Fatal(err)
	}
	h.tick()
	h.mustSee("Review reset-api", "8 passed", "keys wait a moment")
	seq := active(t, st).Seq

	h.key("a") // in flight: ignored
	if s := active(t, st); s.Seq != seq {
		t.Fatalf("a key within the grace period changed the session (seq %d -> %d)", seq, s.Seq)
	}
	h.mustSee("Review reset-api")

	h.clk.Add(500 * time.Millisecond)
	h.key("a")
	h.mustSee("✓ review of reset-api: approved")
	if s := active(t, st); s.Seq != seq+1 {
		t.Fatalf("approve after the grace period: seq %d, want %d", s.Seq, seq+1)
	}
}

// r asks before resetting and names every downstream feature; y resets them
// all to pending.
func TestResetConfirmsAndResetsDownstream(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("g") // token-store, completed
	h.key("r")
	h.mustSee("Reset token-store?", "Also resets 6 downstream: reset-api, rate-limit, reset-ui, audit-log, e2e-tests, docs", "y yes", "n no")
	h.key("n")
	h.mustSee("cancelled")
	if f := active(t, st).Plan.Feature("token-store"); f.Status != model.FeatureCompleted {
		t.Fatalf("n reset anyway: %s", f.Status)
	}

	h.key("r", "y")
	h.mustSee("✓ reset token-store, reset-api, rate-limit, reset-ui, audit-log, e2e-tests, docs")
	s := active(t, st)
	for _, id := range append([]string{"token-store"}, model.Downstream(s.Plan.Features, "token-store")...) {
		if f := s.Plan.Feature(id); f.Status != model.FeaturePending {
			t.Errorf("%s is %s after reset, want pending", id, f.Status)
		}
	}
	if f := s.Plan.Feature("mailer"); f.Status != model.FeatureCompleted {
		t.Errorf("mailer (not downstream) is %s", f.Status)
	}
	h.mustSee("○ token-store")
}

// A refused action shows the structured error inline and changes nothing.
func TestRefusedActionShowsErrorAndChangesNothing(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	before := active(t, st)
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("g", "s") // start token-store: completed, so refused
	h.mustSee("Start token-store?")
	h.key("y")
	h.mustSee("✗ refused (feature_already_active): feature reset-api is already active",
		"hint: Finish the active feature first", "next: flowdeck ")
	after := active(t, st)
	if after.Seq != before.Seq {
		t.Fatalf("a refused action stored events: seq %d -> %d", before.Seq, after.Seq)
	}
	// esc clears the error.
	h.key("esc")
	h.mustNotSee("refused")
}

// R archives the session after a y.
func TestResetSessionConfirms(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 80, 24, zeroConfig())
	h.key("R")
	h.mustSee("Reset the session?", "Archives session")
	h.key("y")
	if s := active(t, st); s != nil {
		t.Fatalf("session still active: %s", s.ID)
	}
	h.mustSee("no active session")
}

// The final review: a on the active feature records ReviewFinal.
func TestFinalReview(t *testing.T) {
	st := newStore(t)
	s := &seeder{tb: t, st: st, now: t0.Add(-time.Hour)}
	s.do(model.PlanStart{Goal: "Tiny"})
	s.do(model.PlanApply{Plan: model.Plan{Summary: "one", Features: []model.Feature{{ID: "only", Title: "Only"}}}})
	s.do(model.PlanApprove{})
	s.do(model.RunStart{})
	s.pass("only", model.ScopeBroad)
	s.do(model.ReviewFeature{Feature: "only", Decision: model.ReviewApproved})
	h := newHarness(t, st, 100, 30, zeroConfig())
	h.mustSee("Final review of the session", "validation: broad passed")
	h.key("a")
	h.mustSee("final review: approved")
	if fr := active(t, st).Execution.FinalReviews; len(fr) != 1 || fr[0].Decision != model.ReviewApproved {
		t.Fatalf("final reviews = %+v", fr)
	}
}

// /flow-validate from the command line stores its command redacted, as the
// CLI and MCP paths do: the cockpit stores actions through ops.
func TestValidateCommandIsRedacted(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key(":")
	h.typeText("/flow-validate reset-api passed targeted curl -H token=ghp_abcdefghijklmnopqrstuvwxyz0123456789 localhost")
	h.key("enter")
	h.mustSee("✓ ")
	f := active(t, st).Plan.Feature("reset-api")
	v := f.Validations[len(f.Validations)-1]
	if strings.Contains(v.Command, "ghp_abcdefghijklmnopqrstuvwxyz0123456789") || !strings.Contains(v.Command, "curl") {
		t.Fatalf("stored command = %q", v.Command)
	}
}

// In a session with worktrees, resetting a completed feature says that its
// merged work (and its completed dependents') goes back out of the
// integration branch.
func TestResetNamesTheMergesItTakesBack(t *testing.T) {
	st := newStore(t)
	const c1, c2 = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	p := model.Plan{Summary: "s", MaxParallel: 2, Features: []model.Feature{{ID: "a", Title: "A"}, {ID: "b", Title: "B", DependsOn: []string{"a"}}}}
	out, err := st.Do(model.PlanStart{Goal: "merged"}, "agent", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	integ := model.IntegrationBranch(out.Session.ID)
	for _, a := range []model.Action{
		model.PlanApply{Plan: p},
		model.PlanApprove{Git: &model.GitSetup{Integration: integ, Base: "main", BaseCommit: c1}},
		model.RunStart{Feature: "a", Agent: "w1"},
		model.Validate{Feature: "a", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test"},
		model.ReviewFeature{Feature: "a", Decision: model.ReviewApproved},
		model.RunComplete{Feature: "a", Outcome: model.OutcomeCompleted, MergeCommit: c2, MergeBase: c1},
	} {
		if _, err := st.Do(a, "agent", time.Now()); err != nil {
			t.Fatalf("%T: %v", a, err)
		}
	}
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("g") // a
	h.key("r")
	h.mustSee("Reset a?", "Also resets 1 downstream: b", "Takes the merged work of these back out of "+integ+": a")
}
