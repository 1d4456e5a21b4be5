package model_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// diamond: a; b and c depend on a; d depends on b and c; e stands alone.
func diamond() []model.Feature {
	return []model.Feature{mkFeature("a"), mkFeature("b", "a"), mkFeature("c", "a"), mkFeature("d", "b", "c"), mkFeature("e")}
}

// chain: a <- b <- c <- d, x is blocked_by b, y stands alone.
func chain() []model.Feature {
	return []model.Feature{mkFeature("a"), mkFeature("b", "a"), mkFeature("c", "b"), mkFeature("d", "c"), blockedBy(mkFeature("x"), "b"), mkFeature("y")}
}

func featureJSON(t *testing.T, f *model.Feature) string {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestResetCascade(t *testing.T) {
	tests := []struct {
		name     string
		features []model.Feature
		setup    func(r *testRig) // leaves the session in some mid-run state
		reset    string
		want     []string // features reset, in plan order
		status   model.SessionStatus
	}{
		{
			name: "diamond root with the active feature downstream", features: diamond(),
			setup: func(r *testRig) {
				r.finish("e")
				r.finish("a")
				r.finish("b")
				r.do(model.RunStart{Feature: "c"})
				r.validate("c", model.ValidationFailed, model.ScopeTargeted)
				r.review("c", model.ReviewNeedsFix)
			},
			reset: "a", want: []string{"a", "b", "c", "d"}, status: model.StatusReady,
		},
		{
			name: "diamond middle keeps the other branch", features: diamond(),
			setup: func(r *testRig) {
				r.finish("a")
				r.finish("b")
				r.finish("c")
				r.do(model.RunStart{Feature: "d"})
			},
			reset: "b", want: []string{"b", "d"}, status: model.StatusReady,
		},
		{
			name: "diamond leaf touches nothing else", features: diamond(),
			setup: func(r *testRig) {
				r.finish("a")
				r.finish("c")
				r.do(model.RunStart{Feature: "b"})
				r.validate("b", model.ValidationPassed, model.ScopeTargeted)
			},
			reset: "d", want: []string{"d"}, status: model.StatusRunning,
		},
		{
			name: "chain root through a blocked_by edge", features: chain(),
			setup: func(r *testRig) {
				r.finish("a")
				r.finish("b")
				r.finish("x")
				r.finish("y")
				r.do(model.RunStart{Feature: "c"})
				r.do(model.RunComplete{Feature: "c", Outcome: model.OutcomeBlocked})
			},
			reset: "a", want: []string{"a", "b", "c", "d", "x"}, status: model.StatusReady,
		},
		{
			name: "chain middle", features: chain(),
			setup: func(r *testRig) {
				r.finish("a")
				r.finish("b")
				r.finish("c")
				r.finish("x")
			},
			reset: "b", want: []string{"b", "c", "d", "x"}, status: model.StatusReady,
		},
		{
			name: "active feature outside the reset stays active", features: chain(),
			setup: func(r *testRig) {
				r.finish("a")
				r.finish("b")
				r.do(model.RunStart{Feature: "y"})
				r.validate("y", model.ValidationPassed, model.ScopeTargeted)
			},
			reset: "c", want: []string{"c", "d"}, status: model.StatusRunning,
		},
		{
			name: "unapproved session goes back to planning", features: chain(),
			setup: func(r *testRig) {
				r.finish("a")
				r.do(model.RunStart{Feature: "b"})
				r.do(model.RunComplete{Feature: "b", Outcome: model.OutcomeReplanRequired})
			},
			reset: "a", want: []string{"a", "b", "c", "d", "x"}, status: model.StatusPlanning,
		},
		{
			name: "completed session reopens", features: []model.Feature{mkFeature("a"), mkFeature("b", "a")},
			setup: func(r *testRig) {
				r.finish("a")
				r.finish("b")
			},
			reset: "b", want: []string{"b"}, status: model.StatusReady,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := readyRig(t, tt.features...)
			tt.setup(r)
			if got := model.Downstream(r.s.Plan.Features, tt.reset); !slices.Equal(append([]string{tt.reset}, got...), tt.want) {
				t.Fatalf("test premise: Downstream(%s) = %v, want %v", tt.reset, got, tt.want[1:])
			}
			before := map[string]string{}
			for i := range r.s.Plan.Features {
				before[r.s.Plan.Features[i].ID] = featureJSON(t, &r.s.Plan.Features[i])
			}
			x := r.s.Execution
			approval, approvedAt := r.s.Approval, r.s.Timestamps.Approved

			ev := r.do(model.ResetFeature{Feature: tt.reset})
			if len(ev) != 1 || ev[0].Type != model.EventFeaturesReset || !slices.Equal(ev[0].FeatureIDs, tt.want) {
				t.Fatalf("events %+v, want one features_reset of %v", ev, tt.want)
			}

			for i := range r.s.Plan.Features {
				f := &r.s.Plan.Features[i]
				if !slices.Contains(tt.want, f.ID) {
					if got := featureJSON(t, f); got != before[f.ID] {
						t.Errorf("%s was not reset but changed:\n%s\n%s", f.ID, before[f.ID], got)
					}
					continue
				}
				if f.Status != model.FeaturePending || f.StartedSeq != 0 || len(f.Validations) != 0 || len(f.Reviews) != 0 || f.Outcome != "" || f.OutcomeNote != "" {
					t.Errorf("%s not fully reset: %+v", f.ID, f)
				}
				if f.Title == "" || !slices.Equal(f.DependsOn, tt.features[i].DependsOn) || !slices.Equal(f.BlockedBy, tt.features[i].BlockedBy) {
					t.Errorf("%s lost its plan data: %+v", f.ID, f)
				}
			}

			nx := r.s.Execution
			wasReset := func(id string) bool { return slices.Contains(tt.want, id) }
			switch {
			case wasReset(x.ActiveFeature) && nx.ActiveFeature != "":
				t.Errorf("active feature %s was reset but is still active", x.ActiveFeature)
			case !wasReset(x.ActiveFeature) && nx.ActiveFeature != x.ActiveFeature:
				t.Errorf("active feature changed from %q to %q", x.ActiveFeature, nx.ActiveFeature)
			}
			if x.LastValidation != nil && wasReset(x.LastValidation.Feature) != (nx.LastValidation == nil) {
				t.Errorf("last validation of %s: before %v after %v", x.LastValidation.Feature, x.LastValidation, nx.LastValidation)
			}
			if x.LastReview != nil && !x.LastReview.Final && wasReset(x.LastReview.Feature) != (nx.LastReview == nil) {
				t.Errorf("last review of %s: before %v after %v", x.LastReview.Feature, x.LastReview, nx.LastReview)
			}
			if x.LastFeature != "" && wasReset(x.LastFeature) != (nx.LastFeature == "" && nx.LastOutcome == "") {
				t.Errorf("last feature %s/%s after reset: %q/%q", x.LastFeature, x.LastOutcome, nx.LastFeature, nx.LastOutcome)
			}
			if r.s.Status != tt.status || r.s.Approval != approval || r.s.Timestamps.Approved != approvedAt && !r.s.Timestamps.Approved.Equal(*approvedAt) {
				t.Errorf("session %s/%s, want %s/%s with the approval kept", r.s.Status, r.s.Approval, tt.status, approval)
			}
			if r.s.Timestamps.Completed != nil {
				t.Error("completed timestamp survived a reset")
			}
		})
	}
}

func TestResetClearsWhatBelongsToTheResetFeatures(t *testing.T) {
	// The diamond root case, checked field by field.
	r := readyRig(t, diamond()...)
	r.finish("a")
	r.do(model.RunStart{Feature: "b"})
	r.validate("b", model.ValidationPassed, model.ScopeTargeted)
	r.review("b", model.ReviewApproved)
	if x := r.s.Execution; x.ActiveFeature != "b" || x.LastValidation.Feature != "b" || x.LastReview.Feature != "b" || x.LastFeature != "a" {
		t.Fatalf("test premise: %+v", x)
	}
	r.do(model.ResetFeature{Feature: "a"})
	x := r.s.Execution
	if x.ActiveFeature != "" || x.LastValidation != nil || x.LastReview != nil || x.LastFeature != "" || x.LastOutcome != "" {
		t.Fatalf("execution after resetting a: %+v", x)
	}
	r.wantSession(model.StatusReady, model.ApprovalApproved)
	r.wantNext("flowdeck flow run start")
	if got := r.statuses(); got != "a=pending b=pending c=pending d=pending e=pending" {
		t.Fatalf("statuses %s", got)
	}
	// Work starts over from the root.
	if ev := r.do(model.RunStart{}); ev[0].Feature != "a" {
		t.Fatalf("restart picked %s", ev[0].Feature)
	}
	r.completeRejected("a", model.CodeMissingValidation)
}

func TestResetRefusals(t *testing.T) {
	r := newTestRig(t)
	r.refuse(model.ResetFeature{Feature: "a"}, model.CodeNoActiveSession)
	r.do(model.PlanStart{ID: "s1", Goal: "g"})
	r.refuse(model.ResetFeature{Feature: "a"}, model.CodeNoPlan)
	r.do(model.PlanApply{Plan: mkPlan(chain()...)})
	e := r.refuse(model.ResetFeature{Feature: "q"}, model.CodeUnknownFeature)
	wantMentions(t, e.Message, "q")
	if !strings.Contains(e.Recovery.Hint, "a, b, c, d, x, y") {
		t.Errorf("hint %q should list the plan's ids", e.Recovery.Hint)
	}
	// Resetting a pending feature in planning is allowed and harmless.
	r.do(model.ResetFeature{Feature: "y"})
	r.wantSession(model.StatusPlanning, model.ApprovalPending)
}
