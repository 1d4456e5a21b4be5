package ops

import (
	"fmt"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
)

// chainSession is an approved n-feature chain with its first feature
// active and passing evidence on it.
func chainSession(b *testing.B, n int) *model.Session {
	b.Helper()
	plan := model.Plan{Summary: "chain", Features: make([]model.Feature, n)}
	for i := range plan.Features {
		plan.Features[i] = model.Feature{ID: fmt.Sprintf("f%d", i), Title: fmt.Sprintf("Feature %d", i), Summary: "s"}
		if i > 0 {
			plan.Features[i].DependsOn = []string{fmt.Sprintf("f%d", i-1)}
		}
	}
	var s *model.Session
	for _, a := range []model.Action{
		model.PlanStart{ID: "s", Goal: "scale"}, model.PlanApply{Plan: plan}, model.PlanApprove{}, model.RunStart{},
		model.Validate{Feature: "f0", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./..."},
	} {
		next, _, err := model.Execute(s, a, model.Context{Now: time.Now(), Actor: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		s = next
	}
	return s
}

// BenchmarkDigest is what every write pays to render the status digest, by
// plan size.
func BenchmarkDigest(b *testing.B) {
	// 200 features is the largest status the digest keeps; 2000 keeps only
	// the HUD. Fifty pending decisions stand for a busy crew's waits.
	var decisions []model.Decision
	for i := range 50 {
		decisions = append(decisions, model.Decision{ID: fmt.Sprintf("d%d", i), Prompt: "Retry, reassign or reset f0?", Status: model.DecisionPending})
	}
	for _, n := range []int{1, 200, 2000} {
		g := &db.Glance{Active: chainSession(b, n), Decisions: decisions}
		b.Run(fmt.Sprintf("features=%d", n), func(b *testing.B) {
			var size int
			for b.Loop() {
				d, err := Digest(g)
				if err != nil {
					b.Fatal(err)
				}
				size = len(d.StatusText) + len(d.StatusJSON) + len(d.HUDText.Out) + len(d.HUDMarkdown.Out) + len(d.HUDHook.Out)
			}
			b.ReportMetric(float64(size), "bytes")
		})
	}
}
