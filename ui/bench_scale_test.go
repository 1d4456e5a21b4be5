package ui

import (
	"fmt"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
)

// BenchmarkFirstFrame10kFeatures: from New to the first full frame on a
// session whose plan is a 10,000-feature chain. Target: under 150 ms.
func BenchmarkFirstFrame10kFeatures(b *testing.B) {
	st, err := db.Open(filepath.Join(b.TempDir(), ".flow", "flowdeck.db"), db.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	plan := model.Plan{Summary: "chain", Features: make([]model.Feature, 10_000)}
	for i := range plan.Features {
		plan.Features[i] = model.Feature{ID: fmt.Sprintf("f%d", i), Title: fmt.Sprintf("Feature %d", i)}
		if i > 0 {
			plan.Features[i].DependsOn = []string{fmt.Sprintf("f%d", i-1)}
		}
	}
	for _, a := range []model.Action{model.PlanStart{Goal: "scale"}, model.PlanApply{Plan: plan}, model.PlanApprove{}, model.RunStart{}} {
		if _, err := st.Do(a, "bench", t0); err != nil {
			b.Fatal(err)
		}
	}
	first := func() {
		m := New(st, Options{Config: darkConfig()})
		m.tick = noTick
		m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
		runAll(m, m.Init())
		if m.sess == nil || len(m.detail.Lines()) == 0 {
			b.Fatal("no full frame")
		}
		_ = m.View()
	}
	b.ResetTimer()
	for b.Loop() {
		first()
	}
	b.StopTimer()
	b.ReportMetric(float64(medianOf(5, first).Microseconds())/1000, "median-ms")
}
