package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
)

// chainProject is a project whose approved plan is an n-feature chain;
// started, with its first feature active (and passing evidence on it, so
// a review is accepted), else with no feature started yet.
func chainProject(b *testing.B, n int, started bool) string {
	b.Helper()
	dir := b.TempDir()
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	plan := model.Plan{Summary: "chain", Features: make([]model.Feature, n)}
	for i := range plan.Features {
		plan.Features[i] = model.Feature{ID: fmt.Sprintf("f%d", i), Title: fmt.Sprintf("Feature %d", i), Summary: "s"}
		if i > 0 {
			plan.Features[i].DependsOn = []string{fmt.Sprintf("f%d", i-1)}
		}
	}
	actions := []model.Action{model.PlanStart{Goal: "scale"}, model.PlanApply{Plan: plan}, model.PlanApprove{}}
	if started {
		actions = append(actions, model.RunStart{},
			model.Validate{Feature: "f0", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./..."})
	}
	for _, a := range actions {
		if _, err := st.Do(a, "bench", time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkCLIActionByPlanSize runs `flow note`, `flow validate` and `flow
// review` as processes on a 1-feature and a 2,000-feature chain, alternating
// the two projects so that both see the same machine load, and reports each
// one's median and the ratio. Target: ratio ≤ 3. note-idle is the note on a
// plan with no feature started (no active feature), where a note used to
// render and read every feature doc.
func BenchmarkCLIActionByPlanSize(b *testing.B) {
	actions := map[string][]string{
		"note":      {"flow", "note", "bench"},
		"note-idle": {"flow", "note", "bench"},
		"validate":  {"flow", "validate", "f0", "--status", "passed", "--scope", "targeted", "--command", "go test ./..."},
		"review":    {"flow", "review", "f0", "--decision", "needs_fix", "--finding", "again"},
	}
	for _, name := range []string{"note", "note-idle", "validate", "review"} {
		b.Run(name, func(b *testing.B) {
			started := name != "note-idle"
			small, large := chainProject(b, 1, started), chainProject(b, 2000, started)
			var ts, tl []time.Duration
			for b.Loop() {
				for _, p := range []struct {
					dir   string
					times *[]time.Duration
				}{{small, &ts}, {large, &tl}} {
					start := time.Now()
					if _, errs, code := flowdeck(b, p.dir, actions[name]...); code != 0 {
						b.Fatal(errs)
					}
					*p.times = append(*p.times, time.Since(start))
				}
			}
			ms, ml := median(ts), median(tl)
			b.ReportMetric(float64(ms.Microseconds())/1000, "1-feature-ms")
			b.ReportMetric(float64(ml.Microseconds())/1000, "2000-features-ms")
			b.ReportMetric(float64(ml)/float64(ms), "ratio")
		})
	}
}

// An oversized plan file is refused as plan_too_large (a rule, exit 1)
// without being read whole, and an oversized note as text_too_large.
func TestOversizedInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	if _, errs, code := flowdeck(t, dir, "flow", "plan", "start", "limits"); code != 0 {
		t.Fatal(errs)
	}
	big := filepath.Join(dir, "big.json")
	huge := `{"summary":"` + strings.Repeat("x", model.MaxPlanBytes) + `","features":[{"id":"a","title":"A"}]}`
	if err := os.WriteFile(big, []byte(huge), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := flowdeck(t, dir, "--json", "flow", "plan", "apply", big)
	if code != ExitRejected || !strings.Contains(out, `"code": "plan_too_large"`) {
		t.Fatalf("exit %d: %s", code, out)
	}
	_, errs, code := flowdeck(t, dir, "flow", "note", strings.Repeat("y", model.MaxTextBytes+1))
	if code != ExitRejected || !strings.Contains(errs, "text_too_large") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}
