package model_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

func TestLevels(t *testing.T) {
	tests := []struct {
		name     string
		features []model.Feature
		want     string
	}{
		{"single", []model.Feature{mkFeature("a")}, "[[a]]"},
		{"independent keep plan order", []model.Feature{mkFeature("z"), mkFeature("a"), mkFeature("m")}, "[[z a m]]"},
		{"diamond", diamond(), "[[a e] [b c] [d]]"},
		{"chain with blocked_by", chain(), "[[a y] [b] [c x] [d]]"},
		// A level holds ids in plan order even when their dependencies
		// were released in another order.
		{"plan order inside a level", []model.Feature{mkFeature("p"), mkFeature("q"), mkFeature("late", "q"), mkFeature("early", "p")}, "[[p q] [late early]]"},
		// The level is the longest path from a root, not the shortest.
		{"longest path decides", []model.Feature{mkFeature("a"), mkFeature("b", "a"), mkFeature("c", "a", "b")}, "[[a] [b] [c]]"},
		{"forward reference", []model.Feature{mkFeature("b", "a"), mkFeature("a")}, "[[a] [b]]"},
		{"repeated edge", []model.Feature{mkFeature("a"), blockedBy(mkFeature("b", "a", "a"), "a")}, "[[a] [b]]"},
		{"cycle", []model.Feature{mkFeature("a", "b"), mkFeature("b", "a"), mkFeature("c")}, "[]"},
		{"empty", nil, "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			levels := model.Levels(tt.features)
			if got := fmt.Sprint(levels); got != tt.want {
				t.Fatalf("Levels = %s, want %s", got, tt.want)
			}
			if tt.name == "cycle" && levels != nil {
				t.Fatal("a cyclic plan must give nil levels")
			}
		})
	}
}

func TestFindCycle(t *testing.T) {
	tests := []struct {
		name     string
		features []model.Feature
		on       []string // ids on the cycle; nil when acyclic
	}{
		{"diamond is acyclic", diamond(), nil},
		{"chain is acyclic", chain(), nil},
		{"unknown dependencies are ignored", []model.Feature{mkFeature("a", "ghost")}, nil},
		{"two", []model.Feature{mkFeature("a", "b"), mkFeature("b", "a")}, []string{"a", "b"}},
		{"self loop", []model.Feature{mkFeature("a", "a")}, []string{"a"}},
		{"through blocked_by", []model.Feature{mkFeature("a"), blockedBy(mkFeature("b", "a"), "d"), mkFeature("c", "b"), mkFeature("d", "c")}, []string{"b", "c", "d"}},
		{"tail into a cycle", []model.Feature{mkFeature("t", "x"), mkFeature("x", "y"), mkFeature("y", "x")}, []string{"x", "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := model.FindCycle(tt.features)
			if tt.on == nil {
				if got != nil {
					t.Fatalf("FindCycle = %v, want none", got)
				}
				return
			}
			if len(got) != len(tt.on)+1 || got[0] != got[len(got)-1] {
				t.Fatalf("FindCycle = %v, want a closed walk over %v", got, tt.on)
			}
			byID := map[string]model.Feature{}
			for _, f := range tt.features {
				byID[f.ID] = f
			}
			for i := 0; i+1 < len(got); i++ {
				f := byID[got[i]]
				if !slices.Contains(f.DependsOn, got[i+1]) && !slices.Contains(f.BlockedBy, got[i+1]) {
					t.Fatalf("FindCycle = %v: %s does not wait for %s", got, got[i], got[i+1])
				}
			}
			on := slices.Clone(got[:len(got)-1])
			slices.Sort(on)
			if !slices.Equal(on, tt.on) {
				t.Fatalf("FindCycle = %v, want the ids %v", got, tt.on)
			}
		})
	}
}

func TestDownstreamAndUpstream(t *testing.T) {
	tests := []struct {
		features   []model.Feature
		id         string
		down, up   []string
		featureSet string
	}{
		{diamond(), "a", []string{"b", "c", "d"}, nil, "diamond"},
		{diamond(), "b", []string{"d"}, []string{"a"}, "diamond"},
		{diamond(), "d", nil, []string{"a", "b", "c"}, "diamond"},
		{diamond(), "e", nil, nil, "diamond"},
		{chain(), "a", []string{"b", "c", "d", "x"}, nil, "chain"},
		{chain(), "b", []string{"c", "d", "x"}, []string{"a"}, "chain"},
		{chain(), "x", nil, []string{"a", "b"}, "chain"},
		{chain(), "d", nil, []string{"a", "b", "c"}, "chain"},
		{chain(), "nope", nil, nil, "chain"},
	}
	for _, tt := range tests {
		if got := model.Downstream(tt.features, tt.id); !slices.Equal(got, tt.down) {
			t.Errorf("%s: Downstream(%s) = %v, want %v", tt.featureSet, tt.id, got, tt.down)
		}
		if got := model.Upstream(tt.features, tt.id); !slices.Equal(got, tt.up) {
			t.Errorf("%s: Upstream(%s) = %v, want %v", tt.featureSet, tt.id, got, tt.up)
		}
	}
	// Results come in plan order, whatever order the graph is walked in.
	fs := []model.Feature{mkFeature("z", "m"), mkFeature("m", "r"), mkFeature("k", "r"), mkFeature("r")}
	if got := model.Downstream(fs, "r"); !slices.Equal(got, []string{"z", "m", "k"}) {
		t.Errorf("Downstream in plan order = %v", got)
	}
}

func TestRunnableAndWaiting(t *testing.T) {
	p := mkPlan(chain()...)
	for i := range p.Features {
		p.Features[i].Status = model.FeaturePending
	}
	set := func(id string, st model.FeatureStatus) { p.Feature(id).Status = st }
	if got := model.Runnable(&p); !slices.Equal(got, []string{"a", "y"}) {
		t.Fatalf("Runnable = %v", got)
	}
	set("a", model.FeatureCompleted)
	set("y", model.FeatureInProgress)
	if got := model.Runnable(&p); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("Runnable with a completed, y running = %v", got)
	}
	set("b", model.FeatureBlocked)
	if got := model.Runnable(&p); got != nil {
		t.Fatalf("Runnable with b blocked = %v", got)
	}
	if got := model.Waiting(&p, *p.Feature("x")); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("Waiting(x) = %v", got)
	}
	if got := model.Waiting(&p, *p.Feature("c")); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("Waiting(c) = %v", got)
	}
	if got, want := model.BlockReasons(&p), "b is blocked; c waits for b; d waits for c; x waits for b"; got != want {
		t.Fatalf("BlockReasons = %q, want %q", got, want)
	}
	set("b", model.FeatureCompleted)
	if got := model.Runnable(&p); !slices.Equal(got, []string{"c", "x"}) {
		t.Fatalf("Runnable with b completed = %v", got)
	}
	if model.Runnable(nil) != nil {
		t.Fatal("Runnable(nil)")
	}
}

func TestStateOf(t *testing.T) {
	r := readyRig(t, mkFeature("a"), mkFeature("b", "a"), mkFeature("c"))
	state := func(id string) model.FeatureState { return model.StateOf(r.s, r.feature(id)) }
	want := func(id string, st model.FeatureState) {
		t.Helper()
		if got := state(id); got != st {
			t.Fatalf("StateOf(%s) = %s, want %s", id, got, st)
		}
	}
	want("a", model.StateRunnable)
	want("b", model.StatePending)
	r.do(model.RunStart{Feature: "a"})
	want("a", model.StateInProgress)
	r.validate("a", model.ValidationFailed, model.ScopeTargeted)
	want("a", model.StateNeedsFix)
	r.validate("a", model.ValidationPassed, model.ScopeTargeted)
	want("a", model.StateAwaitingReview)
	r.review("a", model.ReviewNeedsFix)
	want("a", model.StateNeedsFix)
	r.validate("a", model.ValidationPassed, model.ScopeTargeted)
	want("a", model.StateAwaitingReview)
	r.review("a", model.ReviewBlocked)
	want("a", model.StateNeedsFix)
	r.validate("a", model.ValidationPartial, model.ScopeTargeted)
	want("a", model.StateNeedsFix)
	r.validate("a", model.ValidationPassed, model.ScopeTargeted)
	r.review("a", model.ReviewApproved)
	want("a", model.StateInProgress) // approved, ready to complete
	r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeCompleted})
	want("a", model.StateCompleted)
	want("b", model.StateRunnable)
	r.do(model.RunStart{Feature: "c"})
	r.do(model.RunComplete{Feature: "c", Outcome: model.OutcomeNeedsInput})
	want("c", model.StateBlocked)
	if ev := model.LatestEvidence(r.feature("a")); ev == nil || ev.Status != model.ValidationPassed {
		t.Fatalf("LatestEvidence(a) = %+v", ev)
	}
	if ev := model.LatestEvidence(r.feature("c")); ev != nil {
		t.Fatalf("LatestEvidence(c) = %+v, want none", ev)
	}
	if model.AwaitingFinalReview(r.s) || model.AwaitingFinalReview(nil) {
		t.Fatal("AwaitingFinalReview without an active feature")
	}
}
