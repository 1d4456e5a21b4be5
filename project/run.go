package project

import (
	"context"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flowdeck/flowdeck/capture"
	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/runner"
)

// RunRequest is a command to run, as the CLI's flags and the MCP tool's
// arguments describe it. Start from RunDefaults, so the config's [run]
// limits apply unless the caller overrides them; what the config gives
// every run (patterns, redaction, retention, environment) is not here: Run
// adds it.
type RunRequest struct {
	Argv        []string
	Feature     string
	Scope       model.Scope
	Timeout     time.Duration
	Memory      string // a size such as 512M
	Pids        int
	CPU         float64
	NoNetwork   bool
	NoIsolation bool
	// Attended: a person watches the run (the cockpit, --interactive), so
	// it is never ended as stalled.
	Attended bool
	// Stall is the config's run.stall: 0 = capture's default, < 0 = never.
	Stall time.Duration
	// Here runs a feature's command in RunIO.Dir even when the feature has
	// a worktree (else it runs in the worktree).
	Here bool
}

// RunIO is what only the caller of a run knows: where it runs, the
// terminal, live output, what is typed, interrupts.
type RunIO struct {
	// Dir is the working directory; "" is the project root.
	Dir        string
	Cols, Rows uint16
	Live       io.Writer
	Stdin      io.Reader // nil: end-of-file
	Interrupt  <-chan os.Signal
	// Started, when set, learns the run's id before the command starts
	// (the cockpit's kill key follows it).
	Started func(id string)
}

// RunDefaults is a request with the config's [run] defaults.
func (p *Project) RunDefaults() RunRequest {
	cfg := p.Config().Run
	r := RunRequest{Scope: model.ScopeTargeted, Memory: cfg.Memory, Pids: cfg.Pids, CPU: cfg.CPU}
	if cfg.Timeout != "" {
		r.Timeout, _ = time.ParseDuration(cfg.Timeout) // validated by config.Load
	}
	if cfg.Stall != "" {
		r.Stall, _ = time.ParseDuration(cfg.Stall)
		if r.Stall == 0 {
			r.Stall = -1 // "0": never
		}
	}
	return r
}

// Run runs one command as p's actor through the runner, classified, stored
// and indexed; a run for a feature becomes observed evidence, and is
// refused before it starts when it could not. Bad arguments (and unusable
// redaction rules in the config) are *ops.ArgError.
func (p *Project) Run(ctx context.Context, r RunRequest, rio RunIO) (ops.Result, error) {
	opts, err := p.runOptions(r)
	if err != nil {
		return nil, err
	}
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	opts.Dir, opts.Cols, opts.Rows = rio.Dir, rio.Cols, rio.Rows
	if opts.Dir == "" {
		opts.Dir = p.root
	}
	opts.Live, opts.Stdin, opts.Interrupt = rio.Live, rio.Stdin, rio.Interrupt
	if rio.Started != nil {
		// Run ids sort by real start time, whatever clock the caller shows.
		opts.ID = db.NewRunID(time.Now())
		rio.Started(opts.ID)
	}
	// A feature's run goes to its worktree unless --here.
	return ops.Run(ctx, st, opts, !r.Here)
}

// runOptions checks the request and turns it into capture options.
func (p *Project) runOptions(r RunRequest) (capture.Options, error) {
	if len(r.Argv) == 0 {
		return capture.Options{}, ops.ArgErrorf("run needs a command")
	}
	if r.Scope == "" {
		r.Scope = model.ScopeTargeted
	}
	if r.Scope != model.ScopeTargeted && r.Scope != model.ScopeBroad {
		return capture.Options{}, ops.ArgErrorf("scope must be targeted or broad, not %q", r.Scope)
	}
	limits, err := r.limits()
	if err != nil {
		return capture.Options{}, err
	}
	opts, err := p.captureSettings()
	if err != nil {
		return capture.Options{}, err
	}
	opts.Argv, opts.Feature, opts.Scope, opts.Actor = r.Argv, r.Feature, r.Scope, p.Actor()
	opts.Timeout, opts.Limits, opts.NoNetwork, opts.NoIsolation = r.Timeout, limits, r.NoNetwork, r.NoIsolation
	opts.Stall = r.Stall
	if r.Attended {
		opts.Stall = -1
	}
	return opts, nil
}

// Bounds beyond which a limit is a mistake (and would overflow what the
// kernel takes): the kernel's own pid ceiling, and a generous core count.
const (
	maxPids  = 1 << 22
	maxCores = 1 << 16
)

// limits checks the timeout and limits; an error names the flag at fault.
func (r RunRequest) limits() (runner.Limits, error) {
	switch {
	case r.Timeout < 0:
		return runner.Limits{}, ops.ArgErrorf("--timeout %v: must not be negative (0 = none)", r.Timeout)
	case r.Pids < 0 || r.Pids > maxPids:
		return runner.Limits{}, ops.ArgErrorf("--pids %d: use a number of processes from 1 to %d (0 = no limit)", r.Pids, maxPids)
	case math.IsNaN(r.CPU) || r.CPU < 0 || r.CPU > maxCores:
		return runner.Limits{}, ops.ArgErrorf("--cpu %v: use a number of cores such as 0.5, at most %d (0 = no limit)", r.CPU, maxCores)
	}
	limits := runner.Limits{Pids: r.Pids, CPU: r.CPU}
	if r.Memory != "" && r.Memory != "0" {
		n, err := config.ParseBytes(r.Memory)
		if err != nil {
			return runner.Limits{}, ops.ArgErrorf("--memory %q: %v", r.Memory, err)
		}
		limits.MemoryBytes = n
	}
	return limits, nil
}

// captureSettings are the capture options that the config's [run] table
// gives every command of the project, whoever runs it: the patterns, the
// redactor, the output budget and the environment. Unusable redaction rules
// are an *ops.ArgError naming the config file and line: runs fail closed.
func (p *Project) captureSettings() (capture.Options, error) {
	red, err := p.Redactor()
	if err != nil {
		return capture.Options{}, ops.ArgErrorf("%v", err)
	}
	run := p.Config().Run
	var env []string
	for _, k := range slices.Sorted(maps.Keys(run.Env)) {
		env = append(env, k+"="+run.Env[k])
	}
	return capture.Options{Patterns: p.Patterns(), Redactor: red, RetainBytes: RetainBytes(run.Retain), ExtraEnv: env}, nil
}

// RetainBytes is the project's output budget as capture.Options wants it:
// $FLOWDECK_RETAIN, else the config's run.retain (a size, or 0 for
// unbounded), else 0 for capture's default.
func RetainBytes(configured string) int64 {
	v := os.Getenv("FLOWDECK_RETAIN")
	if v == "" {
		v = configured
	}
	switch v {
	case "":
		return 0
	case "0":
		return -1
	}
	n, err := config.ParseBytes(v)
	if err != nil {
		return 0
	}
	return n
}

// Engine is the flow engine for the project, as the config sets it up: its
// agents, the capture settings, p's actor and clock, and this flowdeck's
// directory first on the flows' PATH (the built-in flows call flowdeck). The
// caller sets what only it knows: Wait, Poll, Log, Live, MaxSteps, Strict.
func (p *Project) Engine() (*flows.Engine, error) {
	c, err := p.captureSettings()
	if err != nil {
		return nil, err
	}
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	eng := &flows.Engine{Store: st, Root: p.root, Agents: p.Config().Agents, Actor: p.Actor(), Now: p.opts.Now,
		Patterns: c.Patterns, Redactor: c.Redactor, RetainBytes: c.RetainBytes}
	if exe, err := os.Executable(); err == nil && strings.HasPrefix(filepath.Base(exe), "flowdeck") {
		eng.Bin = filepath.Dir(exe)
	}
	return eng, nil
}

// VerifyFeature runs a feature's verification commands (broad: the whole
// plan's) in the project root, as observed evidence, with the config's
// timeout.
func (p *Project) VerifyFeature(ctx context.Context, feature string, scope model.Scope, noIsolation bool) (*flows.Verification, error) {
	opts, err := p.captureSettings()
	if err != nil {
		return nil, err
	}
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	opts.Actor, opts.NoIsolation, opts.Timeout = p.Actor(), noIsolation, p.RunDefaults().Timeout
	return flows.VerifyFeature(ctx, st, p.root, feature, scope, opts)
}
