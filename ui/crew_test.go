package ui

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/demo"
	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
)

// /flow-auto N takes a number of agents, nothing else.
func TestFlowAutoTakesAnAgentCount(t *testing.T) {
	st := newStore(t)
	h := newHarness(t, st, 100, 30, zeroConfig())
	h.key(":")
	h.typeText("/flow-auto everything")
	h.key("enter")
	h.mustSee("/flow-auto [AGENTS] takes the number of agents")
	if runs, _ := st.FlowRuns(); len(runs) != 0 || len(h.m.flowJobs) != 0 {
		t.Fatalf("started %d runs", len(runs))
	}
}

// /flow-auto 3 runs the crew plan with three scripted agents; the person
// approves each review as it comes (and the final one): the session
// completes, each feature claimed by a worker-K.
func TestFlowAutoCrew(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the flowdeck binary and runs 12 features through agent processes")
	}
	if !gitwork.Available() {
		t.Skip("git is not installed: the crew demo commits its agents' work")
	}
	dir := binaries(t)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	st := newStore(t)
	root := filepath.Dir(st.Dir())
	if err := demo.WriteCrewProject(root); err != nil {
		t.Fatal(err)
	}
	if err := demo.SeedCrew(demo.StoreDo(st, time.Now)); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default() // (a zero config is replaced by the default one)
	cfg.Agents = demo.CrewAgents(filepath.Join(dir, "flowdeck"), 20*time.Millisecond)
	h := newHarness(t, st, 120, 40, cfg)
	h.key(":")
	h.typeText("/flow-auto 3")
	h.keyAsync("enter")
	agents := map[string]bool{}
	h.pump(2*time.Minute, "the crew to finish", func() bool {
		if s := active(t, st); s != nil {
			for _, c := range model.ActiveClaims(s) {
				agents[c.Agent] = true
			}
		}
		ds, _ := st.Decisions(true)
		for _, d := range ds {
			flows.ResolveDecision(st, d.ID, flows.Answer{Option: "approved"}, "person", time.Now())
		}
		return len(h.m.flowJobs) == 0
	})
	s := active(t, st)
	if s.Status != model.StatusCompleted || !agents["worker-1"] || !agents["worker-3"] || agents["worker-4"] {
		t.Fatalf("session %s, agents seen %v\n%s", s.Status, agents, h.screen())
	}
	h.mustSee("flow auto --parallel 3: done")
}
