// Package capture runs one command the way flowdeck runs every command: in a
// pty under the isolator (runner), its output classified (patterns), redacted,
// stored and indexed (db), and, when it was run for a feature, recorded as
// observed validation evidence.
package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"flowdeck/db"
	"flowdeck/model"
	"flowdeck/patterns"
	"flowdeck/runner"
	"flowdeck/termtext"
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
	Stall     time.Duration
	Feature   string // record the result as observed evidence on this feature
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
	// Internal tags the run as a flow's plumbing (db.RunRecord.Internal).
	Internal bool
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
	Run            db.RunRecord    `json:"run"`
	Classification patterns.Result `json:"classification"`
	Headline       string          `json:"headline"`
	Evidence       *model.Evidence `json:"evidence,omitempty"`
	EvidenceError  *model.Error    `json:"evidence_error,omitempty"`
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
	now := o.Now
	if now == nil {
		now = time.Now
	}
	if o.Scope == "" {
		o.Scope = model.ScopeTargeted
	}
	if o.Patterns == nil {
		o.Patterns = patterns.Builtin()
	}
	red := o.Redactor
	if red == nil {
		red, _ = patterns.NewRedactor(nil)
	} else {
		red = red.Clone()
	}
	dir := o.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	dir, _ = filepath.Abs(dir)
	start := now()
	// The command line is stored and shown too: redact it like output,
	// and the values of options such as --password.
	argvShown := red.Argv(o.Argv)
	id := o.ID
	if id == "" {
		id = db.NewRunID(start)
	}
	rec := db.RunRecord{
		ID: id, Feature: o.Feature, Scope: string(o.Scope),
		Actor: o.Actor, Argv: argvShown, Cwd: dir, Start: start, Internal: o.Internal,
	}
	w, err := st.StartRun(rec)
	if err != nil {
		return nil, err
	}
	rec.Session = w.Session()
	env := runEnv(o, rec.ID)
	stall := o.Stall
	if stall == 0 {
		stall = DefaultStall
	}
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
		Argv: o.Argv, Dir: o.Dir, Env: env, Cols: o.Cols, Rows: o.Rows,
		Timeout: o.Timeout, Limits: o.Limits, NoNetwork: o.NoNetwork, ForceFallback: o.NoIsolation,
		Output: sink, Stdin: o.Stdin, Interrupt: o.Interrupt, Stall: max(stall, 0), Started: started,
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
	rec.Duration, rec.ExitCode, rec.Signal, rec.Outcome = res.Duration, res.ExitCode, res.Signal, string(res.Outcome)
	rec.Isolation = db.Isolation{Mechanism: res.Isolation.Mechanism, Enforced: res.Isolation.Enforced, Notes: res.Isolation.Notes}
	rec.Category, rec.Class, rec.Pattern = string(class.Category), string(class.Class), class.Pattern
	rec.Summary, rec.Detail = outcomeSummary(res, class, stall), class.Detail
	retain := o.RetainBytes
	if retain == 0 {
		retain = DefaultRetainBytes
	}
	final, err := w.Finish(rec, max(retain, 0))
	if err != nil {
		return nil, err
	}
	out := &Result{Run: final, Classification: class}
	out.Headline = Headline(final, class)
	if o.Feature != "" {
		ev := model.Validate{
			Feature: o.Feature, Status: EvidenceStatus(final), Scope: o.Scope,
			Command: model.ShellJoin(argvShown), Summary: out.Headline, Source: model.SourceObserved, RunID: final.ID,
		}
		outcome, err := st.Do(ev, o.Actor, now())
		if refusal, ok := model.AsError(err); ok {
			out.EvidenceError = refusal
		} else if err != nil {
			return out, err
		} else if outcome != nil && len(outcome.Events) > 0 {
			out.Evidence = outcome.Events[0].Evidence
		}
	}
	return out, nil
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
func Headline(rec db.RunRecord, class patterns.Result) string {
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
func EvidenceStatus(rec db.RunRecord) model.ValidationStatus {
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

// sink receives the pty's bytes. The reader's goroutine only copies them
// (and shows them live). Two workers take every buffer: one classifies, the
// other cuts lines for redaction, storage and the recall index; so reading
// the pty, classifying and storing overlap on both cores.
type sink struct {
	store    *db.RunWriter
	classify *patterns.Classifier
	redact   *patterns.Redactor
	live     io.Writer

	toClassify, toStore chan *sinkBuf
	free                chan *sinkBuf
	done                sync.WaitGroup

	mu   sync.Mutex // guards cur between Write and tick
	cur  *sinkBuf   // the buffer being filled
	stop chan struct{}

	partial []byte
	// continued is set while the rest of an over-long line is arriving.
	continued bool
	// raw, text and lines batch one buffer's lines for the store.
	raw, text, scratch, joined []byte
	lines                      int
}

// sinkBuf is a buffer shared by both workers; the last one to finish with
// it returns it to the pool.
type sinkBuf struct {
	data  []byte
	users atomic.Int32
}

const sinkBuffers, sinkBufSize = 32, 64 << 10

// sinkLinger is how long a partly filled buffer may wait for more output.
const sinkLinger = 10 * time.Millisecond

func newSink(store *db.RunWriter, c *patterns.Classifier, r *patterns.Redactor, live io.Writer) *sink {
	s := &sink{store: store, classify: c, redact: r, live: live,
		toClassify: make(chan *sinkBuf, sinkBuffers), toStore: make(chan *sinkBuf, sinkBuffers),
		free: make(chan *sinkBuf, sinkBuffers), stop: make(chan struct{})}
	for range sinkBuffers {
		s.free <- &sinkBuf{data: make([]byte, 0, sinkBufSize)}
	}
	s.done.Add(2)
	go s.worker(s.toClassify, func(b []byte) { s.classify.Write(b) }, nil)
	go s.worker(s.toStore, s.process, s.finishLines)
	go s.tick()
	return s
}

// maxLine bounds a line held in memory; a longer one is stored in pieces
// (a secret cut by the boundary may then escape redaction).
const maxLine = 1 << 20

func (s *sink) Write(p []byte) (int, error) {
	if s.live != nil {
		s.live.Write(p)
	}
	// A pty read returns a few KiB at a time; filling whole buffers before
	// handing them on keeps the per-buffer work (two hand-offs, a redaction
	// check, a store call) from dominating a flood of output.
	s.mu.Lock()
	defer s.mu.Unlock()
	for rest := p; len(rest) > 0; {
		if s.cur == nil {
			s.cur = <-s.free
			s.cur.data = s.cur.data[:0]
		}
		n := min(len(rest), cap(s.cur.data)-len(s.cur.data))
		s.cur.data = append(s.cur.data, rest[:n]...)
		rest = rest[n:]
		if len(s.cur.data) == cap(s.cur.data) {
			s.send()
		}
	}
	return len(p), nil
}

// send hands the current buffer to both workers. Called with mu held.
func (s *sink) send() {
	if s.cur == nil || len(s.cur.data) == 0 {
		return
	}
	s.cur.users.Store(2)
	s.toClassify <- s.cur
	s.toStore <- s.cur
	s.cur = nil
}

// tick hands on a partly filled buffer when output pauses, so a slow
// command's lines still reach the store (and other processes) promptly.
func (s *sink) tick() {
	t := time.NewTicker(sinkLinger)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.mu.Lock()
			s.send()
			s.mu.Unlock()
		}
	}
}

// close waits until everything written has been processed.
func (s *sink) close() {
	close(s.stop)
	s.mu.Lock()
	s.send()
	s.mu.Unlock()
	close(s.toClassify)
	close(s.toStore)
	s.done.Wait()
}

func (s *sink) worker(in chan *sinkBuf, do func([]byte), last func()) {
	defer s.done.Done()
	for buf := range in {
		do(buf.data)
		if buf.users.Add(-1) == 0 {
			s.free <- buf
		}
	}
	if last != nil {
		last()
	}
}

func (s *sink) finishLines() {
	if len(s.partial) > 0 {
		s.line(s.partial, false)
		s.partial = s.partial[:0]
	}
	s.commit()
}

func (s *sink) process(data []byte) {
	if s.fastPath(data) {
		s.commit()
		return
	}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			s.partial = append(s.partial, data...)
			if len(s.partial) >= maxLine {
				s.line(s.partial, false)
				s.partial = s.partial[:0]
			}
			break
		}
		if len(s.partial) > 0 {
			s.partial = append(s.partial, data[:i]...)
			s.line(s.partial, true)
			s.partial = s.partial[:0]
		} else {
			s.line(data[:i], true)
		}
		data = data[i+1:]
	}
	s.commit()
}

// fastPath handles a buffer in which nothing can need redaction (the common
// case): the bytes up to its last newline are stored as they are, lines are
// cut only for the index, and once a run's index is full they are only
// counted. It declines buffers the slow path must see line by line.
func (s *sink) fastPath(data []byte) bool {
	last := bytes.LastIndexByte(data, '\n')
	if last < 0 || s.continued || !s.redact.Clean(data) || !s.seamClean(data) {
		return false
	}
	complete := data[:last+1]
	if s.store.IndexFull() {
		s.lines += bytes.Count(complete, []byte{'\n'})
	} else {
		for rest, first := complete, true; len(rest) > 0; first = false {
			i := bytes.IndexByte(rest, '\n')
			line := rest[:i]
			if first && len(s.partial) > 0 {
				s.joined = append(append(s.joined[:0], s.partial...), line...)
				line = s.joined
			}
			s.index(line)
			rest = rest[i+1:]
		}
	}
	// Hand the bytes to the store as they are, without another copy here.
	s.store.Append(s.partial, nil, 0)
	s.store.Append(complete, s.text, s.lines)
	s.text, s.lines = s.text[:0], 0
	s.partial = append(s.partial[:0], data[last+1:]...)
	return true
}

// seamClean reports whether the line that a pending partial line and the
// next buffer make together needs no redaction: a secret, or an escape
// sequence inside one, may straddle the two.
func (s *sink) seamClean(data []byte) bool {
	if len(s.partial) == 0 {
		return true
	}
	first := bytes.IndexByte(data, '\n')
	s.scratch = append(append(s.scratch[:0], s.partial...), data[:first]...)
	return s.redact.Clean(s.scratch)
}

// index adds one line's text to the batch for the recall index.
func (s *sink) index(line []byte) {
	text := s.plainText(line)
	if len(text) > db.MaxIndexLine {
		text = text[:db.MaxIndexLine]
	}
	s.text = append(append(s.text, text...), '\n')
	s.lines++
}

// commit hands the lines cut so far to the store in one call.
func (s *sink) commit() {
	if len(s.raw) > 0 || s.lines > 0 {
		s.store.Append(s.raw, s.text, s.lines)
		s.raw, s.text, s.lines = s.raw[:0], s.text[:0], 0
	}
}

// line stores one line, or one piece of an over-long line, and indexes the
// line's text once, from its first piece.
func (s *sink) line(raw []byte, newline bool) {
	red := s.redact.Line(raw)
	s.raw = append(s.raw, red...)
	if newline {
		s.raw = append(s.raw, '\n')
	}
	if !s.continued {
		s.index(red)
	}
	s.continued = !newline
}

// plainText is the line as recall shows it: escape sequences removed,
// progress redraws (\r) resolved. Most lines have no control character and
// are used as they are; lines whose only controls are CSI sequences (colour)
// are cleaned into a scratch buffer; anything else goes to StripANSI.
func (s *sink) plainText(line []byte) []byte {
	high, plain := false, true
	for i, c := range line {
		switch {
		case c == 0x1b && i+1 < len(line) && line[i+1] == '[':
			plain = false
		case c < 0x20 && c != '\t' || c == 0x7f:
			return bytes.TrimRight(patterns.StripANSI(line), "\r")
		case c == 0xc2 && i+1 < len(line) && line[i+1] >= 0x80 && line[i+1] <= 0x9f:
			return patterns.StripANSI(line) // a C1 control in UTF-8
		case c >= 0x80:
			high = true
		}
	}
	if high && !utf8.Valid(line) {
		return patterns.StripANSI(line)
	}
	if plain {
		return line
	}
	return s.stripCSI(line)
}

// stripCSI removes escape sequences, the only controls plainText lets
// through to it, with termtext's parser (a sequence cut by the line end
// runs to it).
func (s *sink) stripCSI(line []byte) []byte {
	s.scratch = termtext.AppendStrip(s.scratch[:0], line)
	return s.scratch
}
