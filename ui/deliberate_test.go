package ui

import (
	"fmt"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// printables are every key that types a character: what a person typing a
// search, a filter or a command may press.
func printables() []string {
	var out []string
	for r := rune(0x21); r < 0x7f; r++ {
		out = append(out, string(r))
	}
	return append(out, "space")
}

// storeState is everything a decision could change: the events of every
// session and the pending decisions.
func storeState(t *testing.T, st *db.Store) string {
	t.Helper()
	infos, err := st.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	s := ""
	for _, i := range infos {
		evs, err := st.Events(i.ID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		s += fmt.Sprintf("%s:%d ", i.ID, len(evs))
	}
	ds, err := st.Decisions(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		s += d.ID + ":" + string(d.Status) + " "
	}
	return s
}

// pendingDecisions adds a choice and a form that wait for the person.
func pendingDecisions(t *testing.T, st *db.Store) {
	t.Helper()
	for _, d := range []*model.Decision{
		{Kind: model.DecisionChoice, Prompt: "Ship it?", Options: []model.DecisionOption{{ID: "yes"}, {ID: "no"}}},
		{Kind: model.DecisionForm, Prompt: "Name the release", Fields: []model.DecisionField{{Name: "name", Type: "string"}}},
	} {
		if _, _, err := st.CreateDecision(d, "agent", t0); err != nil {
			t.Fatal(err)
		}
	}
}

// place is somewhere the person can be in: a pane, or a text field.
type place struct {
	name  string
	enter func(h *harness)
}

// settle closes every dialog and text field with esc, as a person would.
func settle(h *harness) {
	h.tb.Helper()
	for i := 0; i < 8 && (h.m.top() != nil || h.m.mode != modeNormal); i++ {
		h.clk.Add(time.Second) // past a dialog's grace period
		if h.m.top() != nil && h.m.docked && !h.m.typing() {
			h.key("!") // back to the docked dialog, to close it
		}
		h.key("esc")
	}
	if h.m.top() != nil || h.m.mode != modeNormal {
		h.tb.Fatalf("esc does not leave mode %d / dialog %v", h.m.mode, h.m.top() != nil)
	}
}

func focusBy(p layout.Pane) func(h *harness) {
	return func(h *harness) {
		settle(h)
		h.key(fmt.Sprint(int(p) + 1))
		if h.m.focus != p {
			h.tb.Fatalf("focus %v, want %v", h.m.focus, p)
		}
	}
}

func contexts() []place {
	var out []place
	for p := layout.Pane(0); p < layout.NumPanes; p++ {
		out = append(out, place{"pane " + p.Title(), focusBy(p)})
	}
	return append(out,
		place{"filter", func(h *harness) { focusBy(layout.Features)(h); h.key("/") }},
		place{"command line", func(h *harness) { settle(h); h.key(":") }},
		place{"runs, the review or plan dialog docked", func(h *harness) {
			focusBy(layout.Features)(h)
			if h.m.sess.Plan.Feature("reset-api") != nil {
				h.key("/")
				h.typeText("reset-api")
				h.key("enter")
			}
			h.key("a", "4")
			if h.m.top() == nil || !h.m.docked || h.m.focus != layout.Runs {
				h.tb.Fatalf("no docked dialog: top %v docked %v focus %v", h.m.top() != nil, h.m.docked, h.m.focus)
			}
		}},
		place{"output search", func(h *harness) { focusBy(layout.Output)(h); h.key("/") }},
		place{"form", func(h *harness) {
			focusBy(layout.Flow)(h)
			h.run(h.m.openDecisionPrompt(h.m.decisions[1], false))
			if h.m.top() == nil || !h.m.top().Typing() {
				h.tb.Fatal("the form does not take text")
			}
		}},
	)
}

// TestPrintableKeysNeverDecide presses every printable key in every pane and
// text field while a review (or the final review, or the plan approval) and
// two decisions wait: nothing is written. Where a key opens a dialog, esc
// closes it unanswered; inside a text field the keys are typed in a row.
func TestPrintableKeysNeverDecide(t *testing.T) {
	for _, sc := range []string{"review", "final", "planning"} {
		t.Run(sc, func(t *testing.T) {
			st := newStore(t)
			if sc == "final" {
				s := &seeder{tb: t, st: st, now: t0.Add(-time.Hour)}
				s.do(model.PlanStart{Goal: "Tiny"})
				s.do(model.PlanApply{Plan: model.Plan{Summary: "one", Features: []model.Feature{{ID: "only", Title: "Only"}}}})
				s.do(model.PlanApprove{})
				s.do(model.RunStart{})
				s.pass("only", model.ScopeBroad)
				s.do(model.ReviewFeature{Feature: "only", Decision: model.ReviewApproved})
			} else {
				scenario(t, st, sc)
			}
			pendingDecisions(t, st)
			before := storeState(t, st)
			h := newHarness(t, st, 120, 40, zeroConfig())
			if len(h.m.waits) < 2 {
				t.Fatalf("waits = %v", h.m.waits)
			}
			for _, c := range contexts() {
				c.enter(h)
				typing := h.m.typing() || h.m.top() != nil
				for _, k := range printables() {
					if !typing {
						c.enter(h)
					}
					h.key(k)
					if len(h.m.jobs) != 0 || len(h.m.flowJobs) != 0 {
						t.Fatalf("%s: %q started something", c.name, k)
					}
					if now := storeState(t, st); now != before {
						t.Fatalf("%s: %q wrote to the store: %s -> %s\n%s", c.name, k, before, now, h.screen())
					}
				}
			}
			settle(h)
		})
	}
}

// A review that starts waiting while the person types into recall does not
// take the keys: the query gets them, and the review opens once the person
// leaves the field.
func TestReviewWaitsWhileRecallTyping(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("6")
	if h.m.mode != modeRecall {
		t.Fatalf("recall focused but mode %d", h.m.mode)
	}
	if _, err := st.Do(model.Validate{Feature: "reset-api", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./reset-api/...", Summary: "8 passed"}, "agent", t0); err != nil {
		t.Fatal(err)
	}
	h.tick()
	h.clk.Add(time.Second)
	seq := active(t, st).Seq
	h.typeText("fail abx")
	if s := active(t, st); s.Seq != seq {
		t.Fatalf("typing into recall changed the session (seq %d -> %d)", seq, s.Seq)
	}
	if got := h.m.recall.Value(); got != "fail abx" {
		t.Fatalf("recall query %q", got)
	}
	h.mustNotSee("Review reset-api")
	h.key("esc")
	h.mustSee("Review reset-api", "! back to the dialog")
	h.key("!", "a")
	h.mustSee("✓ review of reset-api: approved")
}
