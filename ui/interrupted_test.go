package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// A feature whose agent crashed reads interrupted in the features and DAG
// panes (its own glyph and label) and the detail pane says why.
func TestPanesShowInterruptedFeature(t *testing.T) {
	st := newStore(t)
	plan := model.Plan{Summary: "two at once", MaxParallel: 2, Features: []model.Feature{{ID: "store", Title: "Store"}, {ID: "api", Title: "API"}}}
	for _, a := range []model.Action{model.PlanStart{Goal: "parallel"}, model.PlanApply{Plan: plan}, model.PlanApprove{},
		model.RunStart{Feature: "store", Agent: "w1"}, model.RunStart{Feature: "api", Agent: "w2"},
		model.RunInterrupt{Feature: "api", Summary: "agent w2 was killed (SIGKILL)"},
	} {
		if _, err := st.Do(a, "tester", time.Now()); err != nil {
			t.Fatalf("%s: %v", a.Name(), err)
		}
	}
	h := newHarness(t, st, 160, 48, zeroConfig())
	scr := strings.ReplaceAll(h.screen(), "\u00a0", " ")
	for _, want := range []string{"! api", "interrupt", "▶ store", "agent w2 was killed (SIGKILL)"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("screen lacks %q:\n%s", want, scr)
		}
	}
	if testing.Verbose() {
		t.Log(scr)
	}
}
