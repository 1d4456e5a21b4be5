package ui

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
)

// crewSeed is what seedCrew made: three agents, each with a claim and a
// `run` flow run that a process (this test, holding its lock) executes.
type crewSeed struct {
	agents   [3]string // worker-1..3
	features [3]string // their claims
	flowRuns [3]string // their flow runs
	runs     [3]string // each one's newest command
	// decisions: worker-2's review, worker-3's question.
	review, question string
}

// crewPlan is six features: three roots, then what waits on them.
func crewPlan() model.Plan {
	f := func(id, title string, deps ...string) model.Feature {
		return model.Feature{ID: id, Title: title, DependsOn: deps, Verification: []string{"go test ./" + id + "/..."}}
	}
	return model.Plan{Summary: "A sync service, three agents at once", MaxParallel: 3, Features: []model.Feature{
		f("store", "Bolt store"), f("api", "HTTP API"), f("cli", "Command line"),
		f("sync", "Sync engine", "store", "api"), f("docs", "Docs", "cli"), f("e2e", "End-to-end tests", "sync", "docs"),
	}}
}

// seedCrew makes the state a crew of three leaves mid-session (what
// `flowdeck flows run auto --parallel 3` would): worker-1 works on store
// (its agent's command is still printing), worker-2's api passed its
// verification and its flow waits for the review, worker-3's flow asks a
// question about cli. Every id and time is fixed, for goldens. The flow
// runs' locks are held until the test ends, as their processes would, so
// the cockpit neither recovers nor resumes them; a cockpit in another
// process (the tmux end-to-end test) sees the same.
func seedCrew(tb testing.TB, st *db.Store) crewSeed {
	tb.Helper()
	s := &seeder{tb: tb, st: st, now: t0.Add(-time.Hour)}
	c := crewSeed{agents: [3]string{"worker-1", "worker-2", "worker-3"}, features: [3]string{"store", "api", "cli"}}
	s.do(model.PlanStart{Goal: "Sync service"})
	s.do(model.PlanApply{Plan: crewPlan()})
	s.do(model.PlanApprove{})
	for i := range c.agents {
		s.do(model.RunStart{Feature: c.features[i], Agent: c.agents[i]})
	}
	f, source, err := flows.Load(filepath.Dir(st.Dir()), "run")
	if err != nil {
		tb.Fatal(err)
	}
	step := func(name string) int {
		for _, st := range f.Steps {
			if st.Name == name {
				return st.Index
			}
		}
		tb.Fatalf("the run flow has no step %s", name)
		return 0
	}
	for i := range c.agents {
		id, err := st.ReserveFlowRunID("run")
		if err != nil {
			tb.Fatal(err)
		}
		holdFlowLock(tb, st, id)
		at := t0.Add(-time.Duration(40-10*i) * time.Minute)
		if _, err := st.CreateFlowRun(&model.FlowRun{ID: id, Flow: "run", Source: source, Hash: f.Hash, Text: f.Source,
			Args: []string{c.features[i]}, MaxSteps: 1000}, "start", map[string]any{"feature": c.features[i], "agent_name": c.agents[i]}, c.agents[i], at); err != nil {
			tb.Fatal(err)
		}
		c.flowRuns[i] = id
		flowEvents(tb, st, id, at, model.FlowEvent{Type: model.FlowEvStepFinished, Step: "start", Outcome: "done", Next: ptr(step("work")), NextStep: "work"},
			model.FlowEvent{Type: model.FlowEvActionStarted, Step: "work", StepIndex: step("work"), Kind: "agent", Label: "agent worker"})
	}
	out := "reading the feature\nwriting store/bolt.go\n\x1b[32mgo build ./store/...\x1b[0m\ncompiling store/bolt.go 40%\rcompiling store/bolt.go 80%"
	c.runs[0] = crewRun(tb, st, "20260314-090000.000-aaaaa1", c.agents[0], c.flowRuns[0], "", t0.Add(-20*time.Minute), out, true)

	// worker-2: its agent answered, flowdeck verified, the review waits.
	flowEvents(tb, st, c.flowRuns[1], t0.Add(-15*time.Minute),
		model.FlowEvent{Type: model.FlowEvActionFinished, Step: "work", StepIndex: step("work"), Kind: "agent", Summary: "ok"},
		model.FlowEvent{Type: model.FlowEvStepFinished, Step: "work", StepIndex: step("work"), Outcome: "done", Next: ptr(step("confirm")), NextStep: "confirm"})
	c.runs[1] = crewRun(tb, st, "20260314-091000.000-aaaaa2", c.agents[1], "", "api", t0.Add(-12*time.Minute), "=== RUN   TestAPI\n--- PASS: TestAPI (0.02s)\nok  \tsync/api\t0.41s\n", false)
	s.do(model.Validate{Feature: "api", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./api/...",
		Summary: "1 passed", Source: model.SourceObserved, RunID: c.runs[1]})
	c.review = crewDecision(tb, st, &model.Decision{FlowRun: c.flowRuns[1], Flow: "run", Step: "confirm", Kind: model.DecisionChoice, Action: 0,
		Prompt:  "Review of api — approve it, send it back to the worker (say what to fix in the note), or block it?",
		Options: []model.DecisionOption{{ID: "approved"}, {ID: "needs_fix"}, {ID: "blocked"}}}, t0.Add(-10*time.Minute))

	// worker-3: its agent asks the person; its output holds hostile
	// sequences (a title, a link). Nothing moves the cursor: a run that needs
	// the emulator trips a race in output.Screen.Close (x/vt's Close and
	// the drain goroutine's Read), which is not this test's subject.
	c.runs[2] = crewRun(tb, st, "20260314-091500.000-aaaaa3", c.agents[2], c.flowRuns[2], "", t0.Add(-8*time.Minute),
		"looking at cli/main.go\n\x1b]0;pwned\x07\x1b]8;;http://evil\x07which flag parser: \x1b[31mcobra\x1b[0m or kong?\x1b]8;;\x07\n", false)
	c.question = crewDecision(tb, st, &model.Decision{FlowRun: c.flowRuns[2], Flow: "run", Step: "work", Kind: model.DecisionChoice,
		Action: 0, Prompt: "Which flag parser should cli use?", Options: []model.DecisionOption{{ID: "cobra"}, {ID: "kong"}}}, t0.Add(-5*time.Minute))
	return c
}

func ptr[T any](v T) *T { return &v }

func flowEvents(tb testing.TB, st *db.Store, id string, at time.Time, evs ...model.FlowEvent) {
	tb.Helper()
	if _, err := st.AppendFlowEvents(id, "test", at, evs...); err != nil {
		tb.Fatal(err)
	}
}

func crewDecision(tb testing.TB, st *db.Store, d *model.Decision, at time.Time) string {
	tb.Helper()
	got, _, err := st.CreateDecision(d, "test", at)
	if err != nil {
		tb.Fatal(err)
	}
	return got.ID
}

// holdFlowLock takes flow run id's lock until the test ends: a process
// executes the run.
func holdFlowLock(tb testing.TB, st *db.Store, id string) {
	tb.Helper()
	p := filepath.Join(st.Dir(), "flowruns", id+".lock")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	lf, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { lf.Close() })
}

// crewRun stores a command of an agent (actor, as the crew's runs are)
// run by its flow run (flowRun) or for a feature, with a fixed id; running
// leaves it printing until the test ends.
func crewRun(tb testing.TB, st *db.Store, id, actor, flowRun, feature string, at time.Time, out string, running bool) string {
	tb.Helper()
	rec := model.RunRecord{ID: id, Argv: []string{"sh", "-c", "agent"}, Actor: actor, Cwd: "/project", Start: at, FlowRun: flowRun, Feature: feature}
	if feature != "" {
		rec.Argv = []string{"go", "test", "./" + feature + "/..."}
	}
	w, err := st.StartRun(rec)
	if err != nil {
		tb.Fatal(err)
	}
	if err := writeRaw(w, []byte(out)); err != nil {
		tb.Fatal(err)
	}
	if running {
		tb.Cleanup(func() { _, _ = w.Finish(rec, 0) })
		deadline := time.Now().Add(60 * time.Second)
		for { // the writer commits every 100 ms
			if r, err := st.Run(id); err == nil && r != nil && r.Bytes >= int64(len(out)) {
				return id
			}
			if time.Now().After(deadline) {
				tb.Fatal("running output never committed")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	rec.Outcome, rec.ExitCode, rec.Duration, rec.Summary = "exited", 0, 2100*time.Millisecond, "ok"
	if _, err := w.Finish(rec, 0); err != nil {
		tb.Fatal(err)
	}
	return id
}
