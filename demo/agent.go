package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// Agent is the scripted worker of the demo. It behaves like an AI agent
// driving flowdeck from outside: every step is a call of the real flowdeck
// binary (flow actions with --json, commands through `flowdeck run`), so the
// cockpit sees exactly what it would see with a real agent.
type Agent struct {
	Bin  string        // the flowdeck binary
	Dir  string        // the demo project
	Log  io.Writer     // what the agent does, one line per step
	Tick time.Duration // pause between steps
	// Lines and Delay shape each verification run's output.
	Lines int
	Delay time.Duration

	failed map[string]bool
}

// failFirst are features whose first verification fails, so the demo shows
// a failure, a fix and a passing run.
var failFirst = map[string]bool{"rate-limit": true, "login-page": true}

// Run works until ctx ends or the session completes.
func (a *Agent) Run(ctx context.Context) error {
	if a.failed == nil {
		a.failed = map[string]bool{}
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(a.Tick):
		}
		done, err := a.step(ctx)
		if err != nil || done {
			return err
		}
	}
}

// step does one thing and reports whether the session is over.
func (a *Agent) step(ctx context.Context) (bool, error) {
	var st struct {
		Session *model.Session `json:"session"`
	}
	if err := a.json(ctx, &st, "flow", "status", "--full"); err != nil { // the gates need every evidence
		return false, err
	}
	s := st.Session
	if s == nil || s.Status == model.StatusCompleted {
		a.logf("session is over; the agent stops")
		return true, nil
	}
	if s.Approval != model.ApprovalApproved {
		return false, nil // waiting for the person to approve the plan
	}
	id := s.Execution.ActiveFeature
	if id == "" {
		var res struct {
			OK    bool         `json:"ok"`
			Error *model.Error `json:"error"`
		}
		a.json(ctx, &res, "flow", "run", "start")
		if !res.OK && res.Error != nil && res.Error.Code == model.CodeNoRunnableFeature {
			a.logf("nothing runnable: waiting for the person (%s)", res.Error.Message)
		}
		return false, nil
	}
	f := s.Plan.Feature(id)
	gate := model.CompletionGate(s, f)
	switch {
	case gate == nil:
		a.call(ctx, nil, "flow", "run", "complete", id, "--outcome", "completed", "--summary", "implemented and verified")
	case gate.Code == model.CodeMissingValidation:
		a.call(ctx, nil, "flow", "note", "working on "+id)
		a.verify(ctx, s, f, scopeFor(s, f), failFirst[id] && !a.failed[id])
		a.failed[id] = true
	case gate.Code == model.CodeFailingValidation || gate.Code == model.CodeFailingFeatureReview:
		a.call(ctx, nil, "flow", "note", "fixing "+id+": "+gate.Message)
		sleep(ctx, 2*a.Tick)
		a.verify(ctx, s, f, scopeFor(s, f), false)
	case gate.Code == model.CodeMissingBroadValidation || gate.Code == model.CodeFailingFinalReview:
		a.verify(ctx, s, f, model.ScopeBroad, false)
	}
	// missing reviews: the person decides in the cockpit; the agent waits.
	return false, nil
}

// scopeFor is the scope f's validation needs: broad for the feature that
// completes the session (one broad run, one review), else targeted.
func scopeFor(s *model.Session, f *model.Feature) model.Scope {
	if model.CompletesSession(s, f) {
		return model.ScopeBroad
	}
	return model.ScopeTargeted
}

// verify runs the feature's verification commands (broad: the plan's)
// through flowdeck run, as the AGENTS.md of a flowdeck project asks agents to.
func (a *Agent) verify(ctx context.Context, s *model.Session, f *model.Feature, scope model.Scope, fail bool) {
	env := []string{fmt.Sprintf("DEMO_LINES=%d", a.Lines), fmt.Sprintf("DEMO_DELAY=%.3f", a.Delay.Seconds())}
	if fail {
		env = append(env, "DEMO_FAIL=1")
	}
	for _, v := range model.VerifyCommands(s.Plan, f, scope) {
		args := append([]string{"run", "--quiet", "--feature", f.ID, "--scope", string(scope), "--"}, strings.Fields(v)...)
		a.call(ctx, env, args...)
	}
}

func (a *Agent) call(ctx context.Context, env []string, args ...string) {
	cmd := a.cmd(ctx, args...)
	cmd.Env = append(os.Environ(), env...)
	out, _ := cmd.CombinedOutput()
	a.logf("$ flowdeck %s\n%s", model.ShellJoin(args), out)
}

func (a *Agent) json(ctx context.Context, v any, args ...string) error {
	out, err := a.cmd(ctx, append([]string{"--json"}, args...)...).Output()
	if len(out) == 0 && err != nil {
		return fmt.Errorf("flowdeck %v: %w", args, err)
	}
	return json.Unmarshal(out, v)
}

func (a *Agent) cmd(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, a.Bin, append([]string{"--dir", a.Dir, "--actor", "demo-agent"}, args...)...)
	cmd.Dir = a.Dir // verification commands are relative to the project
	return cmd
}

func (a *Agent) logf(format string, args ...any) {
	if a.Log != nil {
		fmt.Fprintf(a.Log, format+"\n", args...)
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
