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
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/patterns"
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
func (e *Engine) Start(ctx context.Context, f *flowfile.Flow, source string, args []string, vars map[string]any) (*model.FlowRun, error) {
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
	run := &model.FlowRun{ID: id, Flow: f.Name, Source: source, Hash: f.Hash, Text: f.Source, Args: args, MaxSteps: max}
	run, err = e.Store.CreateFlowRun(run, f.Steps[0].Name, init, e.actor(), e.now())
	if err != nil {
		return nil, err
	}
	e.logf("▶ flow %s started as %s", f.Name, id)
	return e.drive(ctx, f, run)
}

// Resume continues a run that waits, was interrupted or lost its process.
func (e *Engine) Resume(ctx context.Context, id string) (*model.FlowRun, error) {
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
func PauseRun(st *db.Store, id, actor string, now time.Time) (*model.FlowRun, error) {
	return st.AppendFlowEvents(id, actor, now, model.FlowEvent{Type: model.FlowEvPauseRequested})
}

// ErrWaiting is returned with the run when it waits for a decision and the
// engine does not wait.
var ErrWaiting = errors.New("the flow run waits for a decision")

func (e *Engine) drive(ctx context.Context, f *flowfile.Flow, run *model.FlowRun) (*model.FlowRun, error) {
	var err error
	for {
		if err := ctx.Err(); err != nil {
			return run, err
		}
		switch {
		case model.FlowEnded(run.Status):
			e.logEnd(run)
			return run, nil
		case run.Decision != "":
			d, err := e.Store.ExpireDecision(run.Decision, e.now())
			if err != nil {
				return run, err
			}
			if d.Status == model.DecisionPending {
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
		case run.Status == model.FlowInterrupted:
			if run, err = e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), model.FlowEvent{Type: model.FlowEvResumed, Step: run.Step, StepIndex: run.StepIndex}); err != nil {
				return run, err
			}
		case run.PauseRequested:
			e.logf("‖ %s paused before step %s: flowdeck flows resume %s", run.ID, run.Step, run.ID)
			r, err := e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), model.FlowEvent{Type: model.FlowEvInterrupted, Step: run.Step, StepIndex: run.StepIndex, Note: "paused"})
			if err != nil {
				return run, err
			}
			return r, ErrPaused
		default:
			next, err := e.step(ctx, f, run)
			if err != nil {
				var ended model.ErrFlowRunEnded
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

func (e *Engine) logEnd(run *model.FlowRun) {
	switch run.Status {
	case model.FlowCompleted:
		e.logf("✓ flow %s completed (%d steps)", run.ID, run.StepsRun)
	case model.FlowRefused:
		e.logf("✗ flow %s refused: %s", run.ID, run.Error)
	case model.FlowFailed:
		e.logf("✗ flow %s failed: %s", run.ID, run.Error)
	case model.FlowCancelled:
		e.logf("■ flow %s cancelled", run.ID)
	}
}

func (e *Engine) fail(run *model.FlowRun, cause error) (*model.FlowRun, error) {
	r, err := e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), model.FlowEvent{Type: model.FlowEvFailed, Step: run.Step, StepIndex: run.StepIndex, Error: cause.Error()})
	var ended model.ErrFlowRunEnded
	if errors.As(err, &ended) {
		return e.Store.FlowRun(run.ID)
	}
	return r, err
}

// interrupted handles an action that started and never finished: an
// idempotent one runs again; otherwise the person decides.
func (e *Engine) interrupted(f *flowfile.Flow, run *model.FlowRun) (*model.FlowRun, error) {
	in := run.InFlight
	if in.Idempotent {
		e.logf("↺ %s: re-running %s (idempotent) after an interruption", run.ID, in.Label)
		return e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), model.FlowEvent{Type: model.FlowEvResumed, Step: run.Step, StepIndex: run.StepIndex, Kind: "retry", NewAction: in.Action})
	}
	_, r, err := e.Store.CreateDecision(interruptedDecision(f, run), e.actor(), e.now())
	if err != nil {
		return run, err
	}
	e.logf("? %s was interrupted during %s: decide retry, skip or cancel (flowdeck decide %s retry|skip|cancel)", run.ID, in.Label, r.Decision)
	return r, nil
}

// interruptedDecision asks what to do about the run's cut-off action.
func interruptedDecision(f *flowfile.Flow, run *model.FlowRun) *model.Decision {
	in := run.InFlight
	skipTo := 0
	if run.StepIndex < len(f.Steps) {
		skipTo = len(f.Steps[run.StepIndex].Execs()) + 2
	}
	return &model.Decision{
		FlowRun: run.ID, Flow: run.Flow, Step: run.Step, Kind: model.DecisionInterrupted,
		Prompt: fmt.Sprintf("Flow run %s stopped during %s of step %q (started %s) and it may or may not have finished. Run it again, skip the rest of the step, or cancel the run?",
			run.ID, in.Label, run.Step, in.Started.Format("15:04:05")),
		Options: []model.DecisionOption{
			{ID: "retry", Description: "run " + in.Label + " again"},
			{ID: "skip", Description: "skip the rest of step " + run.Step + " and route on"},
			{ID: "cancel", Description: "cancel the flow run"},
		},
		Action: in.Action, SkipTo: skipTo,
	}
}

// scope is what interpolation and conditions see: the run's variables over
// a few built-ins.
func (e *Engine) scope(run *model.FlowRun) map[string]any {
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

// CancelRun cancels a run from any process; the process executing it stops
// its current command within a second.
func CancelRun(st *db.Store, id, actor string, now time.Time) (*model.FlowRun, error) {
	return st.CancelFlowRun(id, "cancelled by "+actor, actor, now)
}
