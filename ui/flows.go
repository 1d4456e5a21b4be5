package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/project"
	"github.com/flowdeck/flowdeck/runner"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
	flowpane "github.com/flowdeck/flowdeck/ui/panes/flow"
)

// Literate flows in the cockpit. The cockpit executes the flows it starts
// (/flow-plan, /flow-run, /flow-auto, /flow) and the runs it resumes in
// engine goroutines, one tea.Cmd each: Engine.Start blocks until the run
// ends or pauses, waiting for decisions by polling the store, so a decision
// answered here, in another cockpit or with `flowdeck decide` moves it on.
// Everything the pane shows comes from the store through the usual loads,
// so runs executed by other processes show the same way.

// flowJob is an engine goroutine of this cockpit; its context is cancelled
// when the cockpit quits.
type flowJob struct {
	label  string
	cancel context.CancelFunc
	done   chan struct{}
}

// flowDoneMsg reports an engine goroutine that returned.
type flowDoneMsg struct {
	job *flowJob
	run *model.FlowRun
	err error
	// final is the text of the step a completed run stopped at: a flow
	// that ends at a refusal says so there (✗ …, ■ …).
	final string
}

// flowActMsg reports pause or cancel.
type flowActMsg struct {
	label string
	run   *model.FlowRun
	err   error
}

// recoveredMsg reports the runs flows.Recover found without their process.
type recoveredMsg struct {
	runs []model.FlowRun
	err  error
}

// flowNamesMsg carries the flow names for completion.
type flowNamesMsg struct{ names []string }

// flowLoad is the flow part of a load.
type flowLoad struct {
	runs      []model.FlowRun
	view      *flows.RunView
	out       *model.RunRecord // the run whose output the flow pane shows
	decisions []model.Decision // pending
	// executing holds the runs that have not ended and that a process
	// executes now (a "running" run without one lost it: interrupted).
	executing map[string]bool
	err       error
}

// readFlows takes the flow runs and pending decisions from snap and reads
// the run the flow pane shows: pin (/flow-show), else prefer (the run whose decision prompt
// is open), else the newest that has not ended, else the newest. prev is
// the view shown now: while its run has no new event it is reused (a long
// run has thousands of events and output makes loads frequent), with
// whether a process executes it read again (as for every unfinished run).
func readFlows(p *project.Project, snap *model.Snapshot, pin, prefer string, prev *flows.RunView) (fl flowLoad) {
	fl.runs, fl.decisions = snap.FlowRuns, snap.Decisions
	fl.executing = map[string]bool{}
	for _, r := range fl.runs {
		if !model.FlowEnded(r.Status) && p.FlowExecuting(r.ID) {
			fl.executing[r.ID] = true
		}
	}
	runs := snap.Runs
	if pin == "" {
		pin = prefer
	}
	id := pickFlow(fl.runs, pin)
	if id == "" {
		return fl
	}
	if prev != nil && prev.Run.ID == id && seqOf(fl.runs, id) == prev.Run.Seq {
		v := *prev
		v.Executing = fl.executing[id]
		fl.view = &v
	} else if fl.view, fl.err = p.FlowView(id); fl.err != nil {
		return fl
	}
	if rid := flowOutputRun(fl.view, runs); rid != "" {
		for i := range runs {
			if runs[i].ID == rid {
				r := runs[i]
				fl.out = &r
				break
			}
		}
		if fl.out == nil {
			fl.out, _ = p.RunRecord(rid) // older than the runs list: no output shown
		}
	}
	return fl
}

// seqOf is a run's event sequence (0: not listed).
func seqOf(runs []model.FlowRun, id string) uint64 {
	for _, r := range runs {
		if r.ID == id {
			return r.Seq
		}
	}
	return 0
}

func pickFlow(runs []model.FlowRun, pin string) string {
	if pin != "" {
		return pin
	}
	for _, r := range runs {
		if !model.FlowEnded(r.Status) {
			return r.ID
		}
	}
	if len(runs) > 0 {
		return runs[0].ID
	}
	return ""
}

// flowOutputRun picks the run whose output the flow pane shows: while an
// action is in flight, the newest run started since (a running one first);
// else the last run of the current step, else of the latest step that ran
// one.
func flowOutputRun(v *flows.RunView, runs []model.RunRecord) string {
	if in := v.Run.InFlight; in != nil && !model.FlowEnded(v.Run.Status) {
		found := ""
		for _, r := range runs { // newest first
			// Another flow's command (agents run side by side) is not this one's.
			if r.Start.Before(in.Started) || r.FlowRun != "" && r.FlowRun != v.Run.ID {
				continue
			}
			if r.Outcome == model.RunRunning {
				return r.ID
			}
			if found == "" {
				found = r.ID
			}
		}
		if found != "" {
			return found
		}
	}
	if n := len(v.Runs); n > 0 {
		return v.Runs[n-1]
	}
	for i := len(v.Run.History) - 1; i >= 0; i-- {
		if rs := v.Run.History[i].Runs; len(rs) > 0 {
			return rs[len(rs)-1]
		}
	}
	return ""
}

// setFlows takes the flow part of a load: the pane, its output, and the
// pending decisions (what waits is recomputed by setSession after).
func (m *Model) setFlows(fl flowLoad) tea.Cmd {
	if fl.err != nil {
		m.note = errNote("reading flow runs: " + fl.err.Error())
		if m.flowPin != "" {
			m.flowPin = "" // a pinned run that cannot be read: back to the newest
		}
		return nil
	}
	m.flowRuns, m.flowView, m.flowOutRec, m.decisions, m.flowExec = fl.runs, fl.view, fl.out, fl.decisions, fl.executing
	// The output first: the pane's layout depends on whether it has one.
	cmd := m.syncFlowOutput()
	m.syncFlowPane()
	return cmd
}

// promptFlowRun is the flow run of the open decision prompt ("" = none).
func (m *Model) promptFlowRun() string {
	if d, ok := m.top().(*decisionDialog); ok {
		return d.f.d.FlowRun
	}
	return ""
}

// syncFlowPane hands the pane the run with the line under its header.
func (m *Model) syncFlowPane() {
	v := m.flowView
	d := flowpane.Data{View: v}
	if v != nil {
		d.Notice, d.NoticeKind = m.flowNotice(v)
		if rec := m.flowOutRec; rec != nil {
			d.OutLabel = model.CommandLine(rec.Argv)
			if rec.Outcome == model.RunRunning {
				d.OutLabel, d.OutRunning = "⟳ "+d.OutLabel, true
			} else if rec.Outcome == string(runner.Exited) {
				d.OutLabel += fmt.Sprintf(" · exit %d", rec.ExitCode)
			} else {
				d.OutLabel += " · " + rec.Outcome
			}
		}
	}
	m.flowPane.Set(d)
}

// flowNotice says what the run needs, with the keys that do it.
func (m *Model) flowNotice(v *flows.RunView) (string, int) {
	r := v.Run
	switch st := flowpane.Status(v); {
	case v.Decision != nil && v.Decision.Status == model.DecisionPending:
		// What it asks, in its own words: the question is the last
		// paragraph of the decision's prompt (the step's text comes first).
		what := "your decision"
		switch v.Decision.Kind {
		case model.DecisionInterrupted:
			what = "you: retry, skip or cancel"
		case model.DecisionForm:
			what = "your answer"
		case model.DecisionTask:
			what = "you to do it"
		}
		if q := question(v.Decision.Prompt); q != "" && v.Decision.Kind != model.DecisionInterrupted {
			what += ": " + q
		}
		n := "⚑ waiting for " + what + " · " + m.keyName(keys.Open) + " answers"
		if !v.Executing {
			n += " and resumes it"
		}
		return n, flowpane.NoticeAttention
	case st == model.FlowStateFailed:
		return "✗ " + flowpane.OneLine(r.Error), flowpane.NoticeError
	case st == model.FlowStateRefused:
		return "✗ refused: " + flowpane.OneLine(r.Error), flowpane.NoticeError
	case st == model.FlowStatePaused:
		return "‖ paused at " + flowpane.StepTitle(v, r.Step) + " · " + m.keyName(keys.ResumeFlow) + " resumes", flowpane.NoticeInfo
	case st == model.FlowStatePausing:
		return "pausing after this step · " + m.keyName(keys.ResumeFlow) + " resumes it later", flowpane.NoticeInfo
	case st == model.FlowStateInterrupted:
		return "‖ no process executes it · " + m.keyName(keys.ResumeFlow) + " resumes it here · " + m.keyName(keys.CancelFlow) + " cancels", flowpane.NoticeInfo
	}
	return "", 0
}

// question is the last non-blank line of a decision's prompt (its question),
// made safe for one line.
func question(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return flowpane.OneLine(lines[len(lines)-1])
}

// flowEmptyNote is what the flow pane says before any flow has run: how
// to start one, here and from a shell.
func (m *Model) flowEmptyNote() string {
	return "no flow is running — start one with :/flow NAME (" + strings.Join([]string{"/flow-run", "/flow-plan GOAL", "/flow-auto"}, ", ") +
		") or flowdeck flows run NAME; flowdeck flows list names them"
}

func (m *Model) syncFlowOutput() tea.Cmd {
	return m.syncFeed(m.flowFeed, m.flowOutRec, "no command has run in this step yet")
}

// recoverCmd marks the runs whose process is gone as interrupted (a run cut
// off inside an exec block or agent gets its retry/skip/cancel decision)
// and settles the decisions whose time is up.
func (m *Model) recoverCmd() tea.Cmd {
	p := m.p
	return func() tea.Msg {
		runs, err := p.RecoverFlows()
		if err == nil {
			// Decisions past their deadline take their fallback (or fail
			// their run) before the cockpit offers them.
			err = p.SettleFlows()
		}
		return recoveredMsg{runs, err}
	}
}

func (m *Model) onRecovered(msg recoveredMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.note = errNote("recovering flow runs: " + msg.err.Error())
	case len(msg.runs) == 1:
		r := msg.runs[0]
		m.note = infoNote("flow run " + r.ID + " was interrupted (its process stopped) at step " + r.Step + " · " + m.keyName(keys.Pane7) + " shows it")
	case len(msg.runs) > 1:
		ids := make([]string, len(msg.runs))
		for i, r := range msg.runs {
			ids[i] = r.ID
		}
		m.note = infoNote(fmt.Sprintf("%d flow runs were interrupted (their process stopped): %s", len(ids), strings.Join(ids, ", ")))
	}
	if len(msg.runs) == 0 {
		return nil
	}
	m.minLoad = m.loadSeq + 1
	return m.loadCmd()
}

// flowNamesCmd lists the flows for completion (it reads .flow/flows).
func (m *Model) flowNamesCmd() tea.Cmd {
	root := m.root()
	return func() tea.Msg {
		list := flows.List(root)
		names := make([]string, len(list))
		for i, e := range list {
			names[i] = e.Name
		}
		return flowNamesMsg{names}
	}
}

// root is the project directory (the one holding .flow).
func (m *Model) root() string { return m.p.Root() }

func (m *Model) flowRunIDs() []string {
	out := make([]string, len(m.flowRuns))
	for i, r := range m.flowRuns {
		out[i] = r.ID
	}
	return out
}

// engineConfig is what an engine goroutine needs from the model, copied so
// the goroutine never reads the model.
type engineConfig struct {
	p    *project.Project
	root string
	poll time.Duration
}

func (m *Model) engineConfig() engineConfig {
	return engineConfig{p: m.p, root: m.root(), poll: m.poll}
}

// engine builds the flow engine as `flowdeck flows run` does (the project's
// Engine: the config's agents, the patterns and redaction, the output
// budget, this flowdeck first on the flows' PATH). The first use reads the
// pattern files, so it runs in the command, never in Update.
func (c engineConfig) engine() (*flows.Engine, error) {
	eng, err := c.p.Engine()
	if err != nil {
		return nil, err
	}
	eng.Wait, eng.Poll = true, c.poll
	return eng, nil
}

// startFlow starts a flow by name or file in an engine goroutine and shows
// it in the flow pane.
func (m *Model) startFlow(ref string, args []string) tea.Cmd {
	label := strings.TrimSpace("flow " + ref + " " + strings.Join(args, " "))
	m.flowPin = "" // the new run is the newest: the pane follows it
	ec := m.engineConfig()
	return m.flowJob(label, func(ctx context.Context) (*model.FlowRun, error) {
		path := ref
		// A relative path names a file in the project, whatever the
		// cockpit's working directory.
		if strings.ContainsRune(ref, os.PathSeparator) && !filepath.IsAbs(ref) {
			if p := filepath.Join(ec.root, ref); fileExists(p) {
				path = p
			}
		}
		f, source, err := flows.Load(ec.root, path)
		if err != nil {
			return nil, err
		}
		eng, err := ec.engine()
		if err != nil {
			return nil, err
		}
		return eng.Start(ctx, f, source, args, nil)
	})
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// resumeFlow continues a run in an engine goroutine of this cockpit.
func (m *Model) resumeFlow(id string) tea.Cmd {
	ec := m.engineConfig()
	m.flowPin = id
	return m.flowJob("resume "+id, func(ctx context.Context) (*model.FlowRun, error) {
		eng, err := ec.engine()
		if err != nil {
			return nil, err
		}
		return eng.Resume(ctx, id)
	})
}

func (m *Model) flowJob(label string, body func(context.Context) (*model.FlowRun, error)) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	j := &flowJob{label: label, cancel: cancel, done: make(chan struct{})}
	m.flowJobs = append(m.flowJobs, j)
	m.focusPane(layout.Flow)
	m.note = infoNote(label + "…")
	p := m.p
	return func() tea.Msg {
		defer close(j.done)
		defer cancel()
		run, err := body(ctx)
		msg := flowDoneMsg{job: j, run: run, err: err}
		if err == nil && run != nil && run.Status == model.FlowCompleted {
			if v, verr := p.FlowView(run.ID); verr == nil && v.PromptStep == run.Step {
				msg.final = v.Prompt
			}
		}
		return msg
	}
}

// onFlowDone says how an engine goroutine ended.
func (m *Model) onFlowDone(msg flowDoneMsg) tea.Cmd {
	for i, j := range m.flowJobs {
		if j == msg.job {
			m.flowJobs = append(m.flowJobs[:i], m.flowJobs[i+1:]...)
			break
		}
	}
	if m.planInEditor == msg.job {
		m.planInEditor = nil // it ended before asking for the plan
	}
	if m.quitting {
		return nil
	}
	m.note = flowDoneNote(msg)
	m.minLoad = m.loadSeq + 1
	return m.loadCmd()
}

func flowDoneNote(msg flowDoneMsg) note {
	var errs flowfile.Errors
	r := msg.run
	switch {
	case errors.As(msg.err, &errs):
		n := note{kind: noteErr, lines: []string{"✗ " + msg.job.label + ": the flow file has errors"}}
		for _, e := range errs {
			n.lines = append(n.lines, "  "+e.Error())
		}
		return n
	case errors.Is(msg.err, flows.ErrPaused) && r != nil:
		return infoNote("‖ flow run " + r.ID + " paused at step " + r.Step)
	case msg.err != nil:
		if e, ok := model.AsError(msg.err); ok {
			return refusalNote(e)
		}
		return errNote(msg.job.label + ": " + msg.err.Error())
	case r == nil:
		return infoNote(msg.job.label + ": done")
	case r.Status == model.FlowCompleted:
		// A flow ends at a stop step whose text starts with its verdict.
		last, _, _ := strings.Cut(strings.TrimSpace(msg.final), "\n")
		switch {
		case strings.HasPrefix(last, "✗"):
			return errNote("flow run " + r.ID + " refused: " + strings.TrimSpace(strings.TrimPrefix(last, "✗")))
		case strings.HasPrefix(last, "■"):
			return infoNote("■ flow run " + r.ID + " stopped: " + strings.TrimSpace(strings.TrimPrefix(last, "■")))
		}
		return okNote(fmt.Sprintf("flow run %s completed (%d steps)", r.ID, r.StepsRun))
	case r.Status == model.FlowFailed:
		return errNote("flow run " + r.ID + " failed: " + r.Error)
	case r.Status == model.FlowRefused:
		return errNote("flow run " + r.ID + " refused: " + r.Error)
	case r.Status == model.FlowCancelled:
		return infoNote("■ flow run " + r.ID + " cancelled")
	}
	return infoNote("flow run " + r.ID + ": " + string(r.Status))
}

// flowTarget is the run the flow keys act on: the one the pane shows.
func (m *Model) flowTarget() (*flows.RunView, bool) {
	if m.flowView == nil {
		m.note = errNote("no flow run: :/flow-plan GOAL, /flow-run, /flow-auto or /flow FILE starts one")
		return nil, false
	}
	return m.flowView, true
}

// pauseFlow asks the process executing the shown run to stop after its
// current step.
func (m *Model) pauseFlow() tea.Cmd {
	v, ok := m.flowTarget()
	if !ok {
		return nil
	}
	id := v.Run.ID
	if n, no := m.flowRefusal(keys.PauseFlow, id, flowpane.Status(v), v.Executing); no {
		m.note = n
		return nil
	}
	return m.flowAct("pause "+id, func(p *project.Project) (*model.FlowRun, error) {
		return p.PauseFlowRun(id)
	})
}

// resumeShownFlow resumes the shown run here, when no process executes it.
func (m *Model) resumeShownFlow() tea.Cmd {
	v, ok := m.flowTarget()
	if !ok {
		return nil
	}
	id := v.Run.ID
	if n, no := m.flowRefusal(keys.ResumeFlow, id, flowpane.Status(v), v.Executing); no {
		m.note = n
		return nil
	}
	return m.resumeFlow(id)
}

// cancelFlow asks before cancelling the shown run.
func (m *Model) cancelFlow() tea.Cmd {
	v, ok := m.flowTarget()
	if !ok {
		return nil
	}
	id := v.Run.ID
	if n, no := m.flowRefusal(keys.CancelFlow, id, flowpane.Status(v), v.Executing); no {
		m.note = n
		return nil
	}
	body := []string{"Stops its current command (whichever process executes it); the run is kept as cancelled."}
	if v.Decision != nil && v.Decision.Status == model.DecisionPending {
		body = append(body, "Its pending decision "+v.Decision.ID+" is cancelled too.")
	}
	m.openConfirmFunc("Cancel flow run "+id+"?", body, func() tea.Cmd {
		return m.flowAct("cancel "+id, func(p *project.Project) (*model.FlowRun, error) {
			return p.CancelFlowRun(id)
		})
	})
	return nil
}

// flowRefusal says why the pause, resume or cancel key (a) does nothing to
// flow run id, which reads st with a process executing it or not; false
// when it acts. The flow pane and the agents pane both ask it, so they
// agree on what each key does to a run.
func (m *Model) flowRefusal(a keys.Action, id string, st model.FlowState, executing bool) (note, bool) {
	switch {
	case st.Ended():
		verb := map[keys.Action]string{keys.PauseFlow: "pause", keys.ResumeFlow: "resume", keys.CancelFlow: "cancel"}[a]
		return errNote(id + " is " + string(st) + ": nothing to " + verb), true
	case a == keys.PauseFlow && (st == model.FlowStatePaused || st == model.FlowStatePausing):
		return infoNote(id + " is already " + string(st)), true
	case a == keys.PauseFlow && !executing:
		return errNote("no process executes " + id + ": nothing to pause (" + m.keyName(keys.ResumeFlow) + " resumes it)"), true
	case a == keys.ResumeFlow && executing && st != model.FlowStatePaused && st != model.FlowStateInterrupted:
		// A paused run's process may still be letting go of it: the
		// engine waits a moment for the lock, and says so if it stays.
		return errNote(id + " is " + string(st) + " already (in this cockpit or another process)"), true
	}
	return note{}, false
}

func (m *Model) flowAct(label string, fn func(*project.Project) (*model.FlowRun, error)) tea.Cmd {
	p := m.p
	m.note = infoNote(label + "…")
	return func() tea.Msg {
		run, err := fn(p)
		return flowActMsg{label: label, run: run, err: err}
	}
}

func (m *Model) onFlowAct(msg flowActMsg) tea.Cmd {
	var ended model.ErrFlowRunEnded
	switch {
	case errors.As(msg.err, &ended):
		m.note = errNote(msg.label + ": " + ended.Error())
	case msg.err != nil:
		m.note = errNote(msg.label + " failed: " + msg.err.Error())
	case strings.HasPrefix(msg.label, "pause"):
		m.note = okNote(msg.label + ": it stops after step " + msg.run.Step + " (" + m.keyName(keys.ResumeFlow) + " resumes)")
	default:
		m.note = okNote(msg.label + ": done")
	}
	m.minLoad = m.loadSeq + 1
	return m.loadCmd()
}
