package ops

import (
	"context"
	"fmt"
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
	"github.com/flowdeck/flowdeck/patterns"
	"github.com/flowdeck/flowdeck/runner"
)

// LoadConfig loads $FLOWDECK_CONFIG or $XDG_CONFIG_HOME/flowdeck/config.toml;
// problems are written to warn and the defaults used.
func LoadConfig(warn io.Writer) config.Config {
	path := os.Getenv("FLOWDECK_CONFIG")
	if path == "" {
		path = config.DefaultPath()
	}
	cfg, errs := config.Load(path)
	for _, err := range errs {
		fmt.Fprintf(warn, "flowdeck: config: %v\n", err)
	}
	return cfg
}

// Patterns loads project patterns (.flow/patterns), then the user's
// ($XDG_CONFIG_HOME/flowdeck/patterns), then the built-ins. Broken files are
// reported to warn and skipped.
func Patterns(st *db.Store, warn io.Writer) *patterns.Set {
	dirs := []string{filepath.Join(st.Dir(), "patterns")}
	if cfg, err := os.UserConfigDir(); err == nil {
		dirs = append(dirs, filepath.Join(cfg, "flowdeck", "patterns"))
	}
	set, errs := patterns.Load(dirs...)
	for _, err := range errs {
		fmt.Fprintf(warn, "flowdeck: pattern skipped: %v\n", err)
	}
	return set
}

// RunRequest is a command to run, as the CLI's flags and the MCP tool's
// arguments describe it. Start from RunDefaults so the config applies.
type RunRequest struct {
	Argv        []string
	Feature     string
	Scope       model.Scope
	Actor       string
	Timeout     time.Duration
	Memory      string // a size such as 512M
	Pids        int
	CPU         float64
	NoNetwork   bool
	NoIsolation bool
	// Attended: a person watches the run (the cockpit, --interactive), so
	// it is never ended as stalled. Who types is the caller's business
	// (capture.Options.Stdin).
	Attended bool
	// Stall is the config's run.stall: 0 = capture's default, < 0 = never.
	Stall time.Duration
	// Retain, Redact and Env come from the config's [run] table; RedactErr
	// says why its redaction rules are unusable.
	Retain    string
	Redact    []string
	RedactErr error
	Env       map[string]string
}

// RunDefaults is a request with the config's [run] defaults.
func RunDefaults(cfg config.Run) RunRequest {
	r := RunRequest{Scope: model.ScopeTargeted, Memory: cfg.Memory, Pids: cfg.Pids, CPU: cfg.CPU,
		Retain: cfg.Retain, Redact: cfg.Redact, RedactErr: cfg.RedactErr, Env: cfg.Env}
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

// Options checks the request and turns it into capture options; bad
// arguments are *ArgError. The caller adds what only it knows: the
// terminal, live output, interrupts.
func (r RunRequest) Options(st *db.Store, warn io.Writer) (capture.Options, error) {
	if len(r.Argv) == 0 {
		return capture.Options{}, ArgErrorf("run needs a command")
	}
	if r.Scope == "" {
		r.Scope = model.ScopeTargeted
	}
	if r.Scope != model.ScopeTargeted && r.Scope != model.ScopeBroad {
		return capture.Options{}, ArgErrorf("scope must be targeted or broad, not %q", r.Scope)
	}
	limits, err := r.limits()
	if err != nil {
		return capture.Options{}, err
	}
	opts, err := CaptureSettings(st, config.Run{Redact: r.Redact, RedactErr: r.RedactErr, Retain: r.Retain, Env: r.Env}, warn)
	if err != nil {
		return capture.Options{}, err
	}
	opts.Argv, opts.Feature, opts.Scope, opts.Actor = r.Argv, r.Feature, r.Scope, r.Actor
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
		return runner.Limits{}, ArgErrorf("--timeout %v: must not be negative (0 = none)", r.Timeout)
	case r.Pids < 0 || r.Pids > maxPids:
		return runner.Limits{}, ArgErrorf("--pids %d: use a number of processes from 1 to %d (0 = no limit)", r.Pids, maxPids)
	case math.IsNaN(r.CPU) || r.CPU < 0 || r.CPU > maxCores:
		return runner.Limits{}, ArgErrorf("--cpu %v: use a number of cores such as 0.5, at most %d (0 = no limit)", r.CPU, maxCores)
	}
	limits := runner.Limits{Pids: r.Pids, CPU: r.CPU}
	if r.Memory != "" && r.Memory != "0" {
		n, err := config.ParseBytes(r.Memory)
		if err != nil {
			return runner.Limits{}, ArgErrorf("--memory %q: %v", r.Memory, err)
		}
		limits.MemoryBytes = n
	}
	return limits, nil
}

// CaptureSettings are the capture options that the config's [run] table
// gives every command of the project, whoever runs it: the project's
// patterns, the redaction rules and the output budget. Bad redaction rules
// are an *ArgError naming the config file and line: runs fail closed.
func CaptureSettings(st *db.Store, run config.Run, warn io.Writer) (capture.Options, error) {
	if run.RedactErr != nil {
		return capture.Options{}, ArgErrorf("config %v", run.RedactErr)
	}
	redactor, err := patterns.NewRedactor(run.Redact)
	if err != nil {
		return capture.Options{}, ArgErrorf("config run.redact: %v", err)
	}
	var env []string
	for _, k := range slices.Sorted(maps.Keys(run.Env)) {
		env = append(env, k+"="+run.Env[k])
	}
	return capture.Options{Patterns: Patterns(st, warn), Redactor: redactor, RetainBytes: RetainBytes(run.Retain), ExtraEnv: env}, nil
}

// FlowEngine is the flow engine for the project in st as the config sets it
// up: its agents and CaptureSettings, and this flowdeck's directory first on
// the flows' PATH, since the built-in flows call flowdeck. The caller sets
// what only it knows: Wait, Poll, Log, Live, Now.
func FlowEngine(st *db.Store, root, actor string, cfg config.Config, warn io.Writer) (*flows.Engine, error) {
	c, err := CaptureSettings(st, cfg.Run, warn)
	if err != nil {
		return nil, err
	}
	eng := &flows.Engine{Store: st, Root: root, Agents: cfg.Agents, Actor: actor,
		Patterns: c.Patterns, Redactor: c.Redactor, RetainBytes: c.RetainBytes}
	if exe, err := os.Executable(); err == nil && strings.HasPrefix(filepath.Base(exe), "flowdeck") {
		eng.Bin = filepath.Dir(exe)
	}
	return eng, nil
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

// RunResult is a finished run as an agent reads it: each fact once, in
// snake_case, the output as a bounded excerpt (the failures, when the
// pattern knows them); the whole output is in `flowdeck show RUN_ID`. When it
// was run for a feature, the evidence it became, or (as error) why not.
type RunResult struct {
	OK         bool         `json:"ok"`
	Error      *model.Error `json:"error,omitempty"`
	RunID      string       `json:"run_id"`
	Command    []string     `json:"command"`
	ExitCode   int          `json:"exit_code"`
	Signal     string       `json:"signal,omitempty"`
	Outcome    string       `json:"outcome"`
	DurationMS int64        `json:"duration_ms"`
	Classification
	Evidence *EvidenceView `json:"evidence,omitempty"`
	// NextCommand is, for a run made for a feature, what the session needs
	// next now that the run is recorded (as every action result says).
	NextCommand string `json:"next_command,omitempty"`

	// For Go callers: the record, the classification and the headline.
	Run           model.RunRecord `json:"-"`
	Class         patterns.Result `json:"-"`
	Headline      string          `json:"-"`
	EvidenceError *model.Error    `json:"-"`
	EvidenceFull  *model.Evidence `json:"-"`
}

// Classification is how a run's output was classified, in snake_case, with
// at most an excerpt of the output.
type Classification struct {
	Class    string         `json:"class"`
	Category string         `json:"category,omitempty"`
	Pattern  string         `json:"pattern,omitempty"`
	Summary  string         `json:"summary,omitempty"`
	Counts   map[string]int `json:"counts,omitempty"`
	Bytes    int64          `json:"bytes"`
	Lines    int64          `json:"lines"`
	// Excerpt is the failure detail or a passthrough output, cut to
	// MaxExcerptLines and MaxExcerptBytes (Truncated says so).
	Excerpt   string `json:"excerpt,omitempty"`
	Truncated bool   `json:"excerpt_truncated,omitempty"`
}

// Bounds of a result's excerpt: what an agent needs to act on a failure,
// not the whole log (recall and show have that).
const (
	MaxExcerptLines = 40
	MaxExcerptBytes = 4 << 10
)

// Classify is c as results carry it.
func Classify(c patterns.Result) Classification {
	out := Classification{Class: string(c.Class), Category: string(c.Category), Pattern: c.Pattern,
		Summary: c.Summary, Counts: c.Counts, Bytes: c.Bytes, Lines: c.Lines}
	if c.Class == patterns.Failure || c.Class == patterns.Passthrough {
		out.Excerpt, out.Truncated = excerpt(c.Detail)
	}
	return out
}

// excerpt is the first MaxExcerptLines lines of detail within
// MaxExcerptBytes (the failures come first in a failure's detail).
func excerpt(detail string) (string, bool) {
	detail = strings.TrimRight(detail, "\n")
	lines := strings.SplitAfter(detail, "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == MaxExcerptLines || b.Len()+len(l) > MaxExcerptBytes {
			return strings.TrimRight(b.String(), "\n"), true
		}
		b.WriteString(l)
	}
	return detail, false
}

// Refusal is the evidence refusal: the command ran, but its result is not
// evidence. A failing command is not a refusal; it is what the run found.
func (r *RunResult) Refusal() *model.Error { return r.EvidenceError }

// Run runs one command. When its result could not be recorded as evidence
// on the feature it names, it is refused before the command starts.
func Run(ctx context.Context, st *db.Store, opts capture.Options) (Result, error) {
	if err := capture.Precheck(st, opts.Feature, opts.Scope); err != nil {
		if refusal, ok := model.AsError(err); ok {
			return Refused(refusal), nil
		}
		return nil, err
	}
	res, err := capture.Run(ctx, st, opts)
	if err != nil {
		return nil, err
	}
	rec := res.Run
	class := Classify(res.Classification)
	if rec.Outcome != "exited" && rec.Summary != "" {
		// A run that was ended (timeout, stall, memory) is summarized by
		// why, not by the exit status its kill left behind.
		class.Summary = rec.Summary
	}
	return &RunResult{
		NextCommand: res.NextCommand,
		OK:          rec.ExitCode == 0 && res.EvidenceError == nil, Error: res.EvidenceError,
		RunID: rec.ID, Command: rec.Argv, ExitCode: rec.ExitCode, Signal: rec.Signal, Outcome: rec.Outcome,
		DurationMS: rec.Duration.Milliseconds(), Classification: class,
		Evidence: viewEvidence(res.Evidence, true),
		Run:      rec, Class: res.Classification, Headline: res.Headline,
		EvidenceError: res.EvidenceError, EvidenceFull: res.Evidence,
	}, nil
}
