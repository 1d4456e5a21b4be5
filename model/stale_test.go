package model

import (
	"strings"
	"testing"
	"time"
)

// Only events that touch what an action decides make it stale; the refusal
// names who changed it and how.
func TestStaleOnlyForWhatTheActionDecides(t *testing.T) {
	at := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	review := func(seq uint64, f string, d ReviewDecision, actor string) Event {
		return Event{Seq: seq, Type: EventReviewRecorded, Feature: f, Actor: actor, At: at, Review: &Review{Feature: f, Decision: d}}
	}
	since := []Event{
		{Seq: 11, Type: EventNoteAdded, Actor: "agent", At: at, Text: "hi"},
		review(12, "other", ReviewApproved, "agent"),
		review(13, "api", ReviewNeedsFix, "bob"),
	}
	if e := Stale(ReviewFeature{Feature: "api", Decision: ReviewApproved}, 10, since); e == nil || e.Code != CodeStaleDecision ||
		!strings.Contains(e.Message, "review of api: needs_fix by bob") {
		t.Fatalf("review of api after bob's needs_fix: %v", e)
	}
	if e := Stale(ReviewFeature{Feature: "api"}, 13, since); e != nil {
		t.Fatalf("nothing after the seen sequence: %v", e)
	}
	if e := Stale(ReviewFeature{Feature: "ui"}, 10, since); e != nil {
		t.Fatalf("unrelated reviews and notes made ui stale: %v", e)
	}
	if e := Stale(ReviewFinal{Decision: ReviewApproved}, 10, since); e == nil {
		t.Fatal("the final review ignores a review recorded after it was drawn")
	}
	reset := []Event{{Seq: 20, Type: EventFeaturesReset, Feature: "root", FeatureIDs: []string{"root", "api"}, Actor: "agent", At: at}}
	if e := Stale(RunComplete{Feature: "api"}, 19, reset); e == nil {
		t.Fatal("completing a feature reset since is not stale")
	}
	if e := Stale(PlanApprove{}, 19, reset); e != nil {
		t.Fatalf("a reset makes plan approval stale: %v", e)
	}
	done := []Event{{Seq: 30, Type: EventSessionCompleted, Actor: "agent", At: at}}
	if e := Stale(ResetFeature{Feature: "x"}, 29, done); e == nil {
		t.Fatal("a session completed since does not make a reset stale")
	}
	if e := Stale(AddNote{Text: "x"}, 29, done); e != nil {
		t.Fatalf("a note is never stale: %v", e)
	}
}
