package model_test

import (
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// An unknown id is unknown even when every remaining feature is completed
// (reached by a replan that keeps only completed features).
func TestRunStartUnknownIDOnFinishedPlan(t *testing.T) {
	r := readyRig(t, mkFeature("a"), mkFeature("b"))
	r.do(model.RunStart{Feature: "a"})
	r.validate("a", model.ValidationPassed, model.ScopeTargeted)
	r.review("a", model.ReviewApproved)
	r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeCompleted})
	r.do(model.RunStart{Feature: "b"})
	r.do(model.RunComplete{Feature: "b", Outcome: model.OutcomeReplanRequired})
	r.do(model.PlanSelect{FeatureIDs: []string{"a"}})
	r.do(model.PlanApprove{})
	r.refuse(model.RunStart{Feature: "nope"}, model.CodeUnknownFeature)
	if ev := r.do(model.RunStart{}); ev[0].Type != model.EventSessionCompleted {
		t.Fatalf("run start on a finished plan = %v, want session_completed", ev[0].Type)
	}
}

// Narrowing the plan forgets execution fields of the dropped features.
func TestPlanSelectForgetsDroppedFeatures(t *testing.T) {
	r := planningRig(t, mkFeature("a"), mkFeature("b"))
	r.do(model.PlanApprove{})
	r.do(model.RunStart{Feature: "b"})
	r.do(model.RunComplete{Feature: "b", Outcome: model.OutcomeReplanRequired})
	if r.s.Execution.LastFeature != "b" {
		t.Fatalf("last feature = %q, want b", r.s.Execution.LastFeature)
	}
	r.do(model.PlanSelect{FeatureIDs: []string{"a"}})
	if x := r.s.Execution; x.LastFeature != "" || x.LastOutcome != "" {
		t.Fatalf("execution still names a dropped feature: %+v", x)
	}
}
