package ui

import (
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// With several features active (max_parallel 2) the session bar and the
// terminal title name each one with the agent that claimed it.
func TestBarNamesEveryActiveFeatureWithItsAgent(t *testing.T) {
	st := newStore(t)
	plan := model.Plan{Summary: "two at once", MaxParallel: 2, Features: []model.Feature{
		{ID: "store", Title: "Store"}, {ID: "api", Title: "API"}, {ID: "ui", Title: "UI", DependsOn: []string{"store", "api"}},
	}}
	for _, a := range []model.Action{model.PlanStart{Goal: "parallel"}, model.PlanApply{Plan: plan}, model.PlanApprove{},
		model.RunStart{Feature: "store", Agent: "w1"}, model.RunStart{Feature: "api", Agent: "w2"}} {
		if _, err := st.Do(a, "tester", time.Now()); err != nil {
			t.Fatalf("%s: %v", a.Name(), err)
		}
	}
	h := newHarness(t, st, 160, 40, zeroConfig())
	h.mustSee("active store (agent w1), api (agent w2)")
}
