package model_test

import (
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// An interrupted feature stays claimed (agent, worktree, slot), reads
// interrupted, hints its resume, and is cleared by resume, evidence, a
// review or a reset; the rig checks that replay gives back the same session.
func TestInterruptMarksAndClears(t *testing.T) {
	r := worktreeRig(t, mkFeature("a"), mkFeature("b"))
	r.do(model.RunStart{Feature: "a", Agent: "w1"})
	r.do(model.RunStart{Feature: "b", Agent: "w2"})
	r.refuse(model.RunResume{Feature: "a"}, model.CodeFeatureNotInterrupted)
	r.refuse(model.RunInterrupt{Feature: "ghost"}, model.CodeUnknownFeature)

	ev := r.do(model.RunInterrupt{Feature: "a", Summary: "agent w1 exited 137"})
	if len(ev) != 1 || ev[0].Type != model.EventFeatureInterrupted || ev[0].Agent != "w1" {
		t.Fatalf("events %+v", ev)
	}
	a := r.feature("a")
	if a.Status != model.FeatureInProgress || a.Agent != "w1" || a.Git == nil || a.Interrupted == nil ||
		a.Interrupted.Summary != "agent w1 exited 137" {
		t.Fatalf("interrupted feature %+v", a)
	}
	if st := model.StateOf(r.s, a); st != model.StateInterrupted || st.Glyph() != "!" {
		t.Fatalf("state %s", st)
	}
	if n := len(model.ActiveClaims(r.s)); n != 2 {
		t.Fatalf("claims %d: the interrupted feature keeps its slot", n)
	}
	r.refuse(model.RunStart{Feature: "a"}, model.CodeFeatureAlreadyActive)
	hinted := false
	for _, st := range model.NextSteps(r.s) {
		hinted = hinted || st.Feature == "a" && st.Command == "flowdeck flow run resume a"
	}
	if !hinted {
		t.Fatalf("next steps %+v do not resume a", model.NextSteps(r.s))
	}

	r.do(model.RunResume{Feature: "a"})
	if st := model.StateOf(r.s, r.feature("a")); st != model.StateInProgress {
		t.Fatalf("after resume: %s", st)
	}
	r.do(model.RunInterrupt{Feature: "a", Summary: "again"})
	r.validate("a", model.ValidationPassed, model.ScopeTargeted)
	if st := model.StateOf(r.s, r.feature("a")); st != model.StateAwaitingReview {
		t.Fatalf("after evidence: %s", st)
	}
	r.do(model.RunInterrupt{Feature: "b"})
	r.do(model.ResetFeature{Feature: "b"})
	if f := r.feature("b"); f.Interrupted != nil || model.StateOf(r.s, f) != model.StateRunnable {
		t.Fatalf("after reset: %+v", f)
	}
	r.refuse(model.RunInterrupt{Feature: "b"}, model.CodeFeatureNotActive)
	r.do(model.RunStart{Feature: "b", Agent: "w3"}) // a reassign: reset + claim
	if f := r.feature("b"); f.Interrupted != nil || f.Agent != "w3" {
		t.Fatalf("after reassign: %+v", f)
	}
}
