package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/model"
)

// testFlow is the absolute path of a flow file in testdata/flows.
func testFlow(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "flows", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// startFlow types /flow FILE ARGS; the engine goroutine runs in the
// background (it waits for the decisions the test answers).
func (h *harness) startFlow(line string) {
	h.tb.Helper()
	h.key(":")
	h.typeText(line)
	h.keyAsync("enter")
}

// waitScreen pumps until the screen holds every part.
func (h *harness) waitScreen(what string, parts ...string) {
	h.tb.Helper()
	h.pump(10*time.Second, what, func() bool {
		scr := h.screen()
		for _, p := range parts {
			if !strings.Contains(scr, p) {
				return false
			}
		}
		return true
	})
}

func flowRun(t *testing.T, st *db.Store, id string) *model.FlowRun {
	t.Helper()
	r, err := st.FlowRun(id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func decisionsOf(t *testing.T, st *db.Store) []model.Decision {
	t.Helper()
	ds, err := st.Decisions(false)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// countEvents counts a run's events of one type.
func countEvents(t *testing.T, st *db.Store, id string, typ model.FlowEventType) int {
	t.Helper()
	evs, err := st.FlowEvents(id, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// A flow started from the command line stops at its decision; the prompt
// opens by itself (ignoring keys for the grace period), 2 answers with the
// second option, and the engine goroutine carries the run to its end.
func TestFlowDecisionFromCommandLine(t *testing.T) {
	st := newStore(t)
	h := newHarness(t, st, 80, 24, zeroConfig())
	h.startFlow("/flow " + testFlow(t, "ship.md") + " v1.2")
	h.waitScreen("the decision prompt", "Decision · ship-1 · step ask", "Ship v1.2?", "1 ship", "2 hold")
	if h.m.focus != 7-1 {
		t.Fatalf("focus %d: the flow pane should show the decision's run", h.m.focus)
	}
	h.mustSee("7 Flow", "ship-1 · waiting", "⚑ 1 waiting: decision ship-1 ask")
	if title := h.m.View().WindowTitle; title != "⚑ flowdeck: decision ship-1 ask" {
		t.Fatalf("title %q", title)
	}
	if h.m.bells != 1 {
		t.Fatalf("%d bells for one decision", h.m.bells)
	}

	// A key in flight when the prompt appeared is ignored.
	h.key("1")
	if d := decisionsOf(t, st); len(d) != 1 || d[0].Status != model.DecisionPending {
		t.Fatalf("a key inside the grace period answered: %+v", d)
	}
	h.clk.Add(time.Second)
	h.key("2")
	h.pump(10*time.Second, "the flow to finish", func() bool { return len(h.m.flowJobs) == 0 })

	ds := decisionsOf(t, st)
	if len(ds) != 1 || ds[0].Status != model.DecisionResolved || ds[0].Resolution.Option != "hold" || ds[0].Resolution.Actor != "human" {
		t.Fatalf("decisions = %+v", ds)
	}
	r := flowRun(t, st, "ship-1")
	if r.Status != model.FlowCompleted || r.Step != "held" || r.Vars["what"] != "v1.2" {
		t.Fatalf("run = %s at %s, vars %v", r.Status, r.Step, r.Vars)
	}
	if n := countEvents(t, st, "ship-1", model.FlowEvDecisionResolved); n != 1 {
		t.Fatalf("%d decision_resolved events", n)
	}
	h.waitScreen("the completed run", "ship-1 · completed", "flow run ship-1 completed")
	h.mustNotSee("Decision · ship-1")
}

// A form: a field that does not parse as its type is refused inline before
// anything is stored; enum fields cycle with ←/→.
func TestFlowFormDecision(t *testing.T) {
	st := newStore(t)
	h := newHarness(t, st, 100, 30, zeroConfig())
	h.startFlow("/flow " + testFlow(t, "form.md"))
	h.waitScreen("the form", "Form · form-1 · step details", "How many boxes", "count (number)", "(enum(small,large))")
	h.clk.Add(time.Second)

	h.typeText("a few")
	h.key("enter")
	h.mustSee("✗ want a number", "✗ choose one with ←/→")
	if d := decisionsOf(t, st); d[0].Status != model.DecisionPending {
		t.Fatalf("an invalid form was stored: %+v", d[0])
	}

	for range "a few" {
		h.key("backspace")
	}
	h.typeText("3")
	h.key("tab", "right", "right") // small, then large
	h.mustSee("‹ large ›")
	h.mustNotSee("✗ want a number")
	h.key("enter")
	h.pump(10*time.Second, "the flow to finish", func() bool { return len(h.m.flowJobs) == 0 })

	d := decisionsOf(t, st)[0]
	if d.Status != model.DecisionResolved || d.Kind != model.DecisionForm {
		t.Fatalf("decision = %+v", d)
	}
	r := flowRun(t, st, "form-1")
	if r.Status != model.FlowCompleted || r.Vars["count"] != 3.0 || r.Vars["size"] != "large" {
		t.Fatalf("run = %s, vars %v", r.Status, r.Vars)
	}
}

// Answered elsewhere between the load and the key: the store refuses the
// second resolution and the prompt says so in place.
func TestFlowDecisionRefusedSecondResolution(t *testing.T) {
	st := newStore(t)
	h := newHarness(t, st, 80, 24, zeroConfig())
	h.startFlow("/flow " + testFlow(t, "ship.md") + " it")
	h.waitScreen("the decision prompt", "Decision · ship-1")
	h.clk.Add(time.Second)
	id := decisionsOf(t, st)[0].ID
	if _, err := flows.ResolveDecision(st, id, flows.Answer{Option: "ship"}, "bob", t0); err != nil {
		t.Fatal(err)
	}
	h.key("2")
	h.mustSee("refused (decision_not_pending)", "already resolved with", `"ship" by bob`)
	d := decisionsOf(t, st)[0]
	if d.Resolution.Option != "ship" || d.Resolution.Actor != "bob" {
		t.Fatalf("the refused answer changed the decision: %+v", d.Resolution)
	}
	if n := countEvents(t, st, "ship-1", model.FlowEvDecisionResolved); n != 1 {
		t.Fatalf("%d decision_resolved events", n)
	}
	// Loads do not take the refusal away; esc does.
	h.pump(10*time.Second, "the flow to finish", func() bool { return len(h.m.flowJobs) == 0 })
	h.mustSee("refused (decision_not_pending)")
	h.key("esc")
	h.mustNotSee("Decision · ship-1")
	if r := flowRun(t, st, "ship-1"); r.Step != "shipped" || r.Status != model.FlowCompleted {
		t.Fatalf("run = %s at %s", r.Status, r.Step)
	}
}

// interruptRun leaves a run of slow.md as a crash would: running, with its
// exec block started and never finished, and no process holding its lock.
func interruptRun(t *testing.T, st *db.Store) string {
	t.Helper()
	f, source, err := flows.Load(filepath.Dir(st.Dir()), testFlow(t, "slow.md"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	eng := &flows.Engine{Store: st, Root: filepath.Dir(st.Dir()), Actor: "agent", NoIsolation: true, Now: func() time.Time { return t0.Add(-time.Minute) }}
	done := make(chan error, 1)
	go func() { _, err := eng.Start(ctx, f, source, nil, nil); done <- err }()
	deadline := time.Now().Add(time.Minute) // a backstop
	for {
		if r, err := st.FlowRun("slow-1"); err == nil && r.InFlight != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the exec block never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled run finished")
	}
	if r := flowRun(t, st, "slow-1"); r.Status != model.FlowRunning || r.InFlight == nil {
		t.Fatalf("run = %s, in flight %v", r.Status, r.InFlight)
	}
	return "slow-1"
}

// A run whose process died shows at start as interrupted with its
// retry/skip/cancel decision; answering resumes it in the cockpit.
func TestFlowInterruptedRunShowsAtStart(t *testing.T) {
	st := newStore(t)
	id := interruptRun(t, st)
	h := newHarness(t, st, 80, 24, zeroConfig())
	h.mustSee("Interrupted · slow-1 · step wait", "1 retry", "2 skip", "3 cancel", "interrupted slow-1")
	if r := flowRun(t, st, id); r.Status != model.FlowInterrupted || r.Decision == "" {
		t.Fatalf("run = %s, decision %q", r.Status, r.Decision)
	}
	h.keyAsync("2")
	h.pump(10*time.Second, "the resumed run to finish", func() bool {
		return len(h.m.flowJobs) == 0 && flowRun(t, st, id).Status == model.FlowCompleted
	})
	r := flowRun(t, st, id)
	if r.Step != "after" || len(r.History) != 2 || r.History[0].Outcome != "done" {
		t.Fatalf("run = %s at %s, history %+v", r.Status, r.Step, r.History)
	}
	if d := decisionsOf(t, st); len(d) != 1 || d[0].Resolution.Option != "skip" {
		t.Fatalf("decisions = %+v", d)
	}
	h.waitScreen("the completed run", "slow-1 · completed")
}

// p pauses the shown run after its step, u resumes it here, c cancels a run
// after y.
func TestFlowPauseResumeCancel(t *testing.T) {
	st := newStore(t)
	h := newHarness(t, st, 80, 24, zeroConfig())
	h.startFlow("/flow " + testFlow(t, "ship.md") + " it")
	h.waitScreen("the decision prompt", "Decision · ship-1")
	h.clk.Add(time.Second)
	h.key("esc") // later
	h.mustSee("⚑ 1 waiting: decision ship-1 ask")
	h.key("p")
	h.mustSee("pause ship-1: it stops after step ask")
	if !flowRun(t, st, "ship-1").PauseRequested {
		t.Fatal("no pause requested")
	}
	h.key("enter") // the flow pane opens the decision again
	h.mustSee("Decision · ship-1")
	h.key("1")
	h.pump(10*time.Second, "the pause", func() bool { return len(h.m.flowJobs) == 0 })
	// The answer is in; the run stops before it routes on.
	h.waitScreen("the paused run", "ship-1 · paused", "paused at step ask")
	if r := flowRun(t, st, "ship-1"); r.Status != model.FlowInterrupted || !r.PauseRequested {
		t.Fatalf("run = %s at %s", r.Status, r.Step)
	}
	h.keyAsync("u")
	h.pump(10*time.Second, "the resumed run", func() bool { return flowRun(t, st, "ship-1").Status == model.FlowCompleted })
	h.pump(10*time.Second, "the engine to return", func() bool { return len(h.m.flowJobs) == 0 })

	h.clk.Add(time.Second) // the second run sorts after the first
	h.startFlow("/flow " + testFlow(t, "ship.md") + " that")
	h.waitScreen("the second decision", "Decision · ship-2")
	h.clk.Add(time.Second)
	h.key("esc", "c")
	h.mustSee("Cancel flow run ship-2?", "Its pending decision")
	h.key("y")
	h.pump(10*time.Second, "the cancelled run's engine", func() bool { return len(h.m.flowJobs) == 0 })
	r := flowRun(t, st, "ship-2")
	d := decisionsOf(t, st)
	if r.Status != model.FlowCancelled || d[len(d)-1].Status != model.DecisionCancelled {
		t.Fatalf("run %s, decision %+v", r.Status, d[len(d)-1])
	}
	h.waitScreen("the cancelled run", "ship-2 · cancelled")
	h.key("c")
	h.mustSee("ship-2 is cancelled: nothing to cancel")
}

// /flow-auto without a session asks for a goal and starts nothing.
func TestFlowAutoNeedsAGoal(t *testing.T) {
	st := newStore(t)
	h := newHarness(t, st, 80, 24, zeroConfig())
	h.key(":")
	h.typeText("/flow-auto")
	h.key("enter")
	h.mustSee("/flow-auto needs a goal", "/flow-plan GOAL")
	if runs, _ := st.FlowRuns(); len(runs) != 0 || len(h.m.flowJobs) != 0 {
		t.Fatalf("started %d runs", len(runs))
	}
	// Completion knows the flows and the flow runs.
	h.key("esc", ":")
	h.typeText("/flow r")
	h.key("tab")
	h.mustSee("tab: review  run")
	h.key("esc", ":")
	h.typeText("/flow pl")
	h.key("tab")
	h.mustSee(":/flow plan")
}

// A refused /flow: a file that does not parse says where, before anything
// runs.
func TestFlowFileErrors(t *testing.T) {
	st := newStore(t)
	bad := filepath.Join(t.TempDir(), "bad.md")
	if err := os.WriteFile(bad, []byte("---\nliterate: true\n---\n```yaml {config}\nstep: a\nnxt: nowhere\n```\nHi.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, st, 100, 30, zeroConfig())
	h.startFlow("/flow " + bad)
	h.pump(10*time.Second, "the refusal", func() bool { return len(h.m.flowJobs) == 0 })
	h.mustSee("the flow file has errors", "bad.md:6")
	if runs, _ := st.FlowRuns(); len(runs) != 0 {
		t.Fatalf("started %d runs", len(runs))
	}
}

// /flow-plan GOAL starts the built-in plan flow, which starts the session
// through the real flowdeck binary and, with no planner agent, asks the
// person for the plan in a form, whose plan opens in their editor.
func TestCommandLinePlanStart(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the flowdeck binary")
	}
	dir := binaries(t)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	st := newStore(t)
	h := newHarness(t, st, 80, 24, zeroConfig())
	h.mustSee("No active session")
	h.key(":")
	h.typeText("/flow-plan Add dark mode")
	h.keyAsync("enter")
	h.waitScreen("the plan form", "Form · plan-1 · step draft", "plan (json)")
	// No planner agent: the form's plan opens in the person's editor at once.
	h.pump(10*time.Second, "the editor", func() bool { return h.m.editing != nil && h.m.editing.file != nil })
	h.m.editing.file.Remove()
	s := active(t, st)
	if s == nil || s.Goal != "Add dark mode" {
		t.Fatalf("active = %+v", s)
	}
	h.mustSee("Add dark mode", "[planning]", "⚑ 1 waiting: decision plan-1 draft")
	r := flowRun(t, st, "plan-1")
	if r.Flow != "plan" || r.Source != "builtin:plan" || strings.Join(r.Args, " ") != "Add dark mode" || r.Status != model.FlowWaiting {
		t.Fatalf("run = %+v", r)
	}
	// History keeps the line.
	h.clk.Add(time.Second)
	h.key("esc", ":", "up")
	h.mustSee(":/flow-plan Add dark mode")
}

// releaseFlow's run, as the golden frames show it: built event by event so
// that every id and time is fixed. state "running": the build step's
// command is printing; "decision": the build finished and the approval
// waits. The test holds the run's lock, as the process executing it would.
func releaseRun(t *testing.T, st *db.Store, state string) {
	t.Helper()
	src, err := os.ReadFile(testFlow(t, "release.md"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := flowfile.Parse("release.md", src)
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.ReserveFlowRunID("release")
	if err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(st.Dir(), "flowruns", id+".lock")
	if err := os.MkdirAll(filepath.Dir(lockPath), 0o755); err != nil {
		t.Fatal(err)
	}
	lf, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lf.Close() })

	at := t0.Add(-4 * time.Minute)
	if _, err := st.CreateFlowRun(&model.FlowRun{ID: id, Flow: "release", Source: ".flow/flows/release.md", Hash: f.Hash, Text: f.Source,
		Args: []string{"1.4.0"}, MaxSteps: 1000}, "test", map[string]any{"ARGUMENTS": "1.4.0", "version": "1.4.0"}, "human", at); err != nil {
		t.Fatal(err)
	}
	ev := func(when time.Time, evs ...model.FlowEvent) {
		t.Helper()
		if _, err := st.AppendFlowEvents(id, "human", when, evs...); err != nil {
			t.Fatal(err)
		}
	}
	one := func(n int) *int { return &n }
	str := func(s string) *string { return &s }
	testOut := "ok  \texample.com/app\t0.41s\nok  \texample.com/app/store\t0.12s\n"
	testRun := flowCapture(t, st, "20260314-092253.000-aaaaaa", at, []string{"sh", "-c", "go test ./..."}, testOut, false)
	ev(at, model.FlowEvent{Type: model.FlowEvActionStarted, Step: "test", Kind: "exec", Label: "exec block 1 (sh, line 14)"})
	ev(at.Add(2*time.Second), model.FlowEvent{Type: model.FlowEvActionFinished, Step: "test", Kind: "exec", RunID: testRun, Exit: one(0),
		Summary: "ok", Output: str(strings.TrimSpace(testOut)),
		Vars: map[string]any{"exec": map[string]any{"output": strings.TrimSpace(testOut), "exit": 0.0, "summary": "ok", "run": testRun}}},
		model.FlowEvent{Type: model.FlowEvPrompt, Step: "test", Prompt: "Run the whole test suite before building.\n\n" + strings.TrimSpace(testOut)},
		model.FlowEvent{Type: model.FlowEvStepFinished, Step: "test", Outcome: "done", Next: one(1), NextStep: "build"})
	build := at.Add(time.Minute)
	buildOut := "building 1.4.0\nGOOS=linux GOARCH=amd64 → dist/app-linux-amd64\nGOOS=darwin GOARCH=arm64 → dist/app-darwin-arm64\n"
	running := state == "running"
	if !running {
		buildOut += "GOOS=windows GOARCH=amd64 → dist/app-windows-amd64.exe\nsha256 3f2a…e91c  dist/app-linux-amd64\n"
	}
	buildRun := flowCapture(t, st, "20260314-092353.000-bbbbbb", build, []string{"sh", "-c", "make release VERSION=1.4.0"}, buildOut, running)
	ev(build, model.FlowEvent{Type: model.FlowEvActionStarted, Step: "build", StepIndex: 1, Kind: "exec", Label: "exec block 1 (sh, line 27)"})
	if running {
		return
	}
	ev(build.Add(time.Minute), model.FlowEvent{Type: model.FlowEvActionFinished, Step: "build", StepIndex: 1, Kind: "exec", RunID: buildRun, Exit: one(0),
		Summary: "ok", Output: str(strings.TrimSpace(buildOut)),
		Vars: map[string]any{"exec": map[string]any{"output": strings.TrimSpace(buildOut), "exit": 0.0, "summary": "ok", "run": buildRun}}},
		model.FlowEvent{Type: model.FlowEvPrompt, Step: "build", StepIndex: 1, Prompt: "Building 1.4.0 for every platform.\n\n" + strings.TrimSpace(buildOut)},
		model.FlowEvent{Type: model.FlowEvStepFinished, Step: "build", StepIndex: 1, Outcome: "done", Next: one(2), NextStep: "approve"},
		model.FlowEvent{Type: model.FlowEvPrompt, Step: "approve", StepIndex: 2, Prompt: "The build printed its checksums above."})
	d := &model.Decision{FlowRun: id, Flow: "release", Step: "approve", Kind: model.DecisionChoice, Action: 1,
		Prompt:  "The build printed its checksums above.\n\nPublish 1.4.0?",
		Options: []model.DecisionOption{{ID: "publish", Description: "push the tag and upload the archives"}, {ID: "hold", Description: "keep it as a draft"}}}
	if _, _, err := st.CreateDecision(d, "human", build.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
}

// flowCapture stores a capture run with a fixed id (addRun's way).
func flowCapture(t *testing.T, st *db.Store, id string, at time.Time, argv []string, out string, running bool) string {
	t.Helper()
	rec := model.RunRecord{ID: id, Argv: argv, Actor: "human", Cwd: "/project", Start: at}
	w, err := st.StartRun(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeRaw(w, []byte(out)); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		indexLine(w, l)
	}
	if running {
		t.Cleanup(func() { _, _ = w.Finish(rec, 0) })
		deadline := time.Now().Add(30 * time.Second)
		for {
			if r, err := st.Run(id); err == nil && r.Bytes >= int64(len(out)) {
				return id
			}
			if time.Now().After(deadline) {
				t.Fatal("running output never committed")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	rec.Outcome, rec.Duration, rec.Summary = "exited", 2*time.Second, "ok"
	if _, err := w.Finish(rec, 0); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestFlowGoldenFrames pins the flow pane with a run printing, and the
// decision prompt over it, at 80x24 and 160x48. Update with -update.
func TestFlowGoldenFrames(t *testing.T) {
	cases := []struct {
		name, state string
		keys        []string
	}{
		{"flow-running", "running", []string{"7"}},
		{"decision-open", "decision", nil},
	}
	for _, c := range cases {
		for _, size := range [][2]int{{80, 24}, {160, 48}} {
			t.Run(fmt.Sprintf("%s-%dx%d", c.name, size[0], size[1]), func(t *testing.T) {
				st := newStore(t)
				scenario(t, st, "running")
				releaseRun(t, st, c.state)
				h := newHarness(t, st, size[0], size[1], zeroConfig())
				h.key(c.keys...)
				golden.RequireEqual(t, h.screen())
			})
		}
	}
}

// Quitting stops the engine goroutines: the run stays as it was (waiting
// for its decision), with no process executing it.
func TestQuitStopsFlows(t *testing.T) {
	st := newStore(t)
	h := newHarness(t, st, 80, 24, zeroConfig())
	h.startFlow("/flow " + testFlow(t, "ship.md") + " it")
	h.waitScreen("the decision prompt", "Decision · ship-1")
	h.clk.Add(time.Second)
	h.keyAsync("ctrl+c")
	// A flow started here runs: quitting asks first, naming it.
	h.pump(5*time.Second, "the quit question", func() bool { return strings.Contains(h.screen(), "Quit flowdeck?") })
	h.mustSee("1 run(s) and flow(s) started here are stopped")
	h.keyAsync("y")
	h.pump(10*time.Second, "the cockpit to quit", func() bool { return h.quit })
	if flows.Executing(st, "ship-1") {
		t.Fatal("the run is still executed after quitting")
	}
	if r := flowRun(t, st, "ship-1"); r.Status != model.FlowWaiting {
		t.Fatalf("run = %s", r.Status)
	}
}
