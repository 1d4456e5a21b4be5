// Package flows runs literate flows: it starts and resumes flow runs, runs
// their exec blocks and agent steps through capture (pty, isolator,
// classifier, store), asks people through pending decisions, routes between
// steps, and keeps every change as an event of the run in the project's
// database, so a run survives its process. The built-in flows (plan, run,
// auto, review) are literate flows embedded from builtin/.
//
// A step runs in phases, numbered as the run's Action: its exec blocks
// (0..n-1, in order), then the answer of its agent (n), then the person's
// decision or form (n+1), then its set assignments and routing (n+2). Every
// phase that touches the world is recorded before and after, so a run whose
// process died knows which action was cut off.
package flows

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"flowdeck/capture"
	"flowdeck/config"
	"flowdeck/db"
	"flowdeck/flows/answer"
	"flowdeck/flows/cond"
	"flowdeck/flows/flowfile"
	"flowdeck/flows/interp"
	"flowdeck/patterns"
	"flowdeck/runner"
)

// Engine executes flow runs for one project.
type Engine struct {
	Store *db.Store
	// Root is the project directory: the working directory of every process
	// and $FLOWDECK_DIR.
	Root string
	// Agents answer steps by role; a role without an agent goes to a person.
	Agents map[string]config.Agent
	Actor  string
	// Live receives exec and agent output as it arrives; Log receives one
	// line per step and the prompts of message steps. nil = discard.
	Live, Log io.Writer
	// Wait makes a run wait for its decisions (polling the database every
	// Poll); without it Start and Resume return when the run waits.
	Wait bool
	Poll time.Duration
	// MaxSteps overrides the flow's loop guard when > 0.
	MaxSteps int
	// Bin is a directory put first on PATH for the flow's processes (where
	// the flowdeck binary is).
	Bin         string
	Env         []string // base environment; nil = os.Environ()
	Patterns    *patterns.Set
	Redactor    *patterns.Redactor
	NoIsolation bool
	RetainBytes int64
	Now         func() time.Time
	// Strict refuses what literate-commands tolerates: an unknown next
	// target, a mode=store block that prints no JSON.
	Strict bool
}

// maxOutputVar bounds an output kept in a variable ($exec.output,
// $agent.output) and in the step's prompt.
const maxOutputVar = 64 << 10

// AgentRetries is how many times a bad answer is sent back to the agent.
const AgentRetries = 3

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Engine) actor() string {
	if e.Actor == "" {
		return "human"
	}
	return e.Actor
}

func (e *Engine) logf(format string, args ...any) {
	if e.Log != nil {
		fmt.Fprintf(e.Log, format+"\n", args...)
	}
}

// Start begins a run of f with command-line args and extra variables.
// source names where f came from (a path, or builtin:NAME).
func (e *Engine) Start(ctx context.Context, f *flowfile.Flow, source string, args []string, vars map[string]any) (*db.FlowRun, error) {
	if e.Strict {
		if err := f.Strict(); err != nil {
			return nil, err
		}
	}
	id, err := e.Store.ReserveFlowRunID(f.Name)
	if err != nil {
		return nil, err
	}
	lock, err := lockRun(e.Store, id)
	if err != nil {
		return nil, err
	}
	defer lock.release()
	init := map[string]any{"ARGUMENTS": strings.Join(args, " ")}
	for i, name := range f.Args {
		switch {
		case i >= len(args):
			init[name] = ""
		case i == len(f.Args)-1:
			init[name] = strings.Join(args[i:], " ")
		default:
			init[name] = args[i]
		}
	}
	for k, v := range vars {
		init[k] = v
	}
	max := f.MaxSteps
	if e.MaxSteps > 0 {
		max = e.MaxSteps
	}
	run := &db.FlowRun{ID: id, Flow: f.Name, Source: source, Hash: f.Hash, Text: f.Source, Args: args, MaxSteps: max}
	run, err = e.Store.CreateFlowRun(run, f.Steps[0].Name, init, e.actor(), e.now())
	if err != nil {
		return nil, err
	}
	e.logf("▶ flow %s started as %s", f.Name, id)
	return e.drive(ctx, f, run)
}

// Resume continues a run that waits, was interrupted or lost its process.
func (e *Engine) Resume(ctx context.Context, id string) (*db.FlowRun, error) {
	lock, err := lockRun(e.Store, id)
	if err != nil {
		return nil, err
	}
	defer lock.release()
	run, err := e.Store.FlowRun(id)
	if err != nil {
		return nil, err
	}
	f, err := flowfile.Parse(run.Source, []byte(run.Text))
	if err != nil {
		return nil, fmt.Errorf("flow run %s: its flow no longer parses: %w", id, err)
	}
	return e.drive(ctx, f, run)
}

// ErrPaused is returned with the run when it stopped for a pause request.
var ErrPaused = errors.New("the flow run is paused")

// PauseRun asks the process executing a run to stop after its current step
// (from any process: the cockpit's pause key). Resume continues it.
func PauseRun(st *db.Store, id, actor string, now time.Time) (*db.FlowRun, error) {
	return st.AppendFlowEvents(id, actor, now, db.FlowEvent{Type: db.FlowEvPauseRequested})
}

// ErrWaiting is returned with the run when it waits for a decision and the
// engine does not wait.
var ErrWaiting = errors.New("the flow run waits for a decision")

func (e *Engine) drive(ctx context.Context, f *flowfile.Flow, run *db.FlowRun) (*db.FlowRun, error) {
	var err error
	for {
		if err := ctx.Err(); err != nil {
			return run, err
		}
		switch {
		case db.FlowEnded(run.Status):
			e.logEnd(run)
			return run, nil
		case run.Decision != "":
			d, err := e.Store.ExpireDecision(run.Decision, e.now())
			if err != nil {
				return run, err
			}
			if d.Status == db.DecisionPending {
				if !e.Wait {
					return run, ErrWaiting
				}
				select {
				case <-ctx.Done():
					return run, ctx.Err()
				case <-time.After(e.poll()):
				}
			}
			if run, err = e.Store.FlowRun(run.ID); err != nil {
				return run, err
			}
		case run.InFlight != nil:
			// We hold the run's lock, so whoever started this action is gone.
			run, err = e.interrupted(f, run)
			if err != nil {
				return run, err
			}
		case run.Status == db.FlowInterrupted:
			if run, err = e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), db.FlowEvent{Type: db.FlowEvResumed, Step: run.Step, StepIndex: run.StepIndex}); err != nil {
				return run, err
			}
		case run.PauseRequested:
			e.logf("‖ %s paused before step %s: flowdeck flows resume %s", run.ID, run.Step, run.ID)
			r, err := e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), db.FlowEvent{Type: db.FlowEvInterrupted, Step: run.Step, StepIndex: run.StepIndex, Note: "paused"})
			if err != nil {
				return run, err
			}
			return r, ErrPaused
		default:
			next, err := e.step(ctx, f, run)
			if err != nil {
				var ended db.ErrFlowRunEnded
				if errors.As(err, &ended) {
					if run, err = e.Store.FlowRun(run.ID); err != nil {
						return run, err
					}
					continue
				}
				if ctx.Err() != nil {
					return run, ctx.Err()
				}
				failed, ferr := e.fail(run, err)
				if ferr != nil {
					return run, ferr
				}
				run = failed
				continue
			}
			run = next
		}
	}
}

func (e *Engine) poll() time.Duration {
	if e.Poll > 0 {
		return e.Poll
	}
	return 250 * time.Millisecond
}

func (e *Engine) logEnd(run *db.FlowRun) {
	switch run.Status {
	case db.FlowCompleted:
		e.logf("✓ flow %s completed (%d steps)", run.ID, run.StepsRun)
	case db.FlowRefused:
		e.logf("✗ flow %s refused: %s", run.ID, run.Error)
	case db.FlowFailed:
		e.logf("✗ flow %s failed: %s", run.ID, run.Error)
	case db.FlowCancelled:
		e.logf("■ flow %s cancelled", run.ID)
	}
}

func (e *Engine) fail(run *db.FlowRun, cause error) (*db.FlowRun, error) {
	r, err := e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), db.FlowEvent{Type: db.FlowEvFailed, Step: run.Step, StepIndex: run.StepIndex, Error: cause.Error()})
	var ended db.ErrFlowRunEnded
	if errors.As(err, &ended) {
		return e.Store.FlowRun(run.ID)
	}
	return r, err
}

// interrupted handles an action that started and never finished: an
// idempotent one runs again; otherwise the person decides.
func (e *Engine) interrupted(f *flowfile.Flow, run *db.FlowRun) (*db.FlowRun, error) {
	in := run.InFlight
	if in.Idempotent {
		e.logf("↺ %s: re-running %s (idempotent) after an interruption", run.ID, in.Label)
		return e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), db.FlowEvent{Type: db.FlowEvResumed, Step: run.Step, StepIndex: run.StepIndex, Kind: "retry", NewAction: in.Action})
	}
	_, r, err := e.Store.CreateDecision(interruptedDecision(f, run), e.actor(), e.now())
	if err != nil {
		return run, err
	}
	e.logf("? %s was interrupted during %s: decide retry, skip or cancel (flowdeck decide %s retry|skip|cancel)", run.ID, in.Label, r.Decision)
	return r, nil
}

// interruptedDecision asks what to do about the run's cut-off action.
func interruptedDecision(f *flowfile.Flow, run *db.FlowRun) *db.Decision {
	in := run.InFlight
	skipTo := 0
	if run.StepIndex < len(f.Steps) {
		skipTo = len(f.Steps[run.StepIndex].Execs()) + 2
	}
	return &db.Decision{
		FlowRun: run.ID, Flow: run.Flow, Step: run.Step, Kind: db.DecisionInterrupted,
		Prompt: fmt.Sprintf("Flow run %s stopped during %s of step %q (started %s) and it may or may not have finished. Run it again, skip the rest of the step, or cancel the run?",
			run.ID, in.Label, run.Step, in.Started.Format("15:04:05")),
		Options: []db.DecisionOption{
			{ID: "retry", Description: "run " + in.Label + " again"},
			{ID: "skip", Description: "skip the rest of step " + run.Step + " and route on"},
			{ID: "cancel", Description: "cancel the flow run"},
		},
		Action: in.Action, SkipTo: skipTo,
	}
}

// scope is what interpolation and conditions see: the run's variables over
// a few built-ins.
func (e *Engine) scope(run *db.FlowRun) map[string]any {
	agents := map[string]any{}
	for role := range e.Agents {
		agents[role] = true
	}
	s := map[string]any{"agents": agents, "flow_run": run.ID}
	for k, v := range run.Vars {
		s[k] = v
	}
	return s
}

// step runs the current step from run.Action to its end (or until it
// waits) and returns the run after it.
func (e *Engine) step(ctx context.Context, f *flowfile.Flow, run *db.FlowRun) (*db.FlowRun, error) {
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
	agent, hasAgent := e.Agents[role]
	hasAgent = hasAgent && role != "human"
	if run.Action == n {
		prompt := e.prompt(s, run)
		fields := e.fields(s, run)
		var err error
		if prompt != "" || len(fields) > 0 || s.Decision != nil {
			if run, err = e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), db.FlowEvent{Type: db.FlowEvPrompt, Step: s.Name, StepIndex: s.Index, Prompt: prompt}); err != nil {
				return run, err
			}
		}
		switch {
		case hasAgent && (prompt != "" || len(fields) > 0):
			if run, err = e.agentStep(ctx, s, role, agent, prompt, fields, run); err != nil {
				return run, err
			}
		default:
			run.Action = n + 1 // nothing to record: the next phase is decided from the same state
		}
	}
	if run.Action == n+1 {
		prompt := e.prompt(s, run)
		fields := e.fields(s, run)
		kind := ""
		switch {
		case s.Decision != nil:
			kind = db.DecisionChoice
			if hasAgent {
				fields = nil // the agent filled them in the phase before; the person only chooses
			}
		case len(fields) > 0 && !hasAgent:
			kind = db.DecisionForm
		case role != "" && !hasAgent && prompt != "":
			kind = db.DecisionTask
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
func (e *Engine) answerer(f *flowfile.Flow, s *flowfile.Step, run *db.FlowRun) string {
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

// DefaultRole is the agent role that answers steps no role is named for.
const DefaultRole = "default"

// defaultRole is [agents.default], else the only configured agent, else "".
func (e *Engine) defaultRole() string {
	if _, ok := e.Agents[DefaultRole]; ok {
		return DefaultRole
	}
	if len(e.Agents) == 1 {
		for role := range e.Agents {
			if role != "human" {
				return role
			}
		}
	}
	return ""
}

// prompt is the step's text, interpolated, with each exec block replaced by
// its output (stdout mode) or removed.
func (e *Engine) prompt(s *flowfile.Step, run *db.FlowRun) string {
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
func (e *Engine) fields(s *flowfile.Step, run *db.FlowRun) []flowfile.Var {
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
func (e *Engine) finishStep(f *flowfile.Flow, s *flowfile.Step, run *db.FlowRun) (*db.FlowRun, error) {
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
	var evs []db.FlowEvent
	if len(set) > 0 {
		evs = append(evs, db.FlowEvent{Type: db.FlowEvVarsSet, Step: s.Name, StepIndex: s.Index, Vars: set})
	}
	fin := db.FlowEvent{Type: db.FlowEvStepFinished, Step: s.Name, StepIndex: s.Index, Outcome: "done", Next: &next, Note: note}
	if s.Refused {
		fin.Outcome, fin.Error = "refused", refusal(e.prompt(s, run), s.Name)
	}
	if next >= 0 {
		if run.StepsRun >= run.MaxSteps {
			return run, fmt.Errorf("loop guard: the run executed %d steps (max_steps %d); it stopped before step %q", run.StepsRun, run.MaxSteps, f.Steps[next].Name)
		}
		fin.NextStep = f.Steps[next].Name
	}
	return e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), append(evs, fin)...)
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
func (e *Engine) ask(s *flowfile.Step, kind, prompt string, fields []flowfile.Var, run *db.FlowRun) (*db.FlowRun, error) {
	d := &db.Decision{FlowRun: run.ID, Flow: run.Flow, Step: s.Name, Kind: kind, Prompt: prompt,
		Action: len(s.Execs()) + 1}
	if s.Decision != nil {
		if p := strings.TrimSpace(interp.Text(s.Decision.Prompt, e.scope(run))); p != "" {
			if d.Prompt != "" {
				d.Prompt += "\n\n"
			}
			d.Prompt += p
		}
		for _, o := range s.Decision.Options {
			d.Options = append(d.Options, db.DecisionOption{ID: o.ID, Description: interp.Text(o.Description, e.scope(run))})
		}
		d.Fallback = s.Decision.Fallback
		if s.Decision.Timeout > 0 {
			t := e.now().Add(s.Decision.Timeout)
			d.Deadline = &t
		}
	}
	for _, f := range fields {
		d.Fields = append(d.Fields, db.DecisionField{Name: f.Name, Type: f.Type, Enum: f.Enum, Description: f.Description})
	}
	if kind == db.DecisionTask {
		d.Options = []db.DecisionOption{{ID: "done", Description: "the step is done"}, {ID: "failed", Description: "it could not be done"}}
	}
	made, r, err := e.Store.CreateDecision(d, e.actor(), e.now())
	if err != nil {
		return run, err
	}
	e.logf("? %s waits for decision %s (step %s):\n%s\n  answer: %s", run.ID, made.ID, s.Name, indent(made.Prompt), decideHint(made))
	return r, nil
}

func decideHint(d *db.Decision) string {
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

// env is the environment of the flow's processes.
func (e *Engine) env(run *db.FlowRun, actor string, extra map[string]string) []string {
	base := e.Env
	if base == nil {
		base = os.Environ()
	}
	set := map[string]string{
		"FLOWDECK_DIR": e.Root, "FLOWDECK_FLOW_RUN": run.ID, "FLOWDECK_ACTOR": actor,
		"FLOWDECK_SESSION": "", "FLOWDECK_FEATURE": "",
	}
	if s, err := e.Store.Active(); err == nil && s != nil {
		set["FLOWDECK_SESSION"] = s.ID
		set["FLOWDECK_FEATURE"] = s.Execution.ActiveFeature
	}
	for k, v := range extra {
		set[k] = v
	}
	var out []string
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; ok {
			continue
		}
		if k == "PATH" && e.Bin != "" {
			kv = "PATH=" + e.Bin + string(os.PathListSeparator) + v
		}
		out = append(out, kv)
	}
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	return out
}

// capture runs argv for the run and returns the result and its output as
// text (escape sequences removed). A cancel of the run from elsewhere stops
// the command.
// show false marks the run internal: plumbing whose output a step stores.
func (e *Engine) capture(ctx context.Context, run *db.FlowRun, argv []string, env []string, timeout time.Duration, limits flowfile.Limits, actor string, show bool) (*capture.Result, string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if r, err := e.Store.FlowRun(run.ID); err == nil && db.FlowEnded(r.Status) {
					cancel()
					return
				}
			}
		}
	}()
	buf := &tail{max: 1 << 20}
	var live io.Writer = buf
	if e.Live != nil && show {
		live = io.MultiWriter(buf, e.Live)
	}
	res, err := capture.Run(ctx, e.Store, capture.Options{
		Argv: argv, Dir: e.Root, Env: env, Actor: actor, Timeout: timeout,
		Limits:    runner.Limits{MemoryBytes: limits.MemoryBytes, Pids: limits.Pids, CPU: limits.CPU},
		NoNetwork: limits.NoNetwork, NoIsolation: e.NoIsolation, Live: live,
		Patterns: e.Patterns, Redactor: e.Redactor, RetainBytes: e.RetainBytes, Now: e.Now, Internal: !show,
	})
	if err != nil {
		return nil, "", err
	}
	// The output becomes flow variables and events, stored: redact it as
	// the run's stored output is.
	red := e.Redactor
	if red == nil {
		red, _ = patterns.NewRedactor(nil)
	}
	return res, strings.TrimSpace(string(red.Text(patterns.StripANSI(buf.bytes())))), nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.ReplaceAll(t.b, []byte("\r\n"), []byte("\n"))
}

func clip(s string) string {
	if len(s) > maxOutputVar {
		return "…" + s[len(s)-maxOutputVar:]
	}
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}

// execBlock runs one exec block of the current step.
func (e *Engine) execBlock(ctx context.Context, s *flowfile.Step, ex *flowfile.Exec, run *db.FlowRun) (*db.FlowRun, error) {
	code, err := interp.Code(ex.Code, ex.Dialect, e.scope(run))
	if se := (*interp.SyntaxError)(nil); errors.As(err, &se) {
		return run, fmt.Errorf("%s:%d: step %q: exec block: %s", run.Source, ex.Line+se.Line, s.Name, se.Msg)
	}
	if err != nil {
		return run, fmt.Errorf("%s:%d: step %q: exec block: %v", run.Source, ex.Line, s.Name, err)
	}
	file := ""
	if ex.ViaFile {
		if file, err = e.tempFile(run, fmt.Sprintf("%s-exec%d.%s", s.Name, ex.Index, ex.Lang), code); err != nil {
			return run, err
		}
		defer e.Store.Remove(file)
	}
	label := fmt.Sprintf("exec block %d (%s, line %d)", ex.Index+1, ex.Lang, ex.Line)
	run, err = e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), db.FlowEvent{Type: db.FlowEvActionStarted, Step: s.Name,
		StepIndex: s.Index, Action: ex.Index, Kind: "exec", Label: label, Idempotent: s.Idempotent})
	if err != nil {
		return run, err
	}
	// Only stdout blocks stream live: store and none blocks print data
	// for the flow, not for the person.
	res, out, err := e.capture(ctx, run, ex.Argv(code, file), e.env(run, e.actor(), nil), s.Timeout, s.Limits, e.actor(), ex.Mode == "stdout")
	if err == nil {
		err = ctx.Err() // cut short by ^C: the action stays in flight, to be decided on resume
	}
	if err != nil {
		return run, err
	}
	exit := res.Run.ExitCode
	vars := map[string]any{"exec": map[string]any{"output": clip(out), "exit": float64(exit), "summary": res.Headline, "run": res.Run.ID}}
	output, note := "", ""
	switch ex.Mode {
	case "stdout":
		output = clip(out)
	case "store":
		obj, ok := answer.LastObject(out)
		if !ok && e.Strict {
			return run, fmt.Errorf("step %q: exec block at line %d (mode=store) printed no JSON object (%s)", s.Name, ex.Line, res.Headline)
		}
		if !ok {
			// literate-commands stores nothing and goes on.
			note = "mode=store: the block printed no JSON object; nothing stored"
			e.logf("  %s: step %s: exec block at line %d: %s", run.ID, s.Name, ex.Line, note)
		}
		for k, v := range obj {
			vars[k] = v
		}
	}
	return e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), db.FlowEvent{Type: db.FlowEvActionFinished, Step: s.Name,
		StepIndex: s.Index, Action: ex.Index, Kind: "exec", RunID: res.Run.ID, Exit: &exit, Summary: res.Headline,
		Output: &output, Vars: vars, Note: note})
}

func (e *Engine) tempFile(run *db.FlowRun, name, content string) (string, error) {
	// Beneath the project: a .flow/tmp that leads out of it is refused.
	f, err := e.Store.CreateTemp("tmp", 0o700, run.ID+"-*-"+filepath.Base(name))
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return f.Name(), err
}

// agentStep sends the step's prompt to the role's agent and reads its
// answer, retrying with the problem explained.
func (e *Engine) agentStep(ctx context.Context, s *flowfile.Step, role string, a config.Agent, prompt string, fields []flowfile.Var, run *db.FlowRun) (*db.FlowRun, error) {
	n := len(s.Execs())
	label := "agent " + role
	run, err := e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), db.FlowEvent{Type: db.FlowEvActionStarted, Step: s.Name,
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
	e.logf("▶ %s: step %s → agent %s", run.ID, s.Name, role)
	current := full
	var problem error
	for attempt := 0; attempt <= AgentRetries; attempt++ {
		file, err := e.tempFile(run, s.Name+"-prompt.md", current)
		if err != nil {
			return run, err
		}
		argv := agentArgv(a, current, file)
		res, out, err := e.capture(ctx, run, argv, e.env(run, role, mergeEnv(a.Env, "FLOWDECK_PROMPT_FILE", file)), timeout, limits, role, true)
		e.Store.Remove(file)
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return run, err
		}
		exit := res.Run.ExitCode
		vals := map[string]any{}
		problem = nil
		if exit != 0 {
			problem = fmt.Errorf("the agent exited with status %d (%s)", exit, res.Headline)
		} else if len(fields) > 0 {
			vals, problem = answer.Extract(out, fields)
		}
		if problem == nil {
			vals["agent"] = map[string]any{"output": clip(out), "exit": float64(exit), "run": res.Run.ID, "role": role}
			return e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), db.FlowEvent{Type: db.FlowEvActionFinished, Step: s.Name,
				StepIndex: s.Index, Action: n, Kind: "agent", RunID: res.Run.ID, Exit: &exit, Summary: res.Headline, Vars: vals})
		}
		e.logf("  %s: answer %d of %d unusable: %v", role, attempt+1, AgentRetries+1, problem)
		current = answer.Retry(full, fields, problem)
		if run, err = e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), db.FlowEvent{Type: db.FlowEvPrompt, Step: s.Name,
			StepIndex: s.Index, RunID: res.Run.ID, Error: problem.Error(), Prompt: current}); err != nil {
			return run, err
		}
	}
	return run, fmt.Errorf("step %q: agent %s gave no usable answer in %d attempts: %v", s.Name, role, AgentRetries+1, problem)
}

func mergeEnv(base map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for bk, bv := range base {
		out[bk] = bv
	}
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
	return append([]string{"sh", "-c", `exec "$@" < "$FLOWDECK_PROMPT_FILE"`, "agent"}, a.Command...)
}

// CancelRun cancels a run from any process; the process executing it stops
// its current command within a second.
func CancelRun(st *db.Store, id, actor string, now time.Time) (*db.FlowRun, error) {
	return st.CancelFlowRun(id, "cancelled by "+actor, actor, now)
}
