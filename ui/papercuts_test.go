package ui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// Issue 23, "a newcomer's first hour": the cockpit's papercuts, each driven
// through the real root model with key presses.

// The help says where it is scrolled to and that more is below (or above).
func TestHelpShowsItsPosition(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 80, 24, zeroConfig())
	h.key("?")
	h.mustSee("1–19 of ", " ↓ ─╯")
	h.key("j", "j")
	h.mustSee("3–21 of ", " ↑↓ ─╯")
	h.key("G")
	h.mustSee(" ↑ ─╯", "rebind keys")
	h.mustNotSee("↓ ─╯")
}

// The help filters as you type: after / or with any key the help does not
// bind; enter keeps the filter (j and k scroll again), esc clears it, and
// esc again closes the help.
func TestHelpFiltersAsYouType(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 80, 24, zeroConfig())
	h.key("?", "/")
	h.typeText("reset")
	h.mustSee("/reset", "Features · graph · detail", "r  reset", "R  reset session", "/flow-reset feature ID")
	h.mustNotSee("mouse on/off", "approve the plan")
	h.key("esc")
	h.mustSee("mouse on/off")
	h.mustNotSee("│ /reset")

	// Just typing: w is no key of the help's, so it starts the filter.
	h.typeText("wrap")
	h.mustSee("/wrap", "w  wrap")
	h.mustNotSee("mouse on/off")
	h.key("enter", "j")
	h.mustSee("/wrap") // j scrolled: it was not typed
	h.mustNotSee("/wrapj")
	h.key("esc")
	h.mustSee("mouse on/off", "Help")
	h.key("esc")
	h.mustNotSee("Help")
	if h.m.mode != modeNormal {
		t.Fatalf("mode %d after esc, esc", h.m.mode)
	}

	h.key("?")
	h.typeText("zzqx")
	h.mustSee(`no key or command matches "zzqx"`)
}

// A paste while the help is open filters the help; it never reaches the
// text field of the dialog under it.
func TestPasteIntoHelpFilters(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "review")
	h := newHarness(t, st, 80, 24, zeroConfig())
	h.key("x", "f1") // the findings field, then the help over it
	h.send(tea.PasteMsg{Content: "wrap"})
	h.mustSee("/wrap", "w  wrap")
	h.mustNotSee("mouse on/off")
	h.key("esc", "esc")
	d, ok := h.m.top().(*findingsDialog)
	if !ok {
		t.Fatalf("the findings dialog is not back:\n%s", h.screen())
	}
	if v := d.input.Value(); v != "" {
		t.Fatalf("the paste went into the findings under the help: %q", v)
	}
}

// In a text field j and k are typed: the help lists, for the recall query,
// the command line, the features filter and the output search, only the
// keys that act there (the arrows move), and says so.
func TestHelpIsRightForTextFields(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 80, 200, zeroConfig()) // tall: the whole help on screen
	h.key("?")
	scr := h.screen()
	for _, field := range []string{"Recall", "Command line"} {
		i := strings.Index(scr, "│ "+field)
		if i < 0 {
			t.Fatalf("no %s section in the help:\n%s", field, scr)
		}
		section := scr[i:]
		section = section[:strings.Index(section, "│                ")] // to the blank line after it
		if !strings.Contains(section, "text field") {
			t.Errorf("the %s section does not say it is a text field:\n%s", field, section)
		}
		for _, bad := range []string{"k/", "j/", "│   k ", "│   j "} {
			if strings.Contains(section, bad) {
				t.Errorf("the %s section claims a letter key (%q) acts there:\n%s", field, bad, section)
			}
		}
		if !strings.Contains(section, "↑") || !strings.Contains(section, "↓") {
			t.Errorf("the %s section does not say which keys move there:\n%s", field, section)
		}
	}
}

// :q and :quit quit, as in vim and k9s.
func TestColonQQuits(t *testing.T) {
	for _, line := range []string{"q", "quit", "/quit"} {
		t.Run(line, func(t *testing.T) {
			st := newStore(t)
			scenario(t, st, "running")
			h := newHarness(t, st, 80, 24, zeroConfig())
			h.key(":")
			h.typeText(line)
			h.key("enter")
			if !h.quit {
				t.Fatalf(":%s did not quit:\n%s", line, h.screen())
			}
		})
	}
}

// The findings dialog's enter sends the findings; its footer says so.
func TestFindingsFooterSaysSend(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "review")
	h := newHarness(t, st, 80, 24, zeroConfig())
	h.key("x")
	h.mustSee("Request changes to reset-api", "enter send", "esc back to the review")
	h.mustNotSee("enter open")
	h.typeText("no test for expiry")
	h.key("enter")
	h.mustSee("review of reset-api: needs_fix")
}

// finalReviewByFlow seeds a session whose last feature, claimed by
// worker-1, waits for the final review, which worker-1's run flow asks.
func finalReviewByFlow(t *testing.T, st *db.Store) {
	t.Helper()
	s := &seeder{tb: t, st: st, now: t0.Add(-time.Hour)}
	s.do(model.PlanStart{Goal: "Tiny"})
	s.do(model.PlanApply{Plan: model.Plan{Summary: "one", Features: []model.Feature{{ID: "only", Title: "Only"}}}})
	s.do(model.PlanApprove{})
	s.do(model.RunStart{Feature: "only", Agent: "worker-1"})
	s.pass("only", model.ScopeBroad)
	s.do(model.ReviewFeature{Feature: "only", Decision: model.ReviewApproved})
	id := busyFlow(t, st, "only", "worker-1")
	crewDecision(t, st, &model.Decision{FlowRun: id, Flow: "run", Step: "final-confirm", Kind: model.DecisionChoice,
		Prompt:  "Final review of the session — approve it (the session completes), ask for fixes (note), or block it?",
		Options: []model.DecisionOption{{ID: "approved"}, {ID: "needs_fix"}, {ID: "blocked"}}}, t0.Add(-time.Minute))
}

// The session bar names a flow's final review as the final review, not as
// the review of the last feature.
func TestSessionBarNamesTheFinalReview(t *testing.T) {
	st := newStore(t)
	finalReviewByFlow(t, st)
	h := newHarness(t, st, 160, 48, zeroConfig())
	h.mustSee("⚑ 1 waiting: final review")
	h.mustNotSee("review only")
	if title := h.m.View().WindowTitle; !strings.Contains(title, "final review") {
		t.Fatalf("title %q", title)
	}
}

// A plan flow asking for the plan's approval is one thing waiting, not two
// (the session's approval and the flow's question).
func TestPlanApprovalCountedOnce(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "planning")
	f, source, err := flows.Load(filepath.Dir(st.Dir()), "plan")
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.ReserveFlowRunID("plan")
	if err != nil {
		t.Fatal(err)
	}
	holdFlowLock(t, st, id)
	if _, err := st.CreateFlowRun(&model.FlowRun{ID: id, Flow: "plan", Source: source, Hash: f.Hash, Text: f.Source, Args: []string{"Password reset"}, MaxSteps: 1000},
		"start", map[string]any{}, "human", t0.Add(-30*time.Minute)); err != nil {
		t.Fatal(err)
	}
	crewDecision(t, st, &model.Decision{FlowRun: id, Flow: "plan", Step: "review", Kind: model.DecisionChoice,
		Prompt:  "Approve this plan, narrow it to some features (name them in the note), or reject it (say why in the note)?",
		Options: []model.DecisionOption{{ID: "approve"}, {ID: "narrow"}, {ID: "reject"}}}, t0.Add(-time.Minute))
	h := newHarness(t, st, 160, 48, zeroConfig())
	h.mustSee("⚑ 1 waiting: plan approval")
	h.mustNotSee("2 waiting")
}

// reviewWithTail seeds reset-api waiting for its review, its evidence a
// run whose last lines the review dialog shows.
func reviewWithTail(t *testing.T, st *db.Store) {
	t.Helper()
	s := &seeder{tb: t, st: st, now: t0.Add(-time.Hour)}
	s.do(model.PlanStart{Goal: "Password reset"})
	s.do(model.PlanApply{Plan: demoPlan()})
	s.do(model.PlanApprove{})
	s.complete("token-store")
	s.complete("mailer")
	s.do(model.RunStart{Feature: "reset-api"})
	run := addRun(t, st, t0.Add(-10*time.Minute), []string{"go", "test", "./reset-api/..."}, "reset-api",
		"=== RUN   TestReset\n--- PASS: TestReset (0.02s)\n=== RUN   TestExpiry\n--- PASS: TestExpiry (0.01s)\nok  \tpw/reset-api\t0.05s\n", 0, false)
	s.do(model.Validate{Feature: "reset-api", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./reset-api/...",
		Summary: "2 passed", Source: model.SourceObserved, RunID: run})
}

// At the documented minimum, 40x12, a review dialog with a note above it
// keeps its top edge, its title and its keys on screen, under the whole
// session bar.
func TestReviewDialogFitsAt40x12(t *testing.T) {
	st := newStore(t)
	reviewWithTail(t, st)
	h := newHarness(t, st, 40, 12, zeroConfig())
	h.mustSee("Review reset-api")
	h.key("esc", "a") // later, then open it again: the note stays above it
	lines := strings.Split(strings.TrimSuffix(h.screen(), "\n"), "\n")
	if len(lines) != 12 {
		t.Fatalf("%d lines at 40x12:\n%s", len(lines), h.screen())
	}
	if !strings.HasPrefix(lines[0], " Password re") || !strings.Contains(lines[0], "2/8 done") {
		t.Fatalf("the session bar is overdrawn:\n%s", h.screen())
	}
	top := -1
	for i, l := range lines {
		if layout.Width(l) > 40 {
			t.Fatalf("line %d runs past 40 columns (boxes drawn over each other):\n%s", i, h.screen())
		}
		if strings.HasPrefix(l, "╭─ Review reset-api") {
			top = i
		}
	}
	if top < 2 {
		t.Fatalf("the review dialog's top edge is not on screen below the session bar:\n%s", h.screen())
	}
	h.mustSee("a approve", "still waits")
}

// Below the minimum size the cockpit says so in words that fit whole, at
// any size: no line is wider than the terminal or cut mid-word, and there
// are no more lines than rows.
func TestTooSmallMessageFitsAnySize(t *testing.T) {
	st := newStore(t)
	h := newHarness(t, st, 80, 24, zeroConfig())
	for w := 1; w <= 60; w++ {
		for ht := 1; ht <= 14; ht++ {
			if w >= 40 && ht >= 12 {
				continue
			}
			h.send(windowSize(w, ht))
			v := h.m.View().Content
			lines := strings.Split(v, "\n")
			if len(lines) > ht {
				t.Fatalf("%dx%d: %d lines: %q", w, ht, len(lines), v)
			}
			for _, l := range lines {
				if layout.Width(l) > w || strings.HasSuffix(l, "…") {
					t.Fatalf("%dx%d: line %q does not fit whole", w, ht, l)
				}
			}
			if w >= 5 && !strings.Contains(v, "40x12") {
				t.Fatalf("%dx%d: %q does not name the minimum", w, ht, v)
			}
		}
	}
}

// At 80 columns the hint bar keeps the keys that matter (approve, and reset,
// which the README's demo asks for) and drops the less important ones
// first; the key of the session's next step is always kept.
func TestHintBarKeepsWhatMattersAt80(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 80, 24, zeroConfig())
	lines := strings.Split(strings.TrimSuffix(h.screen(), "\n"), "\n")
	bar := lines[len(lines)-1]
	for _, k := range []string{"a approve", "r reset", "tab next pane", "v verify", "? help", "q quit"} {
		if !strings.Contains(bar, k) {
			t.Errorf("the hint bar at 80 columns lacks %q: %q", k, bar)
		}
	}
	if strings.Contains(bar, "…") {
		t.Errorf("the hint bar is cut: %q", bar)
	}
}

// The next command in the session bar is whole, or cut after a whole word
// (" …"), or only its key: never cut inside a word ("f…"), at any width.
func TestNextCommandNeverCutMidWord(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "review")
	h := newHarness(t, st, 80, 24, zeroConfig())
	full := "next (a): " + model.NextCommand(active(t, st))
	for w := 40; w <= 200; w++ {
		h.send(windowSize(w, 24))
		l2 := strings.Split(h.screen(), "\n")[1]
		i := strings.Index(l2, "next")
		if i < 0 {
			continue // no room: left out
		}
		next := l2[i:]
		if next != full && next != "next: a" && !(strings.HasSuffix(next, " …") && strings.HasPrefix(full, strings.TrimSuffix(next, " …"))) {
			t.Fatalf("%d columns: the next command is cut mid-word: %q", w, next)
		}
		if w == 80 && next != "next: a" {
			t.Fatalf("80 columns: %q, want the key alone", next)
		}
	}
}

// A list's position in its frame reads as a position ("feature 3 of 8"),
// not as a second progress count under the session bar's "2/8 done".
func TestPositionsDoNotReadAsProgress(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	addRun(t, st, t0.Add(-5*time.Minute), []string{"make"}, "", "ok\n", 0, false)
	h := newHarness(t, st, 160, 48, zeroConfig())
	h.mustSee("2/8 done", "feature 3 of 8 ─", "run 1 of 4 ─")
	h.mustNotSee(" 3/8 ", " 1/4 ")
	if title := h.m.View().WindowTitle; !strings.Contains(title, "2/8 done") {
		t.Fatalf("title %q", title)
	}
}
