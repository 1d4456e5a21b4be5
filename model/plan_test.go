package model_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

func TestValidFeatureID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"a", true},
		{"0", true},
		{"db-store", true},
		{"v2-api-3", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("ab-", 21) + "a", true}, // 64 chars
		{strings.Repeat("a", 65), false},
		{"", false},
		{"Auth", false},
		{"auth--store", false},
		{"-auth", false},
		{"auth-", false},
		{"-", false},
		{"auth_store", false},
		{"auth store", false},
		{"auth.store", false},
		{"../etc", false},
		{"café", false},
		{"ａ", false}, // fullwidth a
		{"a\n", false},
	}
	for _, tt := range tests {
		if got := model.ValidFeatureID(tt.id); got != tt.want {
			t.Errorf("ValidFeatureID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestValidatePlanRejects(t *testing.T) {
	long := strings.Repeat("x", 65)
	tests := []struct {
		name     string
		plan     model.Plan
		code     string
		mentions []string
		absent   []string // ids the message must not blame
	}{
		{"no features", model.Plan{Summary: "s"}, model.CodePlanEmpty, nil, nil},
		{"empty features", model.Plan{Features: []model.Feature{}}, model.CodePlanEmpty, nil, nil},
		{"uppercase id", mkPlan(mkFeature("ok"), mkFeature("Bad")), model.CodePlanInvalidID, []string{"Bad"}, []string{"ok"}},
		{"double hyphen", mkPlan(mkFeature("a--b")), model.CodePlanInvalidID, []string{"a--b"}, nil},
		{"leading hyphen", mkPlan(mkFeature("-a")), model.CodePlanInvalidID, []string{"-a"}, nil},
		{"trailing hyphen", mkPlan(mkFeature("a-")), model.CodePlanInvalidID, []string{"a-"}, nil},
		{"65 chars", mkPlan(mkFeature(long)), model.CodePlanInvalidID, []string{long}, nil},
		{"empty id", mkPlan(mkFeature("")), model.CodePlanInvalidID, []string{`""`}, nil},
		{"unicode id", mkPlan(mkFeature("naïve")), model.CodePlanInvalidID, []string{"naïve"}, nil},
		{"every bad id named", mkPlan(mkFeature("A"), mkFeature("b_c")), model.CodePlanInvalidID, []string{"A", "b_c"}, nil},
		{"duplicate", mkPlan(mkFeature("a"), mkFeature("b"), mkFeature("a")), model.CodePlanDuplicateFeature, []string{"a"}, []string{"b"}},
		{"self depends_on", mkPlan(mkFeature("a"), mkFeature("b", "b")), model.CodePlanSelfDependency, []string{"b"}, nil},
		{"self blocked_by", mkPlan(blockedBy(mkFeature("a"), "a")), model.CodePlanSelfDependency, []string{"a"}, nil},
		{"unknown depends_on", mkPlan(mkFeature("a"), mkFeature("b", "ghost")), model.CodePlanUnknownDependency, []string{"b", "ghost"}, nil},
		{"unknown blocked_by", mkPlan(mkFeature("a"), blockedBy(mkFeature("b", "a"), "phantom")), model.CodePlanUnknownDependency, []string{"b", "phantom"}, nil},
		{"cycle of two", mkPlan(mkFeature("a", "b"), mkFeature("b", "a")), model.CodePlanCycle, []string{"a", "b"}, nil},
		{
			"cycle of three beside a tail",
			mkPlan(mkFeature("root"), mkFeature("x", "root", "z"), mkFeature("y", "x"), mkFeature("z", "y"), mkFeature("leaf", "z")),
			model.CodePlanCycle, []string{"x", "y", "z"}, []string{"root", "leaf"},
		},
		{"cycle through blocked_by", mkPlan(blockedBy(mkFeature("p"), "q"), mkFeature("q", "p")), model.CodePlanCycle, []string{"p", "q"}, nil},
		// The first broken rule decides: an invalid id beats a cycle, a
		// duplicate beats an unknown dependency.
		{"invalid id before cycle", mkPlan(mkFeature("a", "b"), mkFeature("b", "a"), mkFeature("C")), model.CodePlanInvalidID, []string{"C"}, nil},
		{"duplicate before unknown dep", mkPlan(mkFeature("a", "nope"), mkFeature("a")), model.CodePlanDuplicateFeature, []string{"a"}, nil},
		{"self before cycle", mkPlan(mkFeature("a", "a", "b"), mkFeature("b", "a")), model.CodePlanSelfDependency, []string{"a"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := model.ValidatePlan(&tt.plan)
			e, ok := model.AsError(err)
			if !ok {
				t.Fatalf("ValidatePlan = %v, want %s", err, tt.code)
			}
			if e.Code != tt.code {
				t.Fatalf("code %s (%s), want %s", e.Code, e.Message, tt.code)
			}
			checkErrorShape(t, nil, e)
			if e.Recovery.NextAction != nil {
				t.Errorf("next_action %v: fixing a plan needs a new file, nothing is executable", e.Recovery.NextAction)
			}
			wantMentions(t, e.Message, tt.mentions...)
			for _, id := range tt.absent {
				if slices.Contains(strings.FieldsFunc(e.Message, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '-') }), id) {
					t.Errorf("message %q blames %s, which is not at fault", e.Message, id)
				}
			}
		})
	}
	if err := model.ValidatePlan(nil); err == nil {
		t.Error("ValidatePlan(nil) accepted")
	}
}

func TestValidatePlanCycleMessageListsTheCycle(t *testing.T) {
	p := mkPlan(mkFeature("a", "c"), mkFeature("b", "a"), mkFeature("c", "b"), mkFeature("d", "c"))
	e, _ := model.AsError(model.ValidatePlan(&p))
	if e == nil || e.Code != model.CodePlanCycle {
		t.Fatalf("got %v, want plan_cycle", e)
	}
	// "dependency cycle: a -> c -> b -> a": the walk is closed and every id on
	// it is a real edge.
	_, walk, _ := strings.Cut(e.Message, ": ")
	path := strings.Split(walk, " -> ")
	if len(path) != 4 || path[0] != path[3] {
		t.Fatalf("cycle %q is not a closed walk of the three ids", walk)
	}
	for i := 0; i+1 < len(path); i++ {
		if f := p.Feature(path[i]); f == nil || !slices.Contains(f.DependsOn, path[i+1]) {
			t.Errorf("cycle %q: %s does not depend on %s", walk, path[i], path[i+1])
		}
	}
	if strings.Contains(walk, "d") {
		t.Errorf("cycle %q names d, which is downstream of the cycle, not on it", walk)
	}
}

func TestValidatePlanAccepts(t *testing.T) {
	plans := []model.Plan{
		mkPlan(mkFeature("a")),
		mkPlan(mkFeature("a"), mkFeature("b", "a"), mkFeature("c", "a"), mkFeature("d", "b", "c")),
		mkPlan(mkFeature("x"), blockedBy(mkFeature("y"), "x"), mkFeature("z", "y", "x")),
		// dependencies may point forward in plan order
		mkPlan(mkFeature("late", "early"), mkFeature("early")),
	}
	for _, p := range plans {
		if err := model.ValidatePlan(&p); err != nil {
			t.Errorf("ValidatePlan(%v) = %v", p.Features, err)
		}
	}
}

func TestPlanApply(t *testing.T) {
	t.Run("rejects an invalid plan and changes nothing", func(t *testing.T) {
		r := newTestRig(t)
		r.do(model.PlanStart{ID: "s1", Goal: "g"})
		e := r.refuse(model.PlanApply{Plan: mkPlan(mkFeature("a", "b"), mkFeature("b", "a"))}, model.CodePlanCycle)
		wantMentions(t, e.Message, "a", "b")
		if r.s.Plan != nil {
			t.Fatal("a rejected plan was installed")
		}
	})
	t.Run("sets every feature pending and the session to planning/pending", func(t *testing.T) {
		r := readyRig(t, mkFeature("a"), mkFeature("b", "a"))
		r.finish("a")
		r.do(model.RunStart{})
		if r.s.Timestamps.Approved == nil {
			t.Fatal("approved timestamp missing before the re-plan")
		}
		r.refuse(model.PlanApply{Plan: mkPlan(mkFeature("c"))}, model.CodePlanNotEditable)
		r.do(model.ResetFeature{Feature: "b"})

		// A plan handed in as a Go value may carry execution data: it is dropped.
		in := mkPlan(mkFeature("a"), mkFeature("b", "a"), mkFeature("c"))
		in.Features[0].Status = model.FeatureCompleted
		in.Features[0].Validations = []model.Evidence{{Seq: 1, Status: model.ValidationPassed}}
		in.Features[1].Status = model.FeatureInProgress
		in.Features[2].Title = "  "
		r.do(model.PlanApply{Plan: in})
		r.wantSession(model.StatusPlanning, model.ApprovalPending)
		if got := r.statuses(); got != "a=pending b=pending c=pending" {
			t.Fatalf("statuses %s, want all pending", got)
		}
		if len(r.feature("a").Validations) != 0 || r.feature("a").StartedSeq != 0 {
			t.Fatal("applied plan kept execution data")
		}
		if r.feature("c").Title != "c" {
			t.Errorf("blank title became %q, want the id", r.feature("c").Title)
		}
		if r.s.Timestamps.Approved != nil || r.s.Execution.ActiveFeature != "" {
			t.Fatal("re-applying a plan kept the approval or the active feature")
		}
		if in.Features[0].Status != model.FeatureCompleted {
			t.Fatal("PlanApply changed the caller's plan")
		}
		r.wantNext("flowdeck flow plan approve")
	})
	t.Run("needs an open session", func(t *testing.T) {
		r := newTestRig(t)
		r.refuse(model.PlanApply{Plan: mkPlan(mkFeature("a"))}, model.CodeNoActiveSession)
		r = readyRig(t, mkFeature("a"))
		r.finish("a")
		r.refuse(model.PlanApply{Plan: mkPlan(mkFeature("a"))}, model.CodeSessionCompleted)
	})
	t.Run("negative min_completed_features", func(t *testing.T) {
		r := planningRig(t, mkFeature("a"))
		p := mkPlan(mkFeature("a"))
		p.Completion.MinCompletedFeatures = -1
		r.refuse(model.PlanApply{Plan: p}, model.CodePlanInvalid)
	})
}
