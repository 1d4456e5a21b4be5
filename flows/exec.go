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

	"github.com/flowdeck/flowdeck/capture"
	"github.com/flowdeck/flowdeck/flows/answer"
	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/flows/interp"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/patterns"
	"github.com/flowdeck/flowdeck/runner"
)

// env is the environment of the flow's processes.
func (e *Engine) env(run *model.FlowRun, actor string, extra map[string]string) []string {
	base := e.Env
	if base == nil {
		base = os.Environ()
	}
	s, err := e.Store.Active()
	if err != nil {
		s = nil
	}
	set := map[string]string{
		"FLOWDECK_DIR": e.Root, "FLOWDECK_FLOW_RUN": run.ID, "FLOWDECK_ACTOR": actor,
		"FLOWDECK_SESSION": "", "FLOWDECK_FEATURE": featureIn(run, s),
	}
	if s != nil {
		set["FLOWDECK_SESSION"] = s.ID
	}
	set["FLOWDECK_WORKTREE"] = e.agentDir(run)
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

// featureIn is the feature run works on: its feature variable (several
// may be active) when that is a feature id, else the active session's
// (s, nil when none) active feature; its processes' $FLOWDECK_FEATURE and
// the feature their run records name. The variable is a flow's argument,
// anyone's: like the agent's name (agentName), one that cannot be a
// feature's is not taken.
func featureIn(run *model.FlowRun, s *model.Session) string {
	if f := RunString(run, VarFeature); model.ValidFeatureID(f) {
		return f
	}
	if s != nil {
		return s.Execution.ActiveFeature
	}
	return ""
}

// runFeature is featureIn with the store's active session, read only when
// the run names no feature.
func (e *Engine) runFeature(run *model.FlowRun) string {
	if f := RunString(run, VarFeature); model.ValidFeatureID(f) {
		return f // no session read
	}
	s, err := e.Store.Active()
	if err != nil {
		s = nil
	}
	return featureIn(run, s)
}

// capture runs argv for the run and returns the result and its output as
// text (escape sequences removed). A cancel of the run from elsewhere stops
// the command.
// show streams the output to whoever watches (e.Live); internal marks the
// run as the flow's plumbing (model.RunRecord.Internal).
func (e *Engine) capture(ctx context.Context, run *model.FlowRun, dir string, argv []string, env []string, timeout time.Duration, limits flowfile.Limits, actor string, show, internal bool) (*capture.Result, string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The watcher reads the store; it is gone before capture returns, so
	// that nothing of the engine touches the project after its run ends
	// (a read in flight re-created the lock file of a project being
	// removed).
	done, stopped := make(chan struct{}), make(chan struct{})
	defer func() { close(done); <-stopped }()
	go func() {
		defer close(stopped)
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if r, err := e.Store.FlowRun(run.ID); err == nil && model.FlowEnded(r.Status) {
					cancel()
					return
				}
			}
		}
	}()
	red := e.Redactor
	if red == nil {
		red, _ = patterns.NewRedactor(nil)
	}
	buf := &tail{max: 1 << 20}
	var live io.Writer = buf
	if e.Live != nil && show {
		// What the person watches (a terminal, a crew's log file) is
		// redacted as the stored output is, line by line.
		shown := red.Writer(e.Live)
		defer shown.Flush()
		live = io.MultiWriter(buf, shown)
	}
	res, err := capture.Run(ctx, e.Store, capture.Options{
		Argv: argv, Dir: dir, Env: env, Actor: actor, Timeout: timeout,
		Limits:    runner.Limits{MemoryBytes: limits.MemoryBytes, Pids: limits.Pids, CPU: limits.CPU},
		NoNetwork: limits.NoNetwork, NoIsolation: e.NoIsolation, Live: live,
		Patterns: e.Patterns, Redactor: e.Redactor, RetainBytes: e.RetainBytes, Now: e.Now, Internal: internal,
		FlowRun: run.ID, WorksOn: e.runFeature(run),
	})
	if err != nil {
		return nil, "", err
	}
	// The output becomes flow variables and events, stored: redact it as
	// the run's stored output is.
	return res, strings.TrimSpace(string(red.Text(patterns.StripANSI(buf.bytes())))), nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
	cut bool // the first line lost its start
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
		t.cut = true
	}
	return len(p), nil
}

// bytes is what the tail holds, without a first line that lost its start:
// a secret cut there is no longer recognisable, and would be kept.
func (t *tail) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.b
	if i := bytes.IndexByte(b, '\n'); t.cut && i >= 0 {
		b = b[i+1:]
	}
	return bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
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
func (e *Engine) execBlock(ctx context.Context, s *flowfile.Step, ex *flowfile.Exec, run *model.FlowRun) (*model.FlowRun, error) {
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
	run, err = e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), model.FlowEvent{Type: model.FlowEvActionStarted, Step: s.Name,
		StepIndex: s.Index, Action: ex.Index, Kind: "exec", Label: label, Idempotent: s.Idempotent})
	if err != nil {
		return run, err
	}
	// Only stdout blocks stream live: store and none blocks print data
	// for the flow, not for the person. Every exec block is the flow's
	// plumbing (its output goes into a prompt or variables; the flow pane
	// shows it live), recorded as the flow's (or its agent's) run, not as
	// whoever started the flow: the runs list hides it until asked.
	res, out, err := e.capture(ctx, run, e.Root, ex.Argv(code, file), e.env(run, e.actor(), nil), s.Timeout, s.Limits, plumbingActor(run), ex.Mode == "stdout", true)
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
	return e.Store.AppendFlowEvents(run.ID, e.actor(), e.now(), model.FlowEvent{Type: model.FlowEvActionFinished, Step: s.Name,
		StepIndex: s.Index, Action: ex.Index, Kind: "exec", RunID: res.Run.ID, Exit: &exit, Summary: res.Headline,
		Output: &output, Vars: vars, Note: note})
}

// plumbingActor names who runs a flow's exec block: the agent the run works
// for (a crew's worker), else the flow itself.
func plumbingActor(run *model.FlowRun) string {
	if a := RunString(run, VarAgent); model.ValidAgentName(a) {
		return a
	}
	if run.Flow == "" {
		return "flow"
	}
	return "flow " + run.Flow
}

func (e *Engine) tempFile(run *model.FlowRun, name, content string) (string, error) {
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
