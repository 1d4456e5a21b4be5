package model_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// parallelRig is a ready session whose plan allows max features at once.
func parallelRig(t *testing.T, max int, features ...model.Feature) *testRig {
	t.Helper()
	r := newTestRig(t)
	r.do(model.PlanStart{ID: "s1", Goal: "ship it"})
	p := mkPlan(features...)
	p.MaxParallel = max
	r.do(model.PlanApply{Plan: p})
	r.do(model.PlanApprove{})
	return r
}

func claimed(t *testing.T, events []model.Event) model.Event {
	t.Helper()
	if len(events) != 1 || events[0].Type != model.EventFeatureStarted {
		t.Fatalf("events %v, want one feature_started", eventTypes(events))
	}
	return events[0]
}

// With max_parallel > 1 a claim without an id takes the feature on the
// longest remaining chain first; with 1 it keeps plan order.
func TestClaimOrderFollowsTheCriticalPath(t *testing.T) {
	features := []model.Feature{mkFeature("x"), mkFeature("a"), mkFeature("b", "a"), mkFeature("c", "b"), mkFeature("y")}
	r := parallelRig(t, 3, features...)
	if got := strings.Join(model.ClaimOrder(r.s), " "); got != "a x y" {
		t.Fatalf("claim order %q, want a (chain of 3) then x, y in plan order", got)
	}
	e := claimed(t, r.do(model.RunStart{Agent: "w1"}))
	if e.Feature != "a" || e.Agent != "w1" {
		t.Fatalf("claimed %s for %q, want a for w1", e.Feature, e.Agent)
	}
	if e := claimed(t, r.do(model.RunStart{Agent: "w2"})); e.Feature != "x" {
		t.Fatalf("second claim took %s, want x", e.Feature)
	}
	if got := model.Describe(e); got != "started a (agent w1)" {
		t.Fatalf("Describe = %q", got)
	}

	one := readyRig(t, features...)
	if e := claimed(t, one.do(model.RunStart{})); e.Feature != "x" || e.Agent != "" {
		t.Fatalf("with max_parallel 1 the claim took %s (agent %q), want x in plan order", e.Feature, e.Agent)
	}
}

func TestParallelRefusals(t *testing.T) {
	r := parallelRig(t, 2, mkFeature("a"), mkFeature("b"), mkFeature("c"), mkFeature("d", "a", "b", "c"))
	r.do(model.RunStart{Feature: "a", Agent: "w1"})

	e := r.refuse(model.RunStart{Feature: "a", Agent: "w2"}, model.CodeFeatureAlreadyActive)
	wantMentions(t, e.Message, "a", "w1")
	if !strings.Contains(e.Recovery.NextCommand, "validate a") {
		t.Errorf("next_command %q does not lead to finishing a", e.Recovery.NextCommand)
	}

	r.do(model.RunStart{Feature: "b", Agent: "w2"})
	for _, a := range []model.RunStart{{}, {Feature: "c", Agent: "w3"}} {
		e = r.refuse(a, model.CodeMaxParallelReached)
		wantMentions(t, e.Message, "a (agent w1)", "b (agent w2)", "2")
		if e.Recovery.NextCommand != model.NextCommand(r.s) || !strings.Contains(e.Recovery.NextCommand, " b ") {
			t.Errorf("next_command %q, want the next step of b, the latest claim", e.Recovery.NextCommand)
		}
	}
	// An already active feature is named as such even at the limit.
	r.refuse(model.RunStart{Feature: "b"}, model.CodeFeatureAlreadyActive)

	e = r.refuse(model.Validate{Feature: "c", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "t"}, model.CodeFeatureNotActive)
	wantMentions(t, e.Message, "the active features are a (agent w1), b (agent w2)")

	e = r.refuse(model.RunStart{Feature: "c", Agent: "bad name"}, model.CodeInvalidArgument)
	if e.Field != "agent" {
		t.Errorf("field %q, want agent", e.Field)
	}

	// d waits for a, b and c: once c is claimed nothing else can be, and the
	// session is not blocked by that.
	r.pass("a")
	r.do(model.RunStart{Agent: "w1"})
	r.refuse(model.RunStart{Agent: "w3"}, model.CodeMaxParallelReached)
	r.pass("b")
	e = r.refuse(model.RunStart{Agent: "w3"}, model.CodeNoRunnableFeature)
	wantMentions(t, e.Message, "c (agent w1)", "d waits for c")
	if r.s.Status != model.StatusRunning {
		t.Fatalf("status %s while c is active, want running", r.s.Status)
	}
}

// Gates, blocks and completion work per feature; the session runs while any
// feature is active and ActiveFeature is always the latest claim.
func TestParallelFeaturesFinishIndependently(t *testing.T) {
	r := parallelRig(t, 3, mkFeature("a"), mkFeature("b"), mkFeature("c"), mkFeature("d", "a"))
	r.do(model.RunStart{Feature: "a", Agent: "w1"})
	r.do(model.RunStart{Feature: "b", Agent: "w2"})
	r.do(model.RunStart{Feature: "c", Agent: "w3"})
	if got := model.ClaimsText(r.s); got != "a (agent w1), b (agent w2), c (agent w3)" {
		t.Fatalf("claims %q", got)
	}
	if r.s.Execution.ActiveFeature != "c" {
		t.Fatalf("active feature %q, want c (latest claim)", r.s.Execution.ActiveFeature)
	}
	steps := model.NextSteps(r.s)
	if len(steps) != 3 || steps[0].Agent != "w1" || !strings.Contains(steps[1].Command, "validate b") {
		t.Fatalf("next steps %+v", steps)
	}

	r.validate("c", model.ValidationPassed, model.ScopeTargeted)
	r.validate("a", model.ValidationPassed, model.ScopeTargeted)
	r.review("a", model.ReviewApproved)
	if g := model.CompletionGate(r.s, r.feature("c")); g == nil || g.Code != model.CodeMissingFeatureReview {
		t.Fatalf("c's gate %v: a's review must not count for c", g)
	}
	r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeCompleted})
	r.do(model.RunComplete{Feature: "c", Outcome: model.OutcomeBlocked, Summary: "needs a key"})
	if r.s.Status != model.StatusRunning || r.s.Execution.ActiveFeature != "b" {
		t.Fatalf("status %s, active %q: b still runs", r.s.Status, r.s.Execution.ActiveFeature)
	}
	// A free slot: the next steps offer a claim, and d is claimable.
	if steps := model.NextSteps(r.s); steps[len(steps)-1].Command != "flowdeck flow run start --agent NAME" {
		t.Fatalf("next steps %+v end without a claim", steps)
	}
	r.do(model.RunStart{Agent: "w1"})
	// Resetting a cascades to d, which was active.
	r.do(model.ResetFeature{Feature: "a"})
	if r.s.Execution.ActiveFeature != "b" || r.feature("d").Status != model.FeaturePending {
		t.Fatalf("after reset: active %q, d %s", r.s.Execution.ActiveFeature, r.feature("d").Status)
	}
	r.pass("b")
	if r.s.Status != model.StatusReady || r.s.Execution.ActiveFeature != "" {
		t.Fatalf("status %s, active %q after the last active feature completed", r.s.Status, r.s.Execution.ActiveFeature)
	}
}

func TestMaxParallelIsAPlanField(t *testing.T) {
	p, err := model.ParsePlan([]byte(`{"summary":"s","max_parallel":3,"features":[{"id":"a","title":"A"}]}`))
	if err != nil || p.MaxParallel != 3 {
		t.Fatalf("ParsePlan: %v, max_parallel %d", err, p.MaxParallel)
	}
	if _, err := model.ParsePlan([]byte(`{"summary":"s","features":[{"id":"a","title":"A","agent":"w1"}]}`)); err == nil {
		t.Fatal("a plan may not set a feature's agent")
	}
	for _, m := range []int{-1, model.MaxParallelLimit + 1} {
		r := planningRig(t, mkFeature("a"))
		p := mkPlan(mkFeature("a"))
		p.MaxParallel = m
		e := r.refuse(model.PlanApply{Plan: p}, model.CodePlanInvalid)
		wantMentions(t, e.Message, "max_parallel")
	}
	// A session of today (no max_parallel, no agent) stores no new field.
	r := readyRig(t, mkFeature("a"))
	r.do(model.RunStart{})
	raw, _ := json.Marshal(r.s)
	for _, key := range []string{`"max_parallel"`, `"agent"`, `"active"`} {
		if strings.Contains(string(raw), key) {
			t.Errorf("a max_parallel 1 session stores %s: stored sessions would no longer verify", key)
		}
	}
	if r.s.MaxParallel() != 1 {
		t.Errorf("MaxParallel = %d, want 1", r.s.MaxParallel())
	}
}

// A replan asked for by one agent returns the session to planning; the other
// active feature can still be completed, and the plan cannot be replaced
// until no feature is active.
func TestReplanWhileAnotherFeatureIsActive(t *testing.T) {
	r := parallelRig(t, 2, mkFeature("a"), mkFeature("b"))
	r.do(model.RunStart{Feature: "a", Agent: "w1"})
	r.do(model.RunStart{Feature: "b", Agent: "w2"})
	r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeReplanRequired})
	r.wantSession(model.StatusPlanning, model.ApprovalPending)
	if r.s.Execution.ActiveFeature != "b" {
		t.Fatalf("active feature %q, want b", r.s.Execution.ActiveFeature)
	}
	r.refuse(model.PlanApply{Plan: mkPlan(mkFeature("a"))}, model.CodePlanNotEditable)
	r.do(model.PlanApprove{})
	r.wantSession(model.StatusRunning, model.ApprovalApproved)
	r.pass("b")
	r.wantSession(model.StatusReady, model.ApprovalApproved)
	r.wantNext("flowdeck flow run start")
}
