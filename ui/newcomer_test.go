package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// Tests of issue 23: what a newcomer meets in the first hour.

// A feature blocked while the session runs on (another feature is active)
// says why in its row, in the session bar (it waits for the person) and in
// the reset prompt, not only at the bottom of its doc.
func TestBlockReasonShown(t *testing.T) {
	st := newStore(t)
	plan := model.Plan{Summary: "two at once", MaxParallel: 2, Features: []model.Feature{
		{ID: "store", Title: "Store"}, {ID: "api", Title: "API"}, {ID: "ui", Title: "UI", DependsOn: []string{"store", "api"}},
	}}
	for _, a := range []model.Action{model.PlanStart{Goal: "parallel"}, model.PlanApply{Plan: plan}, model.PlanApprove{},
		model.RunStart{Feature: "store", Agent: "w1"}, model.RunStart{Feature: "api", Agent: "w2"},
		model.RunComplete{Feature: "api", Outcome: model.OutcomeBlocked, Summary: "needs an SMTP sandbox\nand more"}} {
		if _, err := st.Do(a, "tester", t0.Add(-time.Minute)); err != nil {
			t.Fatalf("%s: %v", a.Name(), err)
		}
	}
	if s := active(t, st); s.Status != model.StatusRunning {
		t.Fatalf("session %s, want running on", s.Status)
	}
	h := newHarness(t, st, 80, 24, zeroConfig())
	lines := strings.Split(h.screen(), "\n")
	if !strings.Contains(lines[1], "blocked api: needs an SMTP sandbox") {
		t.Errorf("the session bar does not say why api is blocked:\n%s", h.screen())
	}
	row := ""
	for _, l := range lines {
		if strings.Contains(l, "■ api") {
			row = l
		}
	}
	if !strings.Contains(row, "blocked") || !strings.Contains(row, "needs an SMTP sandbox") || strings.Contains(row, "and more") {
		t.Errorf("api's row does not say why on one line: %q\n%s", row, h.screen())
	}
	h.key("1", "g", "j", "r")
	h.mustSee("Reset api?", "Blocked: needs an SMTP sandbox")
}

// agentMovesOn completes reset-api and starts rate-limit behind the
// cockpit's back, as an agent does, and lets the cockpit's poll see it.
func agentMovesOn(h *harness) {
	h.tb.Helper()
	s := &seeder{tb: h.tb, st: h.st, now: t0}
	s.pass("reset-api", model.ScopeTargeted)
	s.do(model.ReviewFeature{Feature: "reset-api", Decision: model.ReviewApproved})
	s.do(model.RunComplete{Feature: "reset-api", Outcome: model.OutcomeCompleted})
	s.do(model.RunStart{Feature: "rate-limit"})
	h.tick()
	h.pump(10*time.Second, "the cockpit to load the agent's move", func() bool {
		return h.m.sess != nil && h.m.sess.Execution.ActiveFeature == "rate-limit"
	})
}

// selectedRow is the feature the features pane marks as selected.
func (h *harness) selectedRow() string {
	for _, l := range strings.Split(h.screen(), "\n") {
		if i := strings.Index(l, "│›"); i >= 0 {
			if f := strings.Fields(l[i+len("│›"):]); len(f) > 1 {
				return f[1]
			}
		}
	}
	return ""
}

// The selection follows the agent, but not under the person's fingers:
// keys pressed a moment after it moved act where it was (k k lands two
// above the feature they saw), and a move that arrives a moment after a
// key waits until the person has been still for a while.
func TestSelectionStillAroundKeys(t *testing.T) {
	t.Run("keys just after a move", func(t *testing.T) {
		st := newStore(t)
		scenario(t, st, "running")
		h := newHarness(t, st, 80, 24, zeroConfig())
		if got := h.selectedRow(); got != "reset-api" {
			t.Fatalf("selected %q, want the active reset-api", got)
		}
		agentMovesOn(h)
		if got := h.selectedRow(); got != "rate-limit" {
			t.Fatalf("selected %q: the selection should follow the agent to rate-limit", got)
		}
		h.clk.Add(300 * time.Millisecond) // the person was already pressing k
		h.key("k", "k")
		if got := h.selectedRow(); got != "token-store" {
			t.Fatalf("k k a moment after the agent moved on selected %q, want token-store (two above reset-api, which the person saw)", got)
		}
	})
	t.Run("a move just after a key", func(t *testing.T) {
		st := newStore(t)
		scenario(t, st, "running")
		h := newHarness(t, st, 80, 24, zeroConfig())
		h.key("2") // the graph: not a move, the selection still follows
		h.clk.Add(500 * time.Millisecond)
		agentMovesOn(h)
		if got := h.selectedRow(); got != "reset-api" {
			t.Fatalf("selected %q a moment after a key press, want reset-api where it was", got)
		}
		h.clk.Add(followQuiet)
		h.tick()
		if got := h.selectedRow(); got != "rate-limit" {
			t.Fatalf("selected %q once the person was still, want rate-limit (it follows again)", got)
		}
	})
}

// The feature that completes the session: the next command offers broad
// validation first (every verification command of the plan, not the
// feature's own package), v runs it, and the path is v → review → final
// review → C, with no refusal and no second review.
func TestLastFeaturePath(t *testing.T) {
	st := newStore(t)
	plan := model.Plan{Summary: "two", Features: []model.Feature{
		{ID: "store", Title: "Store", Verification: []string{"echo store-checked"}},
		{ID: "cli", Title: "CLI", DependsOn: []string{"store"}, Verification: []string{"echo cli-checked"}},
	}}
	s := &seeder{tb: t, st: st, now: t0.Add(-time.Hour)}
	s.do(model.PlanStart{Goal: "last feature"})
	s.do(model.PlanApply{Plan: plan})
	s.do(model.PlanApprove{})
	s.do(model.RunStart{Feature: "store"})
	s.do(model.Validate{Feature: "store", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "echo store-checked", Source: model.SourceReported})
	s.do(model.ReviewFeature{Feature: "store", Decision: model.ReviewApproved})
	s.do(model.RunComplete{Feature: "store", Outcome: model.OutcomeCompleted})
	s.do(model.RunStart{Feature: "cli"})

	h := newHarness(t, st, 160, 40, zeroConfig())
	h.mustSee("next (v): flowdeck flows verify cli --scope broad")
	h.key("1", "v")
	h.mustSee("every verification command of the plan", "echo store-checked", "echo cli-checked", "broad evidence on cli")
	h.keyAsync("y")
	h.pump(20*time.Second, "the broad validation to finish", func() bool { return len(h.m.jobs) == 0 && !h.m.loading })
	h.tick()
	h.pump(10*time.Second, "the review to wait", func() bool {
		return strings.Contains(h.screen(), "next (a): flowdeck flow review cli")
	})
	if s := active(t, st); model.LatestBroad(s.Plan.Feature("cli")) == nil {
		t.Fatal("v recorded no broad evidence")
	}
	// The review, then the final review, each in its dialog.
	for _, what := range []string{"flowdeck flow review --final", "next (C): flowdeck flow run complete cli"} {
		h.clk.Add(time.Second)
		h.tick()
		if h.m.top() == nil {
			h.key("a")
		}
		h.clk.Add(time.Second)
		h.key("a")
		h.tick()
		h.pump(10*time.Second, what, func() bool { return strings.Contains(h.screen(), what) })
	}
	h.key("C")
	h.key("y")
	h.tick()
	h.pump(10*time.Second, "the session to complete", func() bool {
		s := active(t, st)
		return s != nil && s.Status == model.StatusCompleted
	})
}

// A finished run that printed nothing says so, and how it ended, instead
// of "no output yet".
func TestOutputOfSilentRun(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "review")
	addRun(t, st, t0, []string{"true"}, "reset-api", "", 0, false)
	h := newHarness(t, st, 160, 48, zeroConfig())
	h.key("esc", "4", "enter")
	h.mustSee("the run printed nothing (exit 0)")
	h.mustNotSee("no output yet")
}

// An agent's live line is the newest line that says something: not the
// closing fence of a markdown block nor a JSON answer's last bracket.
func TestAgentLiveLineSkipsMarkup(t *testing.T) {
	st := newStore(t)
	c := seedCrew(t, st)
	crewRun(t, st, "20260314-092000.000-aaaaa9", c.agents[0], c.flowRuns[0], "", t0.Add(-time.Minute),
		"All done: the store is written.\n```json\n{\"outcome\": \"completed\",\n \"summary\": \"store\"\n}\n```\n", false)
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("esc", "8")
	h.mustSee("All done: the store is written.")
	for _, l := range strings.Split(h.screen(), "\n") {
		if strings.Contains(l, c.agents[0]) && (strings.Contains(l, "```") || strings.HasSuffix(strings.TrimRight(l, "│ "), "}")) {
			t.Errorf("the live line is markup: %q", l)
		}
	}
}
