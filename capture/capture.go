// Package capture runs one command the way flowdeck runs every command: in a
// pty under the isolator (runner), its output classified (patterns), redacted,
// stored and indexed (db), and, when it was run for a feature, recorded as
// observed validation evidence.
package capture

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/patterns"
	"github.com/flowdeck/flowdeck/runner"
)

// Options describe one capture.
type Options struct {
	// ID names the run; "" = a new id from its start. The cockpit picks it
	// up front so it knows which stored run is the one it may stop.
	ID   string
	Argv []string
	Dir  string   // working directory; "" = the caller's
	Env  []string // nil = the caller's environment
	// ExtraEnv (KEY=VALUE) is added last: the config's [run.env], which
	// may override runner.NonInteractiveEnv.
	ExtraEnv []string
	// Stall ends a run that waits for terminal input and printed nothing
	// for this long: 0 = DefaultStall, < 0 = never (a person watches).
	Stall   time.Duration
	Feature string // record the result as observed evidence on this feature
	// WorksOn is the feature the run works on without being its evidence
	// (an agent building it): the record names it, so runs, recall
	// --feature and the Runs pane find the agent's output. Feature wins.
	// It comes from a flow's variables (text a flow or an agent set): one
	// that is not a feature id is not recorded.
	WorksOn   string
	Commit    string // the git commit the command runs against, recorded on the evidence
	Tree      string // the git tree the code is at when it starts, recorded on the evidence
	Scope     model.Scope
	Actor     string
	Timeout   time.Duration
	Limits    runner.Limits
	NoNetwork bool
	// NoIsolation uses only rlimits, the timeout and the group kill.
	NoIsolation bool
	Cols, Rows  uint16
	// Live receives the raw output as it arrives (nil: nobody watches).
	Live io.Writer
	// Stdin, when set, is what a person types: the run is interactive. nil:
	// stdin is at end-of-file and the environment is runner.NonInteractiveEnv.
	Stdin     io.Reader
	Interrupt <-chan os.Signal
	Patterns  *patterns.Set      // nil = built-ins
	Redactor  *patterns.Redactor // nil = built-in rules
	// RetainBytes bounds the stored output of the project (oldest runs'
	// output is forgotten first); 0 = DefaultRetainBytes, <0 = unbounded.
	RetainBytes int64
	Now         func() time.Time
	// Internal tags the run as a flow's plumbing (model.RunRecord.Internal).
	Internal bool
	// FlowRun is the flow run that runs the command (model.RunRecord.FlowRun).
	FlowRun string
}

// DefaultRetainBytes is how much output a project keeps by default.
const DefaultRetainBytes = 2 << 30

// DefaultStall is how long a run may wait for terminal input, printing
// nothing, before it is ended as stalled_waiting_for_input.
const DefaultStall = 10 * time.Minute

func init() {
	// A later process that finds a run interrupted kills what is left of it.
	db.Reaper = func(data []byte) {
		var r runner.Remains
		if json.Unmarshal(data, &r) == nil {
			runner.Reap(r)
		}
	}
}

// Result is what a capture produced.
type Result struct {
	Run            model.RunRecord `json:"run"`
	Classification patterns.Result `json:"classification"`
	Headline       string          `json:"headline"`
	Evidence       *model.Evidence `json:"evidence,omitempty"`
	EvidenceError  *model.Error    `json:"evidence_error,omitempty"`
	// NextCommand is what the session needs once the evidence is recorded
	// (set for a run made for a feature).
	NextCommand string `json:"next_command,omitempty"`
}

// Precheck refuses early, before a long command runs, when its result could
// not be recorded as evidence on feature.
func Precheck(st *db.Store, feature string, scope model.Scope) error {
	if feature == "" {
		return nil
	}
	s, err := st.Active()
	if err != nil {
		return err
	}
	probe := model.Validate{Feature: feature, Status: model.ValidationPassed, Scope: scope, Command: "probe", Source: model.SourceObserved}
	_, err = model.Decide(s, probe, model.Context{Now: time.Now(), Actor: "probe"})
	return err
}

// Run captures one command. The error is about flowdeck (storage, a refused
// start); how the command itself ended is in Result.Run.
func Run(ctx context.Context, st *db.Store, o Options) (*Result, error) {
	if len(o.Argv) == 0 {
		return nil, fmt.Errorf("no command to run")
	}
	red := o.defaults()
	dir := o.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	dir, _ = filepath.Abs(dir)
	start := o.Now()
	// The command line is stored and shown too: redact it like output,
	// and the values of options such as --password.
	argvShown := red.Argv(o.Argv)
	id := o.ID
	if id == "" {
		id = db.NewRunID(start)
	}
	worksOn := o.WorksOn
	if !model.ValidFeatureID(worksOn) {
		worksOn = "" // shown on one line of runs and the Runs pane, and a docs link
	}
	rec := model.RunRecord{
		ID: id, Feature: cmp.Or(o.Feature, worksOn), Scope: string(o.Scope),
		Actor: o.Actor, Argv: argvShown, Cwd: dir, Start: start, Internal: o.Internal,
		FlowRun: o.FlowRun,
	}
	w, err := st.StartRun(rec)
	if err != nil {
		return nil, err
	}
	rec.Session = w.Session()
	res, class := execute(ctx, o, w, red)
	rec.Duration, rec.ExitCode, rec.Signal, rec.Outcome = res.Duration, res.ExitCode, res.Signal, string(res.Outcome)
	rec.Isolation = model.Isolation{Mechanism: res.Isolation.Mechanism, Enforced: res.Isolation.Enforced, Notes: res.Isolation.Notes}
	rec.Category, rec.Class, rec.Pattern = string(class.Category), string(class.Class), class.Pattern
	rec.Summary, rec.Detail = outcomeSummary(res, class, o.Stall), class.Detail
	final, err := w.Finish(rec, max(o.RetainBytes, 0))
	if err != nil {
		return nil, err
	}
	out := &Result{Run: final, Classification: class}
	out.Headline = Headline(final, class)
	if o.Feature != "" {
		return out, recordEvidence(st, o, argvShown, out)
	}
	return out, nil
}

// defaults fills in what the caller left out and returns the run's own
// redactor (a clone: it learns the secrets of this run).
func (o *Options) defaults() *patterns.Redactor {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Scope == "" {
		o.Scope = model.ScopeTargeted
	}
	if o.Patterns == nil {
		o.Patterns = patterns.Builtin()
	}
	if o.Stall == 0 {
		o.Stall = DefaultStall
	}
	if o.RetainBytes == 0 {
		o.RetainBytes = DefaultRetainBytes
	}
	if o.Redactor == nil {
		red, _ := patterns.NewRedactor(nil)
		return red
	}
	return o.Redactor.Clone()
}

// execute runs the command through the runner into w (redacted, indexed,
// classified) and returns how it ended and its classification.
func execute(ctx context.Context, o Options, w *db.RunWriter, red *patterns.Redactor) (runner.Result, patterns.Result) {
	started := func(r runner.Remains) {
		if data, err := json.Marshal(r); err == nil {
			w.SetRemains(data)
		}
	}
	classifier := o.Patterns.Classifier(o.Argv, patterns.Options{Redactor: red})
	sink := newSink(w, classifier, red, o.Live)

	// The error needs no handling: a start failure is also in res.Err, and
	// sink.Write never fails (the store's errors come back from Finish).
	res, _ := runner.Run(ctx, runner.Spec{
		Argv: o.Argv, Dir: o.Dir, Env: runEnv(o, w.ID()), Cols: o.Cols, Rows: o.Rows,
		Timeout: o.Timeout, Limits: o.Limits, NoNetwork: o.NoNetwork, ForceFallback: o.NoIsolation,
		Output: sink, Stdin: o.Stdin, Interrupt: o.Interrupt, Stall: max(o.Stall, 0), Started: started,
	})
	if res.Err != "" {
		// Say why it did not start, where the output would have been.
		sink.Write([]byte("flowdeck: " + res.Err + "\n"))
	}
	sink.close()
	class := classifier.Finish(res.ExitCode, res.Duration)
	if res.Outcome != runner.Exited && res.Outcome != "" && class.Class != patterns.Failure {
		class.Class = patterns.Failure
	}
	return res, class
}

// recordEvidence records the run as validation evidence of o.Feature; a
// refusal is kept in out.EvidenceError, not returned.
func recordEvidence(st *db.Store, o Options, argvShown []string, out *Result) error {
	ev := model.Validate{
		Feature: o.Feature, Status: EvidenceStatus(out.Run), Scope: o.Scope,
		Command: model.ShellJoin(argvShown), Summary: out.Headline, Source: model.SourceObserved, RunID: out.Run.ID,
		Commit: o.Commit, Tree: o.Tree,
	}
	outcome, err := st.Do(ev, o.Actor, o.Now())
	if refusal, ok := model.AsError(err); ok {
		out.EvidenceError = refusal
		out.NextCommand = refusal.Recovery.NextCommand
		return nil
	} else if err != nil {
		return err
	}
	if outcome != nil && len(outcome.Events) > 0 {
		out.Evidence = outcome.Events[0].Evidence
	}
	if outcome != nil && outcome.Session != nil {
		out.NextCommand = model.NextCommand(outcome.Session)
	}
	return nil
}

// runEnv is the command's environment: the caller's, the non-interactive
// defaults unless a person types into it, the config's [run.env], and the
// run's id. Later entries win (as in exec.Cmd).
func runEnv(o Options, id string) []string {
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	env = slices.Clip(env)
	if o.Stdin == nil {
		env = append(env, runner.NonInteractiveEnv...)
	}
	env = append(env, o.ExtraEnv...)
	return append(env, "FLOWDECK_RUN_ID="+id)
}

// outcomeSummary puts how the run ended in front of the classifier's summary
// when it did not simply exit.
func outcomeSummary(res runner.Result, class patterns.Result, stall time.Duration) string {
	var why string
	switch res.Outcome {
	case runner.TimedOut:
		why = "killed by timeout after " + res.Duration.Round(time.Millisecond).String()
	case runner.OOM:
		why = "killed for memory (OOM)"
	case runner.PidsLimit:
		why = "stopped by the pids limit (fork failed)"
	case runner.Stalled:
		why = "stalled waiting for input: it read the terminal and printed nothing for " + stall.String() +
			"; give it its input (a file, a flag such as --yes), or run it with --interactive"
	case runner.Cancelled:
		why = "cancelled"
	case runner.StartFailed:
		why = res.Err
	}
	switch {
	case why == "":
		return class.Summary
	case class.Summary == "":
		return why
	}
	return why + "; " + class.Summary
}

// Headline is the one line shown after a run, oo-style.
func Headline(rec model.RunRecord, class patterns.Result) string {
	name := class.Pattern
	if name == "" {
		name = model.ShellJoin(rec.Argv)
		if r := []rune(name); len(r) > 60 {
			name = string(r[:59]) + "…"
		}
	}
	class.Summary = rec.Summary
	if class.Class == patterns.Indexed {
		class.Summary = fmt.Sprintf("%s indexed, recall with: flowdeck recall QUERY", patterns.HumanBytes(rec.Bytes))
	}
	return class.Headline(name)
}

// EvidenceStatus turns a run's ending into validation status: a clean exit
// passes, a failure fails, and a run that was cut short (timeout, cancel)
// or that ran no test (class no_tests) is partial: it proves nothing.
func EvidenceStatus(rec model.RunRecord) model.ValidationStatus {
	switch {
	case rec.Outcome == string(runner.TimedOut) || rec.Outcome == string(runner.Cancelled):
		return model.ValidationPartial
	case rec.Class == string(patterns.NoTests):
		return model.ValidationPartial
	case rec.Outcome == string(runner.Exited) && rec.ExitCode == 0:
		return model.ValidationPassed
	}
	return model.ValidationFailed
}
