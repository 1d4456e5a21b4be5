package flows

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/model"
)

const onErrorFlow = "---\nliterate: true\n---\n```yaml {config}\nstep: ask\nagent: worker\non_error: failed\nparse:\n  n: number\nnext: done\n```\nHow many?\n\n---\n\n```yaml {config}\nstep: failed\nstop: true\n```\n\nfailed: $agent_error.message\n\n---\n\n```yaml {config}\nstep: done\nstop: true\n```\n"

// An agent that never answers usably routes to on_error, with $agent_error,
// instead of failing the run.
func TestAgentFailureRoutesToOnError(t *testing.T) {
	e, log := project(t, map[string]config.Agent{"worker": shAgent(t, `{"x": 1}`)})
	run := start(t, e, onErrorFlow)
	ae, _ := run.Vars["agent_error"].(map[string]any)
	if run.Status != model.FlowCompleted || run.Step != "failed" || ae == nil || ae["crashed"] != false ||
		!strings.Contains(ae["message"].(string), "no usable answer in 4 attempts") {
		t.Fatalf("%s at %s: %v\n%s", run.Status, run.Step, run.Vars["agent_error"], log)
	}
}

// An agent that fails every attempt leaves its last exit status and run
// in $agent_error.
func TestAgentFailureKeepsTheLastAttempt(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "agent")
	os.WriteFile(script, []byte("echo no\nexit 7\n"), 0o755)
	e, log := project(t, map[string]config.Agent{"worker": {Command: []string{"sh", script}}})
	run := start(t, e, onErrorFlow)
	ae, _ := run.Vars["agent_error"].(map[string]any)
	if run.Step != "failed" || ae == nil || ae["exit"] != float64(7) || ae["run"] == "" || ae["run"] == nil {
		t.Fatalf("%s at %s: %v\n%s", run.Status, run.Step, ae, log)
	}
}

// A crashed agent (killed by a signal) is not asked again: the step routes
// to on_error at once.
func TestCrashedAgentIsNotRetried(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "agent")
	os.WriteFile(script, []byte("echo x >> \"$0.calls\"\nkill -9 $$\n"), 0o755)
	e, log := project(t, map[string]config.Agent{"worker": {Command: []string{"sh", script}}})
	run := start(t, e, onErrorFlow)
	ae, _ := run.Vars["agent_error"].(map[string]any)
	calls, _ := os.ReadFile(script + ".calls")
	if run.Step != "failed" || ae == nil || ae["crashed"] != true || !strings.Contains(ae["message"].(string), "SIGKILL") || string(calls) != "x\n" {
		t.Fatalf("%s at %s: %v, calls %q\n%s", run.Status, run.Step, ae, calls, log)
	}
}

// on_error must name a step of the flow.
func TestOnErrorTargetMustExist(t *testing.T) {
	_, err := flowfile.Parse("x.md", []byte("---\nliterate: true\n---\n```yaml {config}\nstep: a\non_error: nowhere\n```\nhi\n"))
	if err == nil || !strings.Contains(err.Error(), `x.md:6: step "a": on_error target "nowhere" is not a step`) {
		t.Fatalf("%v", err)
	}
}

// The run's agent_name names the agent of the flow's role (its runs and
// $FLOWDECK_AGENT); worktree is its working directory, only beneath the
// project; feature is $FLOWDECK_FEATURE.
func TestAgentNameAndWorktree(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "agent")
	os.WriteFile(script, []byte("cat >/dev/null\necho \"{\\\"where\\\": \\\"$(pwd)|$FLOWDECK_AGENT|$FLOWDECK_ACTOR|$FLOWDECK_WORKTREE|$FLOWDECK_FEATURE\\\"}\"\n"), 0o755)
	e, log := project(t, map[string]config.Agent{"worker": {Command: []string{"sh", script}}})
	wt := filepath.Join(e.Root, ".flow", "worktrees", "f1")
	os.MkdirAll(wt, 0o755)
	src := "---\nliterate: true\nagent: worker\n---\n```yaml {config}\nparse:\n  where: string\n```\nWhere?\n"
	for _, c := range []struct {
		worktree, want string
	}{
		{wt, wt + "|worker-2|worker-2|" + wt + "|f1"},
		{".flow/worktrees/f1", wt + "|worker-2|worker-2|" + wt + "|f1"},
		{"/tmp", e.Root + "|worker-2|worker-2|" + e.Root + "|f1"}, // outside the project: refused
		{"../elsewhere", e.Root + "|worker-2|worker-2|" + e.Root + "|f1"},
	} {
		run, err := e.Start(context.Background(), parse(t, "w.md", src), "w.md", nil,
			map[string]any{VarAgent: "worker-2", VarWorktree: c.worktree, VarFeature: "f1"})
		if err != nil || run.Vars["where"] != c.want {
			t.Fatalf("worktree %q: %v: where %q, want %q\n%s", c.worktree, err, run.Vars["where"], c.want, log)
		}
	}
}

// A crew's worker-2 is configured by [agents.worker-2] when there is one,
// else by [agents.worker]; a worker-2 next to worker does not make the
// flow's steps lose their default agent, and another role's name
// (reviewer-1 on the worker's step) never picks a table.
func TestWorkerKHasItsOwnAgent(t *testing.T) {
	agents := map[string]config.Agent{
		"worker":     shAgent(t, `{"who": "worker"}`),
		"worker-2":   shAgent(t, `{"who": "worker-2"}`),
		"reviewer-1": shAgent(t, `{"who": "reviewer-1"}`),
	}
	e, log := project(t, agents)
	src := "---\nliterate: true\nagent: worker\n---\n```yaml {config}\nparse:\n  who: string\n```\nWho?\n"
	for name, want := range map[string]string{"worker-1": "worker", "worker-2": "worker-2", "worker-3": "worker", "reviewer-1": "worker"} {
		run, err := e.Start(context.Background(), parse(t, "w.md", src), "w.md", nil, map[string]any{VarAgent: name})
		if err != nil || run.Vars["who"] != want {
			t.Errorf("agent %s: %v: answered by %v, want %s\n%s", name, err, run.Vars["who"], want, log)
		}
	}
	// A step without a role goes to the default agent: the only role.
	e, log = project(t, map[string]config.Agent{"worker": shAgent(t, `{"who": "worker"}`), "worker-2": shAgent(t, `{"who": "worker-2"}`)})
	run, err := e.Start(context.Background(), parse(t, "d.md", "---\nliterate: true\n---\n```yaml {config}\nparse:\n  who: string\n```\nWho?\n"), "d.md", nil, nil)
	if err != nil || run.Vars["who"] != "worker" {
		t.Errorf("default agent: %v: answered by %v\n%s", err, run.Vars["who"], log)
	}
}

// A run's agent_name and feature are a flow's arguments, anyone's: one that
// is not an agent's name or a feature id does not reach the agent's
// $FLOWDECK_AGENT, $FLOWDECK_FEATURE or its run record.
func TestForgedAgentAndFeatureAreNotTaken(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "agent")
	os.WriteFile(script, []byte("cat >/dev/null\necho \"{\\\"who\\\": \\\"$FLOWDECK_AGENT|$FLOWDECK_FEATURE\\\"}\"\n"), 0o755)
	e, log := project(t, map[string]config.Agent{"worker": {Command: []string{"sh", script}}})
	src := "---\nliterate: true\nagent: worker\n---\n```yaml {config}\nparse:\n  who: string\n```\nWho?\n"
	run, err := e.Start(context.Background(), parse(t, "w.md", src), "w.md", nil,
		map[string]any{VarAgent: "w 2", VarFeature: "f1\x1b]0;x\x07"})
	if err != nil || run.Vars["who"] != "worker|" {
		t.Fatalf("%v: who %q\n%s", err, run.Vars["who"], log)
	}
	runs, err := e.Store.Runs(10)
	if err != nil || len(runs) == 0 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	for _, r := range runs {
		if r.Feature != "" {
			t.Errorf("run %s names feature %q", r.ID, r.Feature)
		}
	}
}
