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
	// With no decision about it, the interruption itself waits for the
	// person: the session bar counts it.
	for _, want := range []string{"! api", "interrupt", "▶ store", "agent w2 was killed (SIGKILL)",
		"⚑ 1 waiting: interrupted api: agent w2 was killed (SIGKILL)"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("screen lacks %q:\n%s", want, scr)
		}
	}
	// Resumed, nothing waits.
	if _, err := st.Do(model.RunResume{Feature: "api"}, "tester", time.Now()); err != nil {
		t.Fatal(err)
	}
	h.tick()
	h.mustSee("▶ api")
	h.mustNotSee("waiting: interrupted api")
	if testing.Verbose() {
		t.Log(scr)
	}
}
