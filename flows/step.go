package flows

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/flows/cond"
	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/flows/interp"
	"github.com/flowdeck/flowdeck/model"
)

// step runs the current step from run.Action to its end (or until it
// waits) and returns the run after it.
func (e *Engine) step(ctx context.Context, f *flowfile.Flow, run *model.FlowRun) (*model.FlowRun, error) {
	if run.StepIndex >= len(f.Steps) {
		return run, fmt.Errorf("step %d does not exist in this flow", run.StepIndex)
	}
	s := f.Steps[run.StepIndex]
	execs := s.Execs()
	n := len(execs)
	if run.Action == 0 {
		e.logf("▶ %s: step %s", run.ID, s.Name)
	}
	for run.Action < n {
		var err error
		if run, err = e.execBlock(ctx, s, execs[run.Action], run); err != nil {
			return run, err
		}
	}
	role := e.answerer(f, s, run)
	name := agentName(run, role, f.Agent)
	table, agent, hasAgent := e.agentConfig(role, name)
	hasAgent = hasAgent && role != "human"
	if run.Action == n {
		prompt := e.prompt(s, run)
		fields := e.fields(s, run)
		var err error
		if prompt != "" || len(fields) > 0 || s.Decision != nil {
			if run, err = e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), model.FlowEvent{Type: model.FlowEvPrompt, Step: s.Name, StepIndex: s.Index, Prompt: prompt}); err != nil {
				return run, err
			}
		}
		switch {
		case hasAgent && (prompt != "" || len(fields) > 0):
			if run, err = e.agentStep(ctx, s, name, role, table, agent, prompt, fields, run); err != nil {
				var fail *agentFailure
				if errors.As(err, &fail) && s.OnError != "" && ctx.Err() == nil {
					return e.agentFailed(f, s, run, fail)
				}
				return run, err
			}
		default:
			run.Action = n + 1 // nothing to record: the next phase is decided from the same state
		}
	}
	if run.Action == n+1 {
		prompt := e.prompt(s, run)
		fields := e.fields(s, run)
		var kind model.DecisionKind
		switch {
		case s.Decision != nil:
			kind = model.DecisionChoice
			if hasAgent {
				fields = nil // the agent filled them in the phase before; the person only chooses
			}
		case len(fields) > 0 && !hasAgent:
			kind = model.DecisionForm
		case role != "" && !hasAgent && prompt != "":
			kind = model.DecisionTask
		}
		if kind != "" {
			return e.ask(s, kind, prompt, fields, run)
		}
		if prompt != "" && !hasAgent {
			e.logf("%s", indent(prompt))
		}
		run.Action = n + 2
	}
	return e.finishStep(f, s, run)
}

// answerer is the role that answers step s: the one it names; for a step
// that collects variables, else the flow's, else the default agent (as
// literate-commands asks its model). "" or a role without an agent = a
// person.
func (e *Engine) answerer(f *flowfile.Flow, s *flowfile.Step, run *model.FlowRun) string {
	switch {
	case s.Agent != "":
		return s.Agent
	case len(e.fields(s, run)) == 0:
		return "" // a step without variables goes to an agent only when it names one
	case f.Agent != "":
		return f.Agent
	}
	return e.defaultRole()
}

// agentConfig is the config of the agent name answering role, and the
// table it comes from: its own [agents.NAME] when name is one of the
// role's (a crew's worker-2 has [agents.worker-2]), so that one crew can
// mix clients and sandboxes; else the role's [agents.ROLE].
func (e *Engine) agentConfig(role, name string) (string, config.Agent, bool) {
	if name != role && config.AgentRole(name) == role {
		if a, ok := e.Agents[name]; ok {
			return name, a, true
		}
	}
	a, ok := e.Agents[role]
	return role, a, ok
}

// defaultAgentRole is the agent role that answers steps no role is named for.
const defaultAgentRole = "default"

// defaultRole is [agents.default], else the only configured agent, else "".
func (e *Engine) defaultRole() string {
	if _, ok := e.Agents[defaultAgentRole]; ok {
		return defaultAgentRole
	}
	// A worker-2 next to its worker is that role's agent, not a second role.
	var roles []string
	for name := range e.Agents {
		if _, ofRole := e.Agents[config.AgentRole(name)]; name == config.AgentRole(name) || !ofRole {
			roles = append(roles, name)
		}
	}
	if len(roles) == 1 && roles[0] != "human" {
		return roles[0]
	}
	return ""
}

// prompt is the step's text, interpolated, with each exec block replaced by
// its output (stdout mode) or removed.
func (e *Engine) prompt(s *flowfile.Step, run *model.FlowRun) string {
	scope := e.scope(run)
	var b strings.Builder
	for _, seg := range s.Body {
		if seg.Exec == nil {
			b.WriteString(interp.Text(seg.Text, scope))
			b.WriteByte('\n')
			continue
		}
		if i := seg.Exec.Index; i < len(run.Outputs) && run.Outputs[i] != "" {
			b.WriteString(run.Outputs[i])
			b.WriteByte('\n')
		}
	}
	return strings.TrimSpace(b.String())
}

// fields are the variables the step collects: its parse list, or, without
// one, the variables its conditions read that are not set yet (so a
// literate-commands step that routes on `confirmed` asks for it).
func (e *Engine) fields(s *flowfile.Step, run *model.FlowRun) []flowfile.Var {
	if len(s.Parse) > 0 || s.Next == nil {
		return s.Parse
	}
	scope := e.scope(run)
	assigned := map[string]bool{}
	for _, a := range s.Set {
		assigned[a.Name] = true
	}
	var out []flowfile.Var
	seen := map[string]bool{}
	for _, r := range s.Next.Routes {
		if r.Program == nil {
			continue
		}
		for _, id := range r.Program.Identifiers() {
			if _, ok := scope[id]; ok || assigned[id] || seen[id] || reserved[id] {
				continue
			}
			seen[id] = true
			out = append(out, flowfile.Var{Name: id, Type: "json"})
		}
	}
	return out
}

// reserved variables are set by flowdeck (decisions, exec blocks, agents),
// never asked for.
var reserved = map[string]bool{"decision": true, "exec": true, "agent": true, "agents": true, "flow_run": true, "ARGUMENTS": true}

// finishStep evaluates the step's set assignments and routes.
func (e *Engine) finishStep(f *flowfile.Flow, s *flowfile.Step, run *model.FlowRun) (*model.FlowRun, error) {
	scope := e.scope(run)
	set := map[string]any{}
	for _, a := range s.Set {
		v, err := cond.Value(a.Expr, scope)
		if err != nil {
			return run, fmt.Errorf("step %q: set %s = %q: %v", s.Name, a.Name, a.Expr, err)
		}
		set[a.Name], scope[a.Name] = v, v
	}
	next, note := -1, ""
	if !s.Stop {
		target, err := route(s, scope)
		if err != nil {
			return run, err
		}
		if target != "" && f.Step(target) == nil {
			// literate-commands goes on with the following step.
			if e.Strict {
				return run, fmt.Errorf("step %q: next target %q is not a step of this flow", s.Name, target)
			}
			note = fmt.Sprintf("next target %q is not a step of this flow; the following step runs", target)
			e.logf("  %s: step %s: %s", run.ID, s.Name, note)
			target = ""
		}
		switch {
		case target != "":
			next = f.Step(target).Index
		case s.Index+1 < len(f.Steps):
			next = s.Index + 1
		}
	}
	var evs []model.FlowEvent
	if len(set) > 0 {
		evs = append(evs, model.FlowEvent{Type: model.FlowEvVarsSet, Step: s.Name, StepIndex: s.Index, Vars: set})
	}
	fin := model.FlowEvent{Type: model.FlowEvStepFinished, Step: s.Name, StepIndex: s.Index, Outcome: "done", Next: &next, Note: note}
	if s.Refused {
		fin.Outcome, fin.Error = "refused", refusal(e.prompt(s, run), s.Name)
	}
	if next >= 0 {
		if err := loopGuard(run, f.Steps[next].Name); err != nil {
			return run, err
		}
		fin.NextStep = f.Steps[next].Name
	}
	return e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), append(evs, fin)...)
}

// loopGuard stops a run that has executed its max_steps before it goes on
// to step next.
func loopGuard(run *model.FlowRun, next string) error {
	if run.StepsRun >= run.MaxSteps {
		return fmt.Errorf("loop guard: the run executed %d steps (max_steps %d); it stopped before step %q", run.StepsRun, run.MaxSteps, next)
	}
	return nil
}

// refusal is what a stop: refused step reports: the first paragraph of
// its prompt on one line, without its verdict glyph.
func refusal(prompt, step string) string {
	para, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n\n")
	line := strings.Join(strings.Fields(strings.TrimLeft(para, "✗■ ")), " ")
	if line == "" {
		return "refused at step " + step
	}
	return line
}

// route picks the next step's name ("" = the following step).
func route(s *flowfile.Step, scope map[string]any) (string, error) {
	if s.Next == nil {
		return "", nil
	}
	for _, r := range s.Next.Routes {
		if r.Cond == "_" {
			return r.Target, nil
		}
		ok, err := r.Program.Eval(scope)
		if err != nil {
			return "", fmt.Errorf("step %q: condition %q (line %d) could not be evaluated: %v", s.Name, r.Cond, r.Line, err)
		}
		if ok {
			return r.Target, nil
		}
	}
	return "", nil
}

// ask creates the pending decision of a step.
func (e *Engine) ask(s *flowfile.Step, kind model.DecisionKind, prompt string, fields []flowfile.Var, run *model.FlowRun) (*model.FlowRun, error) {
	d := &model.Decision{FlowRun: run.ID, Flow: run.Flow, Step: s.Name, Kind: kind, Prompt: prompt,
		Action: len(s.Execs()) + 1}
	if s.Decision != nil {
		if p := strings.TrimSpace(interp.Text(s.Decision.Prompt, e.scope(run))); p != "" {
			if d.Prompt != "" {
				d.Prompt += "\n\n"
			}
			d.Prompt += p
		}
		for _, o := range s.Decision.Options {
			d.Options = append(d.Options, model.DecisionOption{ID: o.ID, Description: interp.Text(o.Description, e.scope(run))})
		}
		d.Fallback = s.Decision.Fallback
		if s.Decision.Timeout > 0 {
			t := e.now().Add(s.Decision.Timeout)
			d.Deadline = &t
		}
	}
	for _, f := range fields {
		d.Fields = append(d.Fields, model.DecisionField{Name: f.Name, Type: f.Type, Enum: f.Enum, Description: f.Description})
	}
	if kind == model.DecisionTask {
		d.Options = []model.DecisionOption{{ID: "done", Description: "the step is done"}, {ID: "failed", Description: "it could not be done"}}
	}
	made, r, err := e.Store.CreateDecision(d, e.actor(), e.now())
	if err != nil {
		return run, err
	}
	e.logf("? %s waits for decision %s (step %s):\n%s\n  answer: %s", run.ID, made.ID, s.Name, indent(made.Prompt), decideHint(made))
	return r, nil
}

func decideHint(d *model.Decision) string {
	switch {
	case len(d.Fields) > 0:
		var vars []string
		for _, f := range d.Fields {
			vars = append(vars, "--var "+f.Name+"=…")
		}
		opt := "ok"
		if len(d.Options) > 0 {
			opt = d.Options[0].ID
		}
		return "flowdeck decide " + d.ID + " " + opt + " " + strings.Join(vars, " ")
	case len(d.Options) > 0:
		ids := make([]string, len(d.Options))
		for i, o := range d.Options {
			ids[i] = o.ID
		}
		return "flowdeck decide " + d.ID + " " + strings.Join(ids, "|") + " [--note TEXT]"
	}
	return "flowdeck decide " + d.ID + " ANSWER"
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}
