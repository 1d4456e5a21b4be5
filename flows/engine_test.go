package flows

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/model"
)

// shAgent is an agent whose answer depends on how often it was called
// (counted in a file): answers[i] for call i, the last one repeated.
func shAgent(t *testing.T, answers ...string) config.Agent {
	dir := t.TempDir()
	var script strings.Builder
	script.WriteString(`n=$(cat "$0.count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$0.count"; cat > "$0.prompt.$n"` + "\n")
	script.WriteString(`echo "run=$FLOWDECK_FLOW_RUN dir=$FLOWDECK_DIR actor=$FLOWDECK_ACTOR"` + "\n")
	for i, a := range answers {
		cond := "[ $n -ge " + itoa(i+1) + " ]"
		if i < len(answers)-1 {
			cond = "[ $n -eq " + itoa(i+1) + " ]"
		}
		script.WriteString("if " + cond + "; then printf '%s\\n' '" + a + "'; exit 0; fi\n")
	}
	path := filepath.Join(dir, "agent")
	os.WriteFile(path, []byte(script.String()), 0o755)
	return config.Agent{Command: []string{"sh", path}, Prompt: config.PromptStdin}
}

func itoa(n int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + string(rune('0'+n))) }

func start(t *testing.T, e *Engine, src string, args ...string) *model.FlowRun {
	t.Helper()
	f := parse(t, "test.md", src)
	run, err := e.Start(context.Background(), f, "test.md", args, nil)
	if err != nil && err != ErrWaiting {
		t.Fatalf("start: %v", err)
	}
	return run
}

func TestAgentRetriesUntilTheAnswerFits(t *testing.T) {
	a := shAgent(t, "thinking, no JSON here", `{"n": "many", "ok": true}`, "```json\n{\"n\": \"42\", \"ok\": \"yes\", \"color\": \"Red\"}\n```")
	e, log := project(t, map[string]config.Agent{"worker": a})
	run := start(t, e, "---\nliterate: true\nagent: worker\n---\n```yaml {config}\nparse:\n  n: number\n  ok: bool\n  color: enum(red, blue)\n```\nCount for $ARGUMENTS.\n", "the", "test")
	if run.Status != model.FlowCompleted {
		t.Fatalf("%s: %s\n%s", run.Status, run.Error, log)
	}
	if run.Vars["n"] != float64(42) || run.Vars["ok"] != true || run.Vars["color"] != "red" {
		t.Fatalf("vars: %v", run.Vars)
	}
	ag := run.Vars["agent"].(map[string]any)
	if !strings.Contains(ag["output"].(string), "run="+run.ID+" dir="+e.Root+" actor=worker") {
		t.Errorf("agent env: %q", ag["output"])
	}
	prompt := func(n int) string {
		data, _ := os.ReadFile(a.Command[1] + ".prompt." + itoa(n))
		return string(data)
	}
	if !strings.Contains(prompt(1), "Count for the test.") || !strings.Contains(prompt(1), `"color": one of "red", "blue"`) {
		t.Errorf("first prompt:\n%s", prompt(1))
	}
	if !strings.Contains(prompt(2), "no JSON object found") || !strings.Contains(prompt(3), `"n": want a number, got "many"`) {
		t.Errorf("retry prompts do not explain:\n%s\n---\n%s", prompt(2), prompt(3))
	}
}

func TestAgentThatNeverAnswersFailsTheStep(t *testing.T) {
	e, _ := project(t, map[string]config.Agent{"worker": shAgent(t, `{"x": 1}`)})
	run := start(t, e, "---\nliterate: true\n---\n```yaml {config}\nstep: ask\nagent: worker\nparse:\n  n: number\n```\nHow many?\n")
	if run.Status != model.FlowFailed || !strings.Contains(run.Error, `step "ask": agent worker gave no usable answer in 4 attempts`) {
		t.Fatalf("%s: %s", run.Status, run.Error)
	}
}

func TestExecBlocksStoreAndRoute(t *testing.T) {
	e, _ := project(t, nil)
	run := start(t, e, "---\nliterate: true\nargs: [who]\n---\n"+
		"```yaml {config}\nstep: one\nset:\n  total: \"count * 2\"\nnext:\n  \"total === 6 && exec.exit === 0\": two\n  _: three\n```\n"+
		"```sh {exec mode=store}\necho \"{\\\"count\\\": 3, \\\"who\\\": \\\"$FLOWDECK_FLOW_RUN\\\"}\"\n```\n"+
		"```python {exec}\nprint('hello', $who)\n```\n"+
		"---\n```yaml {config}\nstep: three\nstop: true\n```\nwrong\n---\n"+
		"```yaml {config}\nstep: two\n```\n```sh {exec mode=none}\nexit 3\n```\n", "ignored")
	if run.Status != model.FlowCompleted || run.Vars["total"] != float64(6) || run.Vars["who"] != run.ID {
		t.Fatalf("%s %s %v", run.Status, run.Error, run.Vars)
	}
	if steps := run.History; steps[1].Step != "two" || run.Vars["exec"].(map[string]any)["exit"] != float64(3) {
		t.Fatalf("history %+v exec %v", steps, run.Vars["exec"])
	}
	events, _ := e.Store.FlowEvents(run.ID, 1, 0)
	var prompts []string
	for _, ev := range events {
		if ev.Type == model.FlowEvPrompt {
			prompts = append(prompts, ev.Prompt)
		}
	}
	if len(prompts) == 0 || !strings.Contains(prompts[0], "hello "+run.ID) {
		t.Fatalf("the exec output is not in the prompt: %q", prompts)
	}
}

func TestBadConditionFailsNamingStepAndCondition(t *testing.T) {
	e, _ := project(t, nil)
	run := start(t, e, "---\nliterate: true\n---\n```yaml {config}\nstep: check\nset:\n  n: \"1\"\nnext:\n  \"n > 'a'\": check\n```\n")
	if run.Status != model.FlowFailed || !strings.Contains(run.Error, `step "check": condition "n > 'a'" (line 9) could not be evaluated`) {
		t.Fatalf("%s: %q", run.Status, run.Error)
	}
}

func TestLoopGuard(t *testing.T) {
	e, _ := project(t, nil)
	run := start(t, e, "---\nliterate: true\nmax_steps: 5\n---\n```yaml {config}\nstep: again\nnext: again\n```\n")
	if run.Status != model.FlowFailed || !strings.Contains(run.Error, "loop guard: the run executed 5 steps") {
		t.Fatalf("%s: %q", run.Status, run.Error)
	}
}

const decisionFlow = "---\nliterate: true\n---\n```yaml {config}\nstep: ask\ndecision:\n  prompt: Ship $what?\n  options: [ship, hold]\n  timeout: %s\n%s\nnext:\n  \"decision.option === 'ship'\": shipped\n  _: held\n```\n" +
	"---\n```yaml {config}\nstep: shipped\nstop: true\n```\n---\n```yaml {config}\nstep: held\nstop: true\n```\n"

func TestDecisionsResolveOnceAndTimeOut(t *testing.T) {
	e, _ := project(t, nil)
	f := parse(t, "d.md", strings.Replace(strings.Replace(decisionFlow, "%s", "1h", 1), "%s", "", 1))
	run, err := e.Start(context.Background(), f, "d.md", nil, map[string]any{"what": "it"})
	if err != ErrWaiting {
		t.Fatal(err)
	}
	d := pending(t, e, run)
	if d.Prompt != "Ship it?" || d.Deadline == nil {
		t.Fatalf("decision %+v", d)
	}
	if _, err := ResolveDecision(e.Store, d.ID, Answer{Option: "maybe"}, "p", time.Now()); err == nil || !strings.Contains(err.Error(), `has no option "maybe" (options: ship, hold)`) {
		t.Fatalf("unknown option: %v", err)
	}
	if _, err := ResolveDecision(e.Store, d.ID, Answer{Option: "hold", Vars: map[string]string{"x": "1"}}, "p", time.Now()); err == nil {
		t.Fatal("--var on a decision without a form was accepted")
	}
	if _, err := ResolveDecision(e.Store, d.ID, Answer{Option: "ship", Note: "go"}, "p", time.Now()); err != nil {
		t.Fatal(err)
	}
	_, err = ResolveDecision(e.Store, d.ID, Answer{Option: "hold"}, "q", time.Now())
	if err == nil || !strings.Contains(err.Error(), `decision `+d.ID+` was already resolved with "ship" by p`) {
		t.Fatalf("second resolution: %v", err)
	}
	run, _ = e.Resume(context.Background(), run.ID)
	if run.Status != model.FlowCompleted || run.History[len(run.History)-1].Step != "shipped" {
		t.Fatalf("%s %+v", run.Status, run.History)
	}

	// A timeout with a fallback resolves to it; without one the run fails.
	e.Wait = true
	f = parse(t, "d.md", strings.Replace(strings.Replace(decisionFlow, "%s", "50ms", 1), "%s", "  fallback: hold", 1))
	run, _ = e.Start(context.Background(), f, "d.md", nil, map[string]any{"what": "it"})
	if run.Status != model.FlowCompleted || run.History[len(run.History)-1].Step != "held" || run.Vars["decision"] == nil {
		t.Fatalf("fallback: %s %+v", run.Status, run.History)
	}
	f = parse(t, "d.md", strings.Replace(strings.Replace(decisionFlow, "%s", "50ms", 1), "%s", "", 1))
	run, _ = e.Start(context.Background(), f, "d.md", nil, nil)
	if run.Status != model.FlowFailed || !strings.Contains(run.Error, "timed out") || !strings.Contains(run.Error, "no fallback") {
		t.Fatalf("timeout: %s %q", run.Status, run.Error)
	}
}

func TestHumanFormAndTask(t *testing.T) {
	e, _ := project(t, map[string]config.Agent{})
	run := start(t, e, "---\nliterate: true\nagent: planner\n---\n```yaml {config}\nparse:\n  n: number\n  tags: array\n```\nHow many?\n"+
		"---\n```yaml {config}\nagent: worker\n```\nDo the work by hand.\n")
	d := pending(t, e, run)
	if d.Kind != model.DecisionForm || len(d.Fields) != 2 {
		t.Fatalf("no agent for planner: want a form, got %+v", d)
	}
	if _, err := ResolveDecision(e.Store, d.ID, Answer{Vars: map[string]string{"n": "x"}}, "p", time.Now()); err == nil || !strings.Contains(err.Error(), "n: want a number") || !strings.Contains(err.Error(), "tags is missing") {
		t.Fatalf("bad form: %v", err)
	}
	run = answerAndResume(t, e, run, Answer{Option: `{"n": 2, "tags": ["a"]}`})
	d = pending(t, e, run)
	if d.Kind != model.DecisionTask || run.Vars["n"] != float64(2) {
		t.Fatalf("want a task for the worker: %+v %v", d, run.Vars)
	}
	run = answerAndResume(t, e, run, Answer{Option: "done"})
	if run.Status != model.FlowCompleted {
		t.Fatalf("%s %s", run.Status, run.Error)
	}
}

func TestCancelAndRecover(t *testing.T) {
	e, _ := project(t, nil)
	f := parse(t, "d.md", strings.Replace(strings.Replace(decisionFlow, "%s", "1h", 1), "%s", "", 1))
	run, _ := e.Start(context.Background(), f, "d.md", nil, nil)
	if _, err := CancelRun(e.Store, run.ID, "p", time.Now()); err != nil {
		t.Fatal(err)
	}
	if d, _ := e.Store.Decision(run.Decision); d.Status != model.DecisionCancelled {
		t.Fatalf("decision after cancel: %s", d.Status)
	}
	if _, err := ResolveDecision(e.Store, run.Decision, Answer{Option: "ship"}, "p", time.Now()); err == nil {
		t.Fatal("a cancelled decision was resolved")
	}

	// A run left running inside an idempotent exec block: recovery marks it
	// interrupted without asking, and resuming runs the block again.
	f = parse(t, "i.md", "---\nliterate: true\n---\n```yaml {config}\nidempotent: true\n```\n```sh {exec mode=store}\necho '{\"ran\": true}'\n```\n")
	id, _ := e.Store.ReserveFlowRunID("i")
	r, _ := e.Store.CreateFlowRun(&model.FlowRun{ID: id, Flow: "i", Source: "i.md", Text: f.Source, MaxSteps: 10}, f.Steps[0].Name, nil, "t", time.Now())
	e.Store.AppendFlowEvents(r.ID, "t", time.Now(), model.FlowEvent{Type: model.FlowEvActionStarted, Step: "step-1", Kind: "exec", Label: "exec block 1", Idempotent: true})
	marked, err := Recover(e.Store, "t", time.Now())
	if err != nil || len(marked) != 1 || marked[0].Status != model.FlowInterrupted || marked[0].Decision != "" {
		t.Fatalf("recover: %v %+v", err, marked)
	}
	if run, err = e.Resume(context.Background(), r.ID); err != nil || run.Status != model.FlowCompleted || run.Vars["ran"] != true {
		t.Fatalf("resume: %v %+v", err, run)
	}
}

// TestSettle: listing decisions settles them first, so a due decision
// whose run waits in no process is not offered as pending.
func TestSettle(t *testing.T) {
	e, _ := project(t, nil)
	f := parse(t, "d.md", strings.Replace(strings.Replace(decisionFlow, "%s", "1h", 1), "%s", "", 1))
	run, err := e.Start(context.Background(), f, "d.md", nil, nil)
	if err != ErrWaiting {
		t.Fatal(err)
	}
	if err := Settle(e.Store, "t", time.Now()); err != nil {
		t.Fatal(err)
	}
	if d, _ := e.Store.Decision(run.Decision); d.Status != model.DecisionPending {
		t.Fatalf("a decision that is not due yet was settled: %s", d.Status)
	}
	if err := Settle(e.Store, "t", time.Now().Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if d, _ := e.Store.Decision(run.Decision); d.Status != model.DecisionExpired {
		t.Fatalf("a due decision without a fallback: %s, want expired", d.Status)
	}
	if r, _ := e.Store.FlowRun(run.ID); r.Status != model.FlowFailed {
		t.Fatalf("its run: %s, want failed", r.Status)
	}
}

func TestPauseAndView(t *testing.T) {
	e, _ := project(t, nil)
	f := parse(t, "p.md", "---\nliterate: true\n---\n```yaml {config}\nstep: one\n```\n```sh {exec}\necho one\n```\n---\n```yaml {config}\nstep: two\ndecision: Go on?\n```\nSecond.\n")
	id, _ := e.Store.ReserveFlowRunID("p")
	r, _ := e.Store.CreateFlowRun(&model.FlowRun{ID: id, Flow: "p", Source: "p.md", Text: f.Source, MaxSteps: 10}, "one", nil, "t", time.Now())
	if _, err := PauseRun(e.Store, r.ID, "p", time.Now()); err != nil {
		t.Fatal(err)
	}
	run, err := e.Resume(context.Background(), r.ID)
	if err != ErrPaused || run.Status != model.FlowInterrupted || run.Decision != "" {
		t.Fatalf("pause: %v %+v", err, run)
	}
	run, err = e.Resume(context.Background(), r.ID)
	if err != ErrWaiting || run.Step != "two" {
		t.Fatalf("resume: %v %+v", err, run)
	}
	v, err := View(e.Store, r.ID)
	if err != nil || len(v.Steps) != 2 || !v.Steps[1].Current || v.Steps[1].Kind != "human" || v.Decision == nil || !strings.Contains(v.Prompt, "Second.") || v.Executing {
		t.Fatalf("view: %v %+v", err, v)
	}
}

// A stop: refused step ends the run as refused (not completed), with the
// first paragraph of its text as the reason.
func TestStopRefusedEndsTheRunRefused(t *testing.T) {
	e, log := project(t, nil)
	run := start(t, e, "---\nliterate: true\n---\n```yaml {config}\nstep: a\nset:\n  why: \"'feature x is already active'\"\nnext: no\n```\n---\n```yaml {config}\nstep: no\nstop: refused\n```\n✗ flowdeck refused:\n$why\n\nnext: something\n---\n```yaml {config}\nstep: never\n```\nnot reached\n")
	if run.Status != model.FlowRefused || run.Error != "flowdeck refused: feature x is already active" {
		t.Fatalf("run %s: %q", run.Status, run.Error)
	}
	if h := run.History; len(h) != 2 || h[1].Outcome != "refused" {
		t.Fatalf("history %+v", h)
	}
	if !strings.Contains(log.String(), "✗ flow "+run.ID+" refused: flowdeck refused: feature x") {
		t.Errorf("log:\n%s", log)
	}
	if _, err := flowfile.Parse("bad.md", []byte("---\nliterate: true\n---\n```yaml {config}\nstop: maybe\n```\n")); err == nil || !strings.Contains(err.Error(), "stop must be true, false or refused") {
		t.Errorf("stop: maybe: %v", err)
	}
}

// A step that collects variables and names no role (nor does its flow) is
// answered by the default agent: [agents.default], else the only agent;
// by the person when there is neither, or when the flow names a role that
// has no agent.
func TestStepWithoutAgentGoesToTheDefaultAgent(t *testing.T) {
	const peer = "---\nliterate: true\n---\n```yaml {config}\nstep: ask\nnext:\n  \"confirmed === true\": yes\n  _: no\n```\nReady?\n---\n```yaml {config}\nstep: yes\nstop: true\n```\nyes\n---\n```yaml {config}\nstep: no\nstop: true\n```\nno\n"
	for _, c := range []struct {
		name   string
		agents []string // the first answers {"confirmed": true}
		flow   string
		actor  string // "" = a form for the person
	}{
		{"agents.default", []string{"default", "worker"}, peer, "default"},
		{"the only agent", []string{"helper"}, peer, "helper"},
		{"two agents, no default", []string{"worker", "reviewer"}, peer, ""},
		{"no agents", nil, peer, ""},
		{"the flow names a role without agent", []string{"default"}, strings.Replace(peer, "literate: true\n", "literate: true\nagent: planner\n", 1), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			agents := map[string]config.Agent{}
			for i, role := range c.agents {
				answer := `{"confirmed": true}`
				if i > 0 {
					answer = `{"confirmed": false}`
				}
				agents[role] = shAgent(t, answer)
			}
			e, log := project(t, agents)
			run := start(t, e, c.flow)
			if c.actor == "" {
				if d := pending(t, e, run); d.Kind != model.DecisionForm || len(d.Fields) != 1 || d.Fields[0].Name != "confirmed" {
					t.Fatalf("want a form asking confirmed: %+v", d)
				}
				return
			}
			if run.Status != model.FlowCompleted || run.Vars["confirmed"] != true || run.Step != "yes" {
				t.Fatalf("%s at %s: %s %v\n%s", run.Status, run.Step, run.Error, run.Vars, log)
			}
			if ag, _ := run.Vars["agent"].(map[string]any); ag == nil || ag["role"] != c.actor {
				t.Fatalf("answered by %v, want %s", run.Vars["agent"], c.actor)
			}
		})
	}
}
