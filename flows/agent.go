package flows

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/flows/answer"
	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/model"
)

// agentStep sends the step's prompt to the role's agent name, configured
// by [agents.TABLE], and reads its answer, retrying with the problem
// explained.
func (e *Engine) agentStep(ctx context.Context, s *flowfile.Step, name, role, table string, a config.Agent, prompt string, fields []flowfile.Var, run *model.FlowRun) (*model.FlowRun, error) {
	n := len(s.Execs())
	label := "agent " + role
	run, err := e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), model.FlowEvent{Type: model.FlowEvActionStarted, Step: s.Name,
		StepIndex: s.Index, Action: n, Kind: "agent", Label: label, Idempotent: s.Idempotent})
	if err != nil {
		return run, err
	}
	full := prompt
	if len(fields) > 0 {
		full = strings.TrimSpace(prompt + "\n\n" + answer.Instruction(fields))
	}
	timeout := s.Timeout
	if timeout == 0 {
		timeout = a.AgentTimeout()
	}
	limits := s.Limits
	if limits == (flowfile.Limits{}) {
		limits.Pids, limits.CPU = a.Limits.Pids, a.Limits.CPU
		if a.Limits.Memory != "" {
			limits.MemoryBytes, _ = config.ParseBytes(a.Limits.Memory)
		}
	}
	agentEnv, err := a.Environ(table, e.lookupEnv)
	if err != nil {
		return run, err
	}
	e.logf("▶ %s: step %s → agent %s", run.ID, s.Name, role)
	wrap := func(argv []string) []string { return argv }
	if a.Sandbox {
		// Refused before it starts: an agent that was asked to run
		// sandboxed never runs without one.
		if wrap, err = e.sandboxed(ctx, run, a, e.env(run, name, nil)); err != nil {
			return run, &agentFailure{role: role, msg: fmt.Sprintf("agent %s has sandbox = true: %v", table, err), exit: -1}
		}
	}
	current := full
	var problem error
	last := &agentFailure{role: role} // the last attempt's exit and run, for $agent_error
	for attempt := 0; attempt <= AgentRetries; attempt++ {
		file, err := e.tempFile(run, s.Name+"-prompt.md", current)
		if err != nil {
			return run, err
		}
		argv := wrap(agentArgv(a, current, file))
		res, out, err := e.capture(ctx, run, e.agentDir(run), argv, e.env(run, name, withIdentity(agentEnv, file, name)), timeout, limits, name, true, false)
		e.Store.Remove(file)
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return run, err
		}
		exit := res.Run.ExitCode
		last.exit, last.runID = exit, res.Run.ID
		vals := map[string]any{}
		problem = nil
		if res.Run.Signal != "" {
			// A crash is not a bad answer: asking again would hide it.
			return run, &agentFailure{role: role, msg: fmt.Sprintf("the agent was killed by %s (%s)", res.Run.Signal, res.Headline), exit: exit, crashed: true, runID: res.Run.ID}
		}
		if exit != 0 {
			problem = fmt.Errorf("the agent exited with status %d (%s)", exit, res.Headline)
			if last := lastLine(out); last != "" {
				// What it said last is usually why (a sandbox's refusal, a
				// client's error); the headline is only the command.
				problem = fmt.Errorf("%w: %s", problem, last)
			}
		} else if len(fields) > 0 {
			vals, problem = answer.Extract(out, fields)
		}
		if problem == nil {
			vals["agent"] = map[string]any{"output": clip(out), "exit": float64(exit), "run": res.Run.ID, "role": role}
			return e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), model.FlowEvent{Type: model.FlowEvActionFinished, Step: s.Name,
				StepIndex: s.Index, Action: n, Kind: "agent", RunID: res.Run.ID, Exit: &exit, Summary: res.Headline, Vars: vals})
		}
		e.logf("  %s: answer %d of %d unusable: %v", role, attempt+1, AgentRetries+1, problem)
		current = answer.Retry(full, fields, problem)
		if run, err = e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), model.FlowEvent{Type: model.FlowEvPrompt, Step: s.Name,
			StepIndex: s.Index, RunID: res.Run.ID, Error: problem.Error(), Prompt: current}); err != nil {
			return run, err
		}
	}
	last.msg = fmt.Sprintf("step %q: agent %s gave no usable answer in %d attempts: %v", s.Name, role, AgentRetries+1, problem)
	return run, last
}

// agentFailure is an agent step that got no answer: the run fails, or
// routes to the step's on_error.
type agentFailure struct {
	role, msg, runID string
	exit             int
	crashed          bool
}

func (a *agentFailure) Error() string { return a.msg }

// agentFailed finishes step s after its agent failed, routing to its
// on_error step with $agent_error set.
func (e *Engine) agentFailed(f *flowfile.Flow, s *flowfile.Step, run *model.FlowRun, fail *agentFailure) (*model.FlowRun, error) {
	target := f.Step(s.OnError)
	if target == nil {
		return run, fail
	}
	if err := loopGuard(run, target.Name); err != nil {
		return run, err
	}
	e.logf("✗ %s: step %s: %s → %s", run.ID, s.Name, fail.msg, target.Name)
	exit := fail.exit
	vals := map[string]any{"agent_error": map[string]any{"message": fail.msg, "crashed": fail.crashed,
		"exit": float64(fail.exit), "run": fail.runID, "role": fail.role, "step": s.Name}}
	next := target.Index
	return e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(),
		model.FlowEvent{Type: model.FlowEvActionFinished, Step: s.Name, StepIndex: s.Index, Action: len(s.Execs()), Kind: "agent",
			RunID: fail.runID, Exit: &exit, Summary: fail.msg, Vars: vals},
		model.FlowEvent{Type: model.FlowEvStepFinished, Step: s.Name, StepIndex: s.Index, Outcome: "agent_failed", Next: &next,
			NextStep: target.Name, Note: fail.msg})
}

// lastLine is the last non-empty line of out, at most 200 characters.
func lastLine(out string) string {
	out = strings.TrimSpace(out)
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		out = strings.TrimSpace(out[i+1:])
	}
	if r := []rune(out); len(r) > 200 {
		out = string(r[:199]) + "…"
	}
	return out
}

// lookupEnv reads a variable of the environment the agents inherit (what
// an agent's ${NAME} env values name).
func (e *Engine) lookupEnv(name string) (string, bool) {
	if e.Env == nil {
		return os.LookupEnv(name)
	}
	return envLookup(e.Env, name)
}

// withIdentity is what an agent process gets beside the flow's environment:
// the agent's configured env, its prompt file, and FLOWDECK_AGENT, its
// name. The name marks every process the agent starts (its MCP server,
// its CLI calls) as an agent flowdeck launched, which the person's
// decisions are refused to, so the config cannot take it away. Exec
// blocks do not get it: they carry out what the flow, and through its
// decisions the person, decided.
func withIdentity(base map[string]string, promptFile, name string) map[string]string {
	out := map[string]string{"FLOWDECK_PROMPT_FILE": promptFile}
	for k, v := range base {
		out[k] = v
	}
	out["FLOWDECK_AGENT"] = name
	return out
}

// agentArgv builds the agent's command line for its prompt mode. stdin
// goes through a file redirect: a pty's line discipline cuts typed lines
// at 4 KiB, prompts are longer.
func agentArgv(a config.Agent, prompt, file string) []string {
	switch a.Prompt {
	case config.PromptArg:
		return append(append([]string(nil), a.Command...), prompt)
	case config.PromptFile:
		argv := make([]string, 0, len(a.Command)+1)
		found := false
		for _, w := range a.Command {
			if strings.Contains(w, "{prompt_file}") {
				w, found = strings.ReplaceAll(w, "{prompt_file}", file), true
			}
			argv = append(argv, w)
		}
		if !found {
			argv = append(argv, file)
		}
		return argv
	}
	return append([]string{"sh", "-c", model.PromptStdin, "agent"}, a.Command...)
}
