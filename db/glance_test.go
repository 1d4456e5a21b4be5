package db

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// TestGlanceMatchesSeparateReads: one transaction reads what the three
// separate reads do.
func TestGlanceMatchesSeparateReads(t *testing.T) {
	st := flowStore(t)
	if g, err := st.Glance(); err != nil || g.Active != nil || g.Decisions != nil || g.Agents != nil {
		t.Fatalf("glance of a new project: %+v, %v", g, err)
	}
	mustDo(t, st, model.PlanStart{Goal: "glance"})
	mustDo(t, st, model.PlanApply{Plan: twoFeaturePlan()})
	r := newRun(t, st)
	if _, _, err := st.CreateDecision(&model.Decision{FlowRun: r.ID, Step: "a", Kind: model.DecisionChoice, Prompt: "?",
		Options: []model.DecisionOption{{ID: "yes"}, {ID: "no"}}, Action: 1}, "t", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordAgentEvent(model.AgentEvent{Agent: "opencode", Event: "idle", At: t0}); err != nil {
		t.Fatal(err)
	}
	g, err := st.Glance()
	if err != nil {
		t.Fatal(err)
	}
	active, _ := st.Active()
	pending, _ := st.Decisions(true)
	agents, _ := st.AgentEvents()
	got, _ := json.Marshal([]any{g.Active, g.Decisions, g.Agents})
	want, _ := json.Marshal([]any{active, pending, agents})
	if string(got) != string(want) || len(g.Decisions) != 1 || len(g.Agents) != 1 || g.Active == nil {
		t.Fatalf("glance %s\nreads  %s", got, want)
	}
}
