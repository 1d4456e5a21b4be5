package flows

import (
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/model"
)

// A crew run left by a scheduler of a session since archived is not adopted
// by a scheduler of the session now active: it would resume work on a
// feature of another session (whose feature of the same id it would claim).
func TestCrewAdoptsOnlyTheActiveSessionsRuns(t *testing.T) {
	e, _ := project(t, nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := e.Store.Do(model.PlanStart{ID: "old", Goal: "old goal"}, "tester", now); err != nil {
		t.Fatal(err)
	}
	id, err := e.Store.ReserveFlowRunID("auto")
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]any{VarCrew: true, VarFeature: "f1", VarAgent: "worker-1"}
	if _, err := e.Store.CreateFlowRun(&model.FlowRun{ID: id, Flow: "auto"}, "start", vars, "tester", now); err != nil {
		t.Fatal(err)
	}
	c := &Crew{Engine: e, Flow: &flowfile.Flow{Name: "auto"}}
	if orphans, _ := c.orphans(); len(orphans) != 1 {
		t.Fatalf("the session's own crew run is not adopted: %d orphans", len(orphans))
	}
	if _, err := e.Store.Do(model.PlanStart{ID: "new", Goal: "new goal", Replaces: "old"}, "tester", now); err != nil {
		t.Fatal(err)
	}
	if orphans, claimed := c.orphans(); len(orphans) != 0 || claimed["f1"] {
		t.Fatalf("another session's run adopted: %d orphans, claimed %v", len(orphans), claimed)
	}
}
