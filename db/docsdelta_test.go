package db

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/render"
)

// diamondPlan has a chain, a fan-out and a join, so a state change travels
// to dependents and dependencies in every direction the docs show.
func diamondPlan() model.Plan {
	return model.Plan{Summary: "s", Features: []model.Feature{
		{ID: "root", Title: "Root"},
		{ID: "left", Title: "Left", DependsOn: []string{"root"}},
		{ID: "right", Title: "Right", DependsOn: []string{"root"}},
		{ID: "join", Title: "Join", DependsOn: []string{"left", "right"}},
		{ID: "tail", Title: "Tail", DependsOn: []string{"join"}},
		{ID: "side", Title: "Side", BlockedBy: []string{"left"}},
		{ID: "alone", Title: "Alone"},
	}}
}

// TestIncrementalDocsMatchAFullRender drives random actions (accepted and
// refused, enough to trim the history) and checks after each one that the
// docs on disk, written incrementally, equal a fresh render of every doc.
func TestIncrementalDocsMatchAFullRender(t *testing.T) {
	for seed := uint64(1); seed <= 2; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			st, err := Open(filepath.Join(t.TempDir(), ".flow", "flowdeck.db"), Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			mustDo(t, st, model.PlanStart{Goal: "docs stay true"})
			mustDo(t, st, model.PlanApply{Plan: diamondPlan()})
			mustDo(t, st, model.PlanApprove{})
			rng := rand.New(rand.NewPCG(seed, 7))
			ids := []string{"root", "left", "right", "join", "tail", "side", "alone"}
			for step := 0; step < 700; step++ {
				id := ids[rng.IntN(len(ids))]
				var a model.Action
				switch rng.IntN(7) {
				case 0:
					a = model.RunStart{}
				case 1:
					a = model.Validate{Feature: id, Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./" + id}
				case 2:
					a = model.ReviewFeature{Feature: id, Decision: model.ReviewApproved}
				case 3:
					a = model.RunComplete{Feature: id, Outcome: model.OutcomeCompleted}
				case 4:
					if rng.IntN(4) == 0 {
						a = model.ResetFeature{Feature: id}
					} else {
						a = model.RunComplete{Feature: id, Outcome: model.OutcomeBlocked}
					}
				case 5:
					a = model.AddNote{Text: "note " + id}
				default:
					a = model.RunStart{Feature: id}
				}
				if _, err := st.Do(a, "tester", t0); err != nil {
					if _, ok := model.AsError(err); !ok {
						t.Fatalf("step %d %s: %v", step, a.Name(), err)
					}
				}
				checkDocsMatchFullRender(t, st, step, a)
			}
		})
	}
}

func checkDocsMatchFullRender(t *testing.T, st *Store, step int, a model.Action) {
	t.Helper()
	sess, err := st.Active()
	if err != nil || sess == nil {
		t.Fatalf("active: %v %v", sess, err)
	}
	dir := st.DocsDir(sess.ID)
	want := map[string]string{"index.md": render.RenderIndex(sess)}
	for _, id := range model.DocFeatureIDs(sess) {
		want[filepath.Join("features", id+".md")] = render.RenderFeature(sess, sess.Plan.Feature(id))
	}
	for name, doc := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("step %d (%s): %v", step, a.Name(), err)
		}
		if string(got) != doc {
			t.Fatalf("step %d (%s %+v): %s on disk is stale:\n--- disk\n%s\n--- fresh\n%s", step, a.Name(), a, name, got, doc)
		}
	}
}

// TestTrimmedHistoryRefreshesItsFeatureDoc: when the bounded history drops
// the items of a feature no event names, that feature's doc changes too.
func TestTrimmedHistoryRefreshesItsFeatureDoc(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), ".flow", "flowdeck.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, st, model.PlanStart{Goal: "trim"})
	mustDo(t, st, model.PlanApply{Plan: diamondPlan()})
	mustDo(t, st, model.PlanApprove{})
	mustDo(t, st, model.RunStart{Feature: "root"})
	mustDo(t, st, model.Validate{Feature: "root", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test"})
	mustDo(t, st, model.ReviewFeature{Feature: "root", Decision: model.ReviewApproved})
	mustDo(t, st, model.RunComplete{Feature: "root", Outcome: model.OutcomeCompleted})
	mustDo(t, st, model.RunStart{Feature: "alone"})
	for i := 0; i < 2*model.MaxHistory; i++ {
		mustDo(t, st, model.Validate{Feature: "alone", Status: model.ValidationFailed, Scope: model.ScopeTargeted, Command: "go test"})
	}
	checkDocsMatchFullRender(t, st, 2*model.MaxHistory, model.Validate{})
}

// Docs someone deleted come back whole at the next action, even one (a note)
// that touches no feature.
func TestDeletedDocsAreRenderedAgain(t *testing.T) {
	st := newStore(t)
	sess := mustDo(t, st, model.PlanStart{Goal: "docs come back"}).Session
	mustDo(t, st, model.PlanApply{Plan: diamondPlan()})
	if err := os.RemoveAll(st.DocsDir(sess.ID)); err != nil {
		t.Fatal(err)
	}
	mustDo(t, st, model.AddNote{Text: "hi"})
	checkDocsMatchFullRender(t, st, 0, model.AddNote{})
}
