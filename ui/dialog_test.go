package ui

import (
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// While a review waits the person can look at the runs and the output and
// come back: the dialog stays docked on screen and keeps what it decides.
func TestReviewDialogDocksWhileLookingAround(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	s := &seeder{tb: t, st: st, now: t0}
	s.pass("reset-api", model.ScopeTargeted)
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.mustSee("Review reset-api")
	h.key("4")
	if h.m.focus != layout.Runs || !h.m.docked {
		t.Fatalf("4 in the review: focus %v docked %v", h.m.focus, h.m.docked)
	}
	h.mustSee("Review reset-api", "! back to the dialog")
	h.key("j", "a") // a in the runs pane does not approve
	if f := active(t, st).Plan.Feature("reset-api"); len(f.Reviews) != 0 {
		t.Fatalf("a in the runs pane reviewed: %+v", f.Reviews)
	}
	h.key("!", "a")
	h.mustSee("✓ review of reset-api: approved")
}

// ? opens the help over a dialog and esc comes back to it; q quits from a
// dialog.
func TestHelpAndQuitFromDialog(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "review")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.mustSee("Review reset-api")
	h.key("?")
	h.mustSee("Help", "Review dialog")
	h.key("esc")
	h.mustSee("Review reset-api")
	h.key("q")
	if !h.quit {
		t.Fatal("q in the review dialog does not quit")
	}
}

// Quit asks when the findings hold text not yet sent; n keeps it.
func TestQuitAsksWithUnsentFindings(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "review")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("x")
	h.typeText("no test")
	h.key("ctrl+c")
	h.mustSee("Quit flowdeck?", "A text field holds text you have not sent")
	h.key("n")
	h.mustSee("Request changes to reset-api", "no test")
	h.key("ctrl+c", "y")
	if !h.quit {
		t.Fatal("y does not quit")
	}
}

// The review shows the end of the evidence run's output, where a failure is.
func TestReviewShowsEvidenceTail(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	id := addRun(t, st, t0.Add(-time.Minute), []string{"go", "test", "./reset-api/..."}, "reset-api",
		"=== RUN   TestReset\n--- FAIL: TestExpiry (0.00s)\n    reset_test.go:40: token expired too early\nFAIL\tpw/reset-api\t0.01s\n", 1, false)
	if _, err := st.Do(model.Validate{Feature: "reset-api", Status: model.ValidationPassed, Scope: model.ScopeTargeted,
		Command: "go test ./reset-api/...", Source: model.SourceObserved, RunID: id}, "agent", t0); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.mustSee("Review reset-api", "last lines of run "+id, "--- FAIL: TestExpiry", "reset_test.go:40: token expired too early")
}

// Quit from the help, with typed findings unsent, asks where it can be
// answered.
func TestQuitFromHelpAsksVisibly(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "review")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("x")
	h.typeText("half a thought")
	h.key("f1")
	h.mustSee("Help")
	h.key("q")
	h.mustSee("Quit flowdeck?")
	h.key("y")
	if !h.quit {
		t.Fatal("y does not quit")
	}
}
