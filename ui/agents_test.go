package ui

import (
	"errors"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// The agents pane in the real root model on a real store: three agents'
// rows with their states and last output lines (cleaned), the graph's
// marks, enter shows an agent's live flow run, p pauses it, c stops one
// (after a confirmation), A reassigns a feature to another agent.
func TestAgentsPaneDrivesTheCrew(t *testing.T) {
	st := newStore(t)
	c := seedCrew(t, st)
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.mustSee("⚑ 2 waiting: review api (worker-2), decision cli (worker-3)", "store @worker-1", "api @worker-2", "cli @worker-3")
	h.key("esc", "8") // the review prompt waits; look at the crew
	if h.m.focus != layout.Agents {
		t.Fatalf("focus %v, want the agents pane", h.m.focus)
	}
	h.mustSee("8 Agents", "1 waiting for review · 1 waiting for a decision · 1 working",
		"worker-1 store   working 59m · step work", "compiling store/bolt.go 80%",
		"worker-2 api     waiting for review 10m", "sync/api",
		"worker-3 cli     waiting for a decision 5m", "which flag parser: cobra or kong?",
		"enter live output", "p pause agent", "c stop agent", "A reassign")
	// worker-3's output hid a title and a link: the pane's own lines (the
	// frame's backstop, termtext.Frame, would hide a leak) hold neither.
	for _, l := range h.m.crew.pane.View(true) {
		if strings.Contains(l, "\x1b]") || strings.Contains(l, "pwned") || strings.Contains(l, "evil") {
			t.Fatalf("the agents pane drew the hostile output: %q", l)
		}
	}
	if got := h.m.crew.pane.Rows()[2].Last; got != "which flag parser: cobra or kong?" {
		t.Fatalf("worker-3's last line is %q", got)
	}

	// enter: worker-1's flow run in the flow pane, its running command.
	h.key("enter")
	if h.m.focus != layout.Flow || h.m.flowPin != c.flowRuns[0] {
		t.Fatalf("focus %v pin %q, want the flow pane on %s", h.m.focus, h.m.flowPin, c.flowRuns[0])
	}
	h.mustSee("7 Flow  "+c.flowRuns[0], "compiling store/bolt.go 80%")
	// The reload shows worker-3's question, which waits too: later.
	h.mustSee("Which flag parser should cli use?")
	h.clk.Add(time.Second) // past the grace of a prompt that opened by itself
	h.key("esc")

	// p pauses worker-1's flow run after its step.
	h.key("8", "p")
	if r := flowRunOf(t, st, c.flowRuns[0]); !r.PauseRequested {
		t.Fatalf("worker-1's run was not asked to pause: %+v", r)
	}
	h.mustSee("pause " + c.flowRuns[0] + ": it stops after step work")

	// c on worker-3 asks, y stops: its run and its question are cancelled.
	h.key("j", "j", "c")
	h.mustSee("Stop agent worker-3?", "Its pending decision "+c.question+" is cancelled too.")
	h.key("y")
	if r := flowRunOf(t, st, c.flowRuns[2]); r.Status != model.FlowCancelled {
		t.Fatalf("worker-3's run is %s", r.Status)
	}
	h.mustSee("worker-3 cli     failed", "its flow run was cancelled")

	// A on worker-1: store goes to worker-9; worker-1's run stops.
	h.key("g", "A")
	h.mustSee("Reassign store from worker-1", "Stops flow run "+c.flowRuns[0])
	h.typeText("bad name")
	h.key("enter")
	h.mustSee("an agent's name is letters")
	for range len("bad name") {
		h.key("backspace")
	}
	h.typeText("worker-9")
	h.key("enter")
	s := active(t, st)
	if f := s.Plan.Feature("store"); f.Status != model.FeatureInProgress || f.Agent != "worker-9" {
		t.Fatalf("store is %s by %q", f.Status, f.Agent)
	}
	if r := flowRunOf(t, st, c.flowRuns[0]); r.Status != model.FlowCancelled {
		t.Fatalf("worker-1's run is %s", r.Status)
	}
	h.mustSee("worker-9 store", "store @worker-9")
}

// A crew whose scheduler dies leaves worker-1's run stored "running" with
// no process: the agent reads failed, not working forever; pause refuses
// it and points at resume, as the flow pane's keys do.
func TestAgentOfADeadSchedulerIsNotWorking(t *testing.T) {
	st := newStore(t)
	s := &seeder{tb: t, st: st, now: t0.Add(-time.Hour)}
	s.do(model.PlanStart{Goal: "Sync service"})
	s.do(model.PlanApply{Plan: crewPlan()})
	s.do(model.PlanApprove{})
	s.do(model.RunStart{Feature: "store", Agent: "worker-1"})
	s.do(model.RunStart{Feature: "api", Agent: "worker-2"})
	id, err := st.ReserveFlowRunID("run")
	if err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(st.Dir(), "flowruns", id+".lock")
	if err := os.MkdirAll(filepath.Dir(lock), 0o755); err != nil {
		t.Fatal(err)
	}
	scheduler, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(scheduler.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateFlowRun(&model.FlowRun{ID: id, Flow: "run", Source: "builtin:run", Args: []string{"store"}, MaxSteps: 1000},
		"start", map[string]any{"feature": "store", "agent_name": "worker-1"}, "worker-1", t0.Add(-30*time.Minute)); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("8")
	h.mustSee("worker-1 store   working")
	scheduler.Close() // the scheduler dies: its lock goes with it
	h.run(h.m.loadCmd())
	h.mustSee("worker-1 store   failed", "no process executes its flow")
	h.key("g", "p")
	h.mustSee("no process executes " + id + ": nothing to pause (" + h.m.keyName(keys.ResumeFlow) + " resumes it)")
	if r := flowRunOf(t, st, id); r.PauseRequested {
		t.Fatal("a pause nobody honours was recorded")
	}
}

// A reassign decided on a state that changed since (the agent stored a
// verification of its feature while the dialog was open) changes nothing:
// the agent keeps its flow run and its claim, and the note says why.
func TestReassignStaleChangesNothing(t *testing.T) {
	st := newStore(t)
	c := seedCrew(t, st)
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("esc", "8", "g", "A")
	h.mustSee("Reassign store from worker-1", "No process works on the new claim by itself")
	(&seeder{tb: t, st: st, now: t0}).do(model.Validate{Feature: "store", Status: model.ValidationFailed,
		Scope: model.ScopeTargeted, Command: "go test ./store/..."})
	h.typeText("worker-9")
	h.key("enter")
	h.mustSee("refused (stale_decision)")
	if r := flowRunOf(t, st, c.flowRuns[0]); r.Status != model.FlowRunning {
		t.Fatalf("worker-1's run is %s after a stale reassign", r.Status)
	}
	if f := active(t, st).Plan.Feature("store"); f.Status != model.FeatureInProgress || f.Agent != "worker-1" {
		t.Fatalf("store is %s by %q after a stale reassign", f.Status, f.Agent)
	}
}

// A read of an agent's output that fails keeps the last line shown (it
// wiped it: the row went blank until the run grew again).
func TestAgentTailErrorKeepsTheLine(t *testing.T) {
	st := newStore(t)
	c := seedCrew(t, st)
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("esc", "8")
	h.mustSee("compiling store/bolt.go 80%")
	h.send(agentTailMsg{run: c.runs[0], bytes: 1 << 20, err: errors.New("disk gone")})
	h.mustSee("compiling store/bolt.go 80%")
}

func flowRunOf(t *testing.T, st *db.Store, id string) *model.FlowRun {
	t.Helper()
	r, err := st.FlowRun(id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAgentsGoldenFrames pins the crew at 120×40 in both palettes.
func TestAgentsGoldenFrames(t *testing.T) {
	for _, palette := range []string{"dark", "light"} {
		t.Run(palette, func(t *testing.T) {
			st := newStore(t)
			seedCrew(t, st)
			var h *harness
			if palette == "dark" {
				h = newColorHarness(t, st, 120, 40, "dark")
			} else {
				h = newColorHarness(t, st, 120, 40, "auto")
				h.send(tea.BackgroundColorMsg{Color: color.White})
			}
			h.key("esc", "8")
			golden.RequireEqual(t, h.frame())
		})
	}
}

// Reviews from several agents queue: three features of three agents wait
// for review at once (and a fourth agent's run flow works on another, which
// must not hide them); approving one opens the next, and all three are
// recorded.
func TestReviewsOfThreeAgentsQueue(t *testing.T) {
	st := newStore(t)
	s := &seeder{tb: t, st: st, now: t0.Add(-time.Hour)}
	plan := crewPlan()
	plan.MaxParallel = 4
	plan.Features = append(plan.Features, model.Feature{ID: "bench", Title: "Benchmarks", Verification: []string{"go test -bench ."}})
	s.do(model.PlanStart{Goal: "Sync service"})
	s.do(model.PlanApply{Plan: plan})
	s.do(model.PlanApprove{})
	feats := []string{"store", "api", "cli"}
	for i, f := range feats {
		s.do(model.RunStart{Feature: f, Agent: fmt.Sprintf("worker-%d", i+1)})
		s.pass(f, model.ScopeTargeted)
	}
	s.do(model.RunStart{Feature: "bench", Agent: "worker-4"})
	busyFlow(t, st, "bench", "worker-4")

	h := newHarness(t, st, 120, 40, zeroConfig())
	h.mustSee("⚑ 3 waiting: review store (worker-1), review api (worker-2), review cli (worker-3)")
	for i := range feats {
		d, ok := h.m.top().(*reviewDialog)
		if !ok {
			t.Fatalf("review %d: no review dialog open:\n%s", i+1, h.screen())
		}
		h.mustSee(fmt.Sprintf("Review %s (worker-", d.feature))
		h.clk.Add(time.Second) // past the grace of a prompt that opened by itself
		h.key("a")
		if f := active(t, st).Plan.Feature(d.feature); f == nil || len(f.Reviews) != 1 || f.Reviews[0].Decision != model.ReviewApproved {
			t.Fatalf("review of %s not recorded", d.feature)
		}
	}
	if h.m.top() != nil || len(h.m.waits) != 0 {
		t.Fatalf("still waiting: %v", h.m.waits)
	}
	h.mustSee("nothing waits for")
}

// The same with the reviews asked by three agents' run flows (decisions):
// each is answered in turn, none lost, and the session's own review waits
// are not counted twice.
func TestReviewDecisionsOfThreeAgentsQueue(t *testing.T) {
	st := newStore(t)
	s := &seeder{tb: t, st: st, now: t0.Add(-time.Hour)}
	s.do(model.PlanStart{Goal: "Sync service"})
	s.do(model.PlanApply{Plan: crewPlan()})
	s.do(model.PlanApprove{})
	var ids []string
	feats := []string{"store", "api", "cli"}
	for i, f := range feats {
		agent := fmt.Sprintf("worker-%d", i+1)
		s.do(model.RunStart{Feature: f, Agent: agent})
		s.pass(f, model.ScopeTargeted)
		run := busyFlow(t, st, f, agent)
		ids = append(ids, crewDecision(t, st, &model.Decision{FlowRun: run, Flow: "run", Step: "confirm", Kind: model.DecisionChoice,
			Prompt: "Review of " + f + "?", Options: []model.DecisionOption{{ID: "approved"}, {ID: "needs_fix"}, {ID: "blocked"}}}, t0.Add(time.Duration(i-10)*time.Minute)))
	}
	h := newHarness(t, st, 120, 40, zeroConfig())
	answerKeys, answered := []string{"a", "x", "1"}, []string{"approved", "needs_fix", "approved"}
	h.mustSee("⚑ 3 waiting: review store (worker-1), review api (worker-2), review cli (worker-3)")
	for i := range ids {
		if _, ok := h.m.top().(*decisionDialog); !ok {
			t.Fatalf("decision %d: no prompt open:\n%s", i+1, h.screen())
		}
		// The prompt names whose review it is.
		h.mustSee(fmt.Sprintf("step confirm · review %s (worker-%d)", feats[i], i+1))
		// A review question answers to the review keys as well as to its
		// numbers, and the hint bar says so.
		h.mustSee("a approved")
		h.clk.Add(time.Second)
		h.key(answerKeys[i])
	}
	for i, id := range ids {
		d, err := st.Decision(id)
		if err != nil || d.Resolution == nil || d.Resolution.Option != answered[i] {
			t.Fatalf("decision %s: %+v %v, want %s", id, d, err, answered[i])
		}
	}
	if h.m.top() != nil {
		t.Fatalf("a prompt is still open:\n%s", h.screen())
	}
}

// busyFlow makes a run flow run on feature for agent that a process (this
// test) executes: it is in the worker's step.
func busyFlow(t *testing.T, st *db.Store, feature, agent string) string {
	t.Helper()
	f, source, err := flows.Load(filepath.Dir(st.Dir()), "run")
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.ReserveFlowRunID("run")
	if err != nil {
		t.Fatal(err)
	}
	holdFlowLock(t, st, id)
	if _, err := st.CreateFlowRun(&model.FlowRun{ID: id, Flow: "run", Source: source, Hash: f.Hash, Text: f.Source, Args: []string{feature}, MaxSteps: 1000},
		"start", map[string]any{"feature": feature, "agent_name": agent}, agent, t0.Add(-30*time.Minute)); err != nil {
		t.Fatal(err)
	}
	return id
}

// BenchmarkViewAgents: View() at 160×48 with a crew of three in the agents
// pane (focused); the budget is BenchmarkView500Features's (2 ms median).
// worker-1's question and store's interruption are foreign text at its
// limit (64 KiB on one line): the row's detail and the session bar's wait
// are cut on load, not drawn from the whole text each frame.
func BenchmarkViewAgents(b *testing.B) {
	st := newStore(b)
	c := seedCrew(b, st)
	big := strings.Repeat("ab ", model.MaxTextBytes/3)
	crewDecision(b, st, &model.Decision{FlowRun: c.flowRuns[0], Flow: "run", Step: "work", Kind: model.DecisionChoice,
		Prompt: big, Options: []model.DecisionOption{{ID: "yes"}, {ID: "no"}}}, t0)
	(&seeder{tb: b, st: st, now: t0}).do(model.RunInterrupt{Feature: "store", Summary: big})
	h := newHarness(b, st, 160, 48, darkConfig())
	h.clk.Add(time.Second)
	h.key("esc", "8")
	if h.m.focus != layout.Agents {
		b.Fatal("the agents pane is not focused")
	}
	for b.Loop() {
		_ = h.m.View()
	}
	b.ReportMetric(float64(medianOf(200, func() { _ = h.m.View() }).Microseconds())/1000, "median-ms")
}
