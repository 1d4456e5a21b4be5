package db

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// chainPlan is n features, each depending on the one before: the shape where
// anything quadratic in the plan shows most.
func chainPlan(n int) model.Plan {
	p := model.Plan{Summary: "chain", Features: make([]model.Feature, n)}
	for i := range p.Features {
		p.Features[i] = model.Feature{ID: fmt.Sprintf("f%d", i), Title: fmt.Sprintf("Feature %d", i), Summary: "s"}
		if i > 0 {
			p.Features[i].DependsOn = []string{fmt.Sprintf("f%d", i-1)}
		}
	}
	return p
}

// chainStore is an approved n-feature chain with its first feature active and
// one piece of passing evidence, docs written, fsync on (as the CLI runs).
func chainStore(b *testing.B, n int) *Store {
	b.Helper()
	st, err := Open(filepath.Join(b.TempDir(), ".flow", "flowdeck.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, a := range []model.Action{
		model.PlanStart{Goal: "scale"}, model.PlanApply{Plan: chainPlan(n)}, model.PlanApprove{}, model.RunStart{},
		model.Validate{Feature: "f0", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./..."},
	} {
		mustDo(b, st, a)
	}
	return st
}

// BenchmarkActionByPlanSize runs the same action on a 1-feature and a
// 2,000-feature chain. Target: the 2,000-feature cost within 3× of the
// 1-feature cost, measured in the same run (the ratio, not the absolute
// time, is what holds across machines).
func BenchmarkActionByPlanSize(b *testing.B) {
	actions := map[string]model.Action{
		"note":     model.AddNote{Text: "bench"},
		"validate": model.Validate{Feature: "f0", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./..."},
		"review":   model.ReviewFeature{Feature: "f0", Decision: model.ReviewNeedsFix, Findings: []string{"again"}},
	}
	for _, name := range []string{"note", "validate", "review"} {
		for _, n := range []int{1, 2000} {
			b.Run(fmt.Sprintf("%s/features=%d", name, n), func(b *testing.B) {
				st := chainStore(b, n)
				b.ResetTimer()
				for b.Loop() {
					if _, err := st.Do(actions[name], "bench", t0); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkPlanApply10k applies a 10,000-feature chain to a new session,
// docs included. Target: under 2 s.
func BenchmarkPlanApply10k(b *testing.B) {
	plan := chainPlan(10_000)
	for b.Loop() {
		b.StopTimer()
		st, err := Open(filepath.Join(b.TempDir(), ".flow", "flowdeck.db"), Options{})
		if err != nil {
			b.Fatal(err)
		}
		mustDo(b, st, model.PlanStart{Goal: "scale"})
		b.StartTimer()
		mustDo(b, st, model.PlanApply{Plan: plan})
	}
}
