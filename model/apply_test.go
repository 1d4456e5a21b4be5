package model_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// TestReplayRejectsCorruptLogs: verify replays stored logs, so a damaged log
// must come back as an error naming the event, never as a panic or a
// silently different session.
func TestReplayRejectsCorruptLogs(t *testing.T) {
	start := model.Event{Seq: 1, Session: "s1", Type: model.EventSessionStarted, At: baseTime, Goal: "g"}
	plan := mkPlan(mkFeature("a"))
	applied := model.Event{Seq: 2, Session: "s1", Type: model.EventPlanApplied, At: baseTime, Plan: &plan}
	ev := func(seq uint64, typ model.EventType, mod func(*model.Event)) model.Event {
		e := model.Event{Seq: seq, Session: "s1", Type: typ, At: baseTime}
		if mod != nil {
			mod(&e)
		}
		return e
	}
	tests := []struct {
		name string
		log  []model.Event
	}{
		{"event before session_started", []model.Event{ev(1, model.EventNoteAdded, func(e *model.Event) { e.Text = "x" })}},
		{"gap in the sequence", []model.Event{start, ev(3, model.EventNoteAdded, nil)}},
		{"repeated sequence", []model.Event{start, ev(1, model.EventNoteAdded, nil)}},
		{"plan_applied without a plan", []model.Event{start, ev(2, model.EventPlanApplied, nil)}},
		{"plan_selected before any plan", []model.Event{start, ev(2, model.EventPlanSelected, func(e *model.Event) { e.FeatureIDs = []string{"a"} })}},
		{"feature_started before any plan", []model.Event{start, ev(2, model.EventFeatureStarted, func(e *model.Event) { e.Feature = "a" })}},
		{"feature_started of an unknown feature", []model.Event{start, applied, ev(3, model.EventFeatureStarted, func(e *model.Event) { e.Feature = "zz" })}},
		{"validation without evidence", []model.Event{start, applied, ev(3, model.EventValidationRecorded, func(e *model.Event) { e.Feature = "a" })}},
		{"review without a review", []model.Event{start, applied, ev(3, model.EventReviewRecorded, func(e *model.Event) { e.Feature = "a" })}},
		{"feature review of an unknown feature", []model.Event{start, applied, ev(3, model.EventReviewRecorded, func(e *model.Event) {
			e.Review = &model.Review{Feature: "zz", Decision: model.ReviewApproved}
			e.Feature = "zz"
		})}},
		{"reset of an unknown feature", []model.Event{start, applied, ev(3, model.EventFeaturesReset, func(e *model.Event) { e.FeatureIDs = []string{"a", "zz"} })}},
		{"reset before any plan", []model.Event{start, ev(2, model.EventFeaturesReset, func(e *model.Event) { e.FeatureIDs = []string{"a"} })}},
		{"completion of an unknown feature", []model.Event{start, applied, ev(3, model.EventFeatureCompleted, func(e *model.Event) { e.Feature = "zz" })}},
		{"unknown event type", []model.Event{start, ev(2, "feature_teleported", nil)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("Replay panicked: %v", p)
				}
			}()
			s, err := model.Replay(tt.log)
			if err == nil {
				t.Fatalf("Replay accepted a corrupt log: %+v", s)
			}
			last := tt.log[len(tt.log)-1]
			if !strings.Contains(err.Error(), fmt.Sprint(last.Seq)) {
				t.Errorf("error %q does not name event %d", err, last.Seq)
			}
		})
	}
}

func TestExecuteAppliesExactlyTheDecidedEvents(t *testing.T) {
	r := readyRig(t, mkFeature("a"))
	before := r.s.Seq
	c := model.Context{Now: baseTime.Add(99), Actor: "agent"}
	decided, err := model.Decide(r.s, model.RunStart{}, c)
	if err != nil || len(decided) != 1 || decided[0].Seq != before+1 || r.s.Seq != before {
		t.Fatalf("Decide: %v %+v (seq %d)", err, decided, r.s.Seq)
	}
	s, events, err := model.Execute(r.s, model.RunStart{}, c)
	if err != nil || s != r.s || len(events) != 1 || events[0].Type != decided[0].Type || s.Seq != before+1 {
		t.Fatalf("Execute: %v %+v", err, events)
	}
	r.events = append(r.events, events...)
	// A refused action leaves the session alone and returns it.
	s2, events, err := model.Execute(r.s, model.RunStart{}, c)
	if err == nil || s2 != r.s || events != nil {
		t.Fatalf("refused Execute: %v %v", err, events)
	}
}

func TestErrorHelpers(t *testing.T) {
	r := readyRig(t, mkFeature("a"))
	_, err := r.exec(model.RunStart{Feature: "nope"})
	wrapped := fmt.Errorf("flow run start: %w", err)
	e, ok := model.AsError(wrapped)
	if !ok || e.Code != model.CodeUnknownFeature {
		t.Fatalf("AsError(%v) = %v, %v", wrapped, e, ok)
	}
	if got := e.Error(); !strings.HasPrefix(got, "unknown_feature: ") || !strings.Contains(got, "nope") {
		t.Fatalf("Error() = %q", got)
	}
	if _, ok := model.AsError(fmt.Errorf("plain")); ok {
		t.Fatal("AsError found a structured error in a plain one")
	}
	quotes := map[string]string{
		"":             "''",
		"go":           "go",
		"./x-1_a=b:c":  "./x-1_a=b:c",
		"go test ./..": "'go test ./..'",
		"it's":         `'it'\''s'`,
		"$HOME":        "'$HOME'",
		"a;rm -rf":     "'a;rm -rf'",
	}
	for in, want := range quotes {
		if got := model.ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
