package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/project"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// A job is what the cockpit itself runs through the runner: a feature's
// verification commands (v) or one command typed as /run CMD. Each runs in a
// tea.Cmd, one command after the other, in the project root; the store
// records it like any `flowdeck run`, so the runs and output panes show it
// live through their usual polling. Its context is cancelled by the stop key
// and when the cockpit quits.
type job struct {
	label   string
	feature string
	cancel  context.CancelFunc
	done    chan struct{}

	mu  sync.Mutex
	run string // the id of the run in progress, set before it starts
}

func (j *job) current() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.run
}

// jobMsg reports a finished job.
type jobMsg struct {
	job      *job
	results  []*ops.RunResult
	refusal  *model.Error
	err      error
	warnings string
	pending  int // commands not run because one failed or the job was stopped
}

// quitWait bounds how long quitting waits for stopped runs to be recorded.
const quitWait = 3 * time.Second

// argvOf turns a command line as people write it in a plan or after /run
// into argv. Words and quotes are split here, so the command runs directly
// and the classifier sees `go test`; a line with shell syntax (pipes,
// redirections, variables, globs, ;, &&) runs through sh -c, as the model's
// next_action does.
func argvOf(line string) []string {
	line = strings.TrimSpace(line)
	if line == "" {
		return nil
	}
	if words, ok := splitWords(line); ok {
		return words
	}
	return []string{"sh", "-c", line}
}

// splitWords splits a line the way sh would when it holds only words,
// single quotes, double quotes without expansions, and backslash escapes;
// ok is false for anything else.
func splitWords(line string) (words []string, ok bool) {
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			j := strings.IndexByte(line[i+1:], '"')
			if j < 0 || strings.ContainsAny(line[i+1:i+1+j], "$`\\") {
				return nil, false
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '\\' && i+1 < len(line):
			cur.WriteByte(line[i+1])
			i++
			inWord = true
		case strings.IndexByte("|&;<>()$`*?[]{}\\\n", c) >= 0,
			(c == '#' || c == '~') && !inWord, // a comment, a home directory
			c == '=' && len(words) == 0:       // VAR=value before the command
			return nil, false
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, len(words) > 0
}

// startVerify runs the selected feature's verification commands; their
// results become observed evidence. The last feature's evidence must be
// broad, so the scope follows the completion gate, as the demo agent does.
func (m *Model) startVerify() tea.Cmd {
	if m.sess == nil || m.sess.Plan == nil || m.sel == "" {
		m.note = errNote("no feature selected")
		return nil
	}
	f := m.sess.Plan.Feature(m.sel)
	if f == nil {
		m.note = errNote("no feature selected")
		return nil
	}
	if len(f.Verification) == 0 {
		m.note = errNote(f.ID + " has no verification commands in the plan; /run CMD runs any command")
		return nil
	}
	if m.verifying(f.ID) {
		m.note = errNote("already verifying " + f.ID + " · " + m.keyName(keys.Kill) + " stops it")
		return nil
	}
	// The feature that completes the session validates broadly (every
	// verification command of the plan) from the first v, as the model's
	// next command says (flows verify --scope broad).
	scope := model.ScopeTargeted
	if f.Status == model.FeatureInProgress && model.CompletesSession(m.sess, f) {
		scope = model.ScopeBroad
	}
	cmds := model.VerifyCommands(m.sess.Plan, f, scope)
	argvs := make([][]string, 0, len(cmds))
	for _, v := range cmds {
		if a := argvOf(v); len(a) > 0 {
			argvs = append(argvs, a)
		}
	}
	body := []string{"Runs " + fmt.Sprintf("%d", len(argvs)) + " command(s) and records the result as " + string(scope) + " evidence on " + f.ID + ":"}
	if scope == model.ScopeBroad {
		body[0] = "It completes the session: runs every verification command of the plan (" + fmt.Sprintf("%d", len(argvs)) +
			") and records the result as broad evidence on " + f.ID + ":"
	}
	for _, v := range cmds {
		body = append(body, "  "+v)
	}
	m.openConfirmFunc("Verify "+f.ID+"?", body, func() tea.Cmd {
		return m.startJob("verify "+f.ID, f.ID, scope, argvs)
	})
	return nil
}

// startJob launches argvs, one after the other, stopping at the first that
// fails or cannot be recorded.
func (m *Model) startJob(label, feature string, scope model.Scope, argvs [][]string) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	j := &job{label: label, feature: feature, cancel: cancel, done: make(chan struct{})}
	m.jobs = append(m.jobs, j)
	// Show the run as it starts: the newest run is selected (the runs pane
	// follows it) and the output takes the lower slot.
	m.runList.Top()
	m.lower, m.slot = layout.Output, layout.Output
	m.note = infoNote(label + "… · " + m.keyName(keys.Kill) + " stops it")

	p := m.p
	return func() tea.Msg {
		defer close(j.done)
		defer cancel()
		msg := jobMsg{job: j}
		for i, argv := range argvs {
			if ctx.Err() != nil {
				msg.pending = len(argvs) - i
				break
			}
			if argv[0] == "flowdeck" {
				// This cockpit's own flowdeck, whatever PATH holds.
				if exe, err := os.Executable(); err == nil {
					argv = append([]string{flowdeckBinary(exe)}, argv[1:]...)
				}
			}
			req := p.RunDefaults()
			req.Argv, req.Feature, req.Scope = argv, feature, scope
			req.Attended = true // the person watches it and can stop it: never ended as stalled
			started := func(id string) {
				j.mu.Lock()
				j.run = id
				j.mu.Unlock()
			}
			res, err := p.Run(ctx, req, project.RunIO{Started: started})
			if err != nil {
				msg.err = err
				break
			}
			rr, ok := res.(*ops.RunResult)
			if !ok { // refused before it started: the evidence could not be recorded
				msg.refusal = res.Refusal()
				break
			}
			msg.results = append(msg.results, rr)
			if !rr.OK {
				msg.pending = len(argvs) - i - 1
				break
			}
		}
		msg.warnings = patternWarnings(p)
		return msg
	}
}

// patternWarnings are the pattern files that the project skipped as broken,
// one line.
func patternWarnings(p *project.Project) string {
	var parts []string
	for _, err := range p.PatternErrors() {
		parts = append(parts, "flowdeck: pattern skipped: "+err.Error())
	}
	return strings.Join(parts, "\n")
}

// flowdeckBinary is what `flowdeck` in /run means: the lean flowdeck next to
// this executable, else this executable when it is flowdeck itself (the
// cockpit binary accepts every subcommand), else whatever PATH finds.
func flowdeckBinary(exe string) string {
	if p := filepath.Join(filepath.Dir(exe), "flowdeck"); p != exe {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	if strings.HasPrefix(filepath.Base(exe), "flowdeck") {
		return exe
	}
	return "flowdeck"
}

// onJob shows how a job ended and reloads at once, so the evidence it
// recorded shows without waiting for the next poll.
func (m *Model) onJob(msg jobMsg) tea.Cmd {
	for i, j := range m.jobs {
		if j == msg.job {
			m.jobs = append(m.jobs[:i], m.jobs[i+1:]...)
			break
		}
	}
	if m.quitting {
		return nil
	}
	switch {
	case msg.err != nil:
		m.note = errNote(msg.job.label + " failed: " + msg.err.Error())
	case msg.refusal != nil:
		m.note = refusalNote(msg.refusal)
	default:
		m.note = jobNote(msg)
	}
	if msg.warnings != "" && !m.patternsWarned {
		// The project loads its patterns once: so are they reported.
		m.patternsWarned = true
		m.note.lines = append(m.note.lines, "  "+strings.ReplaceAll(msg.warnings, "\n", "; "))
	}
	return m.loadCmd()
}

// jobNote is the one-line result of each command, then what was recorded.
func jobNote(msg jobMsg) note {
	n := note{kind: noteOK}
	for _, r := range msg.results {
		line := r.Headline
		switch {
		case r.Run.Outcome == "cancelled":
			line = "stopped: " + line
			n.kind = noteErr
		case !r.OK:
			n.kind = noteErr
		}
		if r.Evidence != nil {
			line += fmt.Sprintf(" → %s: %s (%s, observed)", r.Evidence.Feature, r.Evidence.Status, r.Evidence.Scope)
		}
		n.lines = append(n.lines, line)
		if r.EvidenceError != nil {
			n.lines = append(n.lines, refusalNote(r.EvidenceError).lines...)
		}
	}
	if msg.pending > 0 {
		n.lines = append(n.lines, fmt.Sprintf("  %d more verification command(s) not run", msg.pending))
	}
	if len(n.lines) == 0 {
		n.lines = []string{msg.job.label + ": stopped before it started"}
	}
	return n
}

// startStop asks before stopping a run this cockpit started: the one selected
// in the runs pane, else the newest.
func (m *Model) startStop() tea.Cmd {
	if len(m.jobs) == 0 {
		if rec := m.runList.SelectedRecord(); rec != nil && rec.Outcome == model.RunRunning {
			m.note = errNote(fmt.Sprintf("%s was started by %s in another process: stop it there (Ctrl-C in its terminal)",
				model.ShellJoin(rec.Argv), rec.Actor))
			return nil
		}
		m.note = errNote("nothing to stop: the cockpit stops the runs it started (v, /run)")
		return nil
	}
	j := m.jobs[len(m.jobs)-1]
	if sel := m.runList.Selected(); sel != "" {
		for _, c := range m.jobs {
			if c.current() == sel {
				j = c
			}
		}
	}
	body := []string{
		"Kills the command's whole process group; the run is kept as cancelled.",
	}
	if j.feature != "" {
		body = append(body, "Its evidence on "+j.feature+" is recorded as partial.")
	}
	m.openConfirmFunc("Stop "+j.label+"?", body, func() tea.Cmd {
		j.cancel()
		m.note = infoNote("stopping " + j.label + "…")
		return nil
	})
	return nil
}

// quit ends the program; runs the cockpit started are stopped first (their
// process groups killed) and given a moment to be recorded, so quitting never
// leaves a command running behind the person's back.
// A flow the cockpit executes stops the same way: its engine's context is
// cancelled, its command killed, and the run is left for the next start to
// show as interrupted.
// Quitting asks first when it would lose something: typed text not sent,
// or runs and flows started here.
func (m *Model) quit() tea.Cmd {
	if m.quitting {
		return nil
	}
	if _, asked := m.top().(*quitDialog); !asked {
		var why []string
		if m.unsent() {
			why = append(why, "A text field holds text you have not sent: it is lost.")
		}
		if n := len(m.jobs) + len(m.flowJobs); n > 0 {
			why = append(why, fmt.Sprintf("%d run(s) and flow(s) started here are stopped (process groups killed, kept as cancelled or interrupted).", n))
		}
		if len(why) > 0 {
			if m.mode == modeHelp {
				m.closeHelp() // the question must be seen to be answered
			}
			m.push(&quitDialog{why: why}, false)
			return nil
		}
	}
	return m.quitNow()
}

// quitNow ends the program, stopping what the cockpit started.
func (m *Model) quitNow() tea.Cmd {
	if len(m.jobs) == 0 && len(m.flowJobs) == 0 {
		return m.exit()
	}
	m.quitting = true
	switch {
	case len(m.flowJobs) == 0:
		m.note = infoNote(fmt.Sprintf("stopping %d run(s) before quitting…", len(m.jobs)))
	default:
		m.note = infoNote(fmt.Sprintf("stopping %d run(s) and %d flow(s) before quitting…", len(m.jobs), len(m.flowJobs)))
	}
	done := m.doneChans()
	m.stopAll()
	return func() tea.Msg {
		waitDone(done, quitWait)
		return exitMsg{}
	}
}

// exitMsg: what had to stop before quitting has stopped.
type exitMsg struct{}

// exit quits with a blank last frame. Bubble Tea draws one more frame on
// quit and leaves the alternate screen with the cursor on its bottom row;
// tmux, when the window grew meanwhile, then carries the alternate
// screen's rows onto the shell's screen (a replay of the cockpit's bytes
// shows it, and that a blank screen leaves nothing).
func (m *Model) exit() tea.Cmd {
	m.exiting = true
	return tea.Quit
}

// doneChans are the channels the cockpit's jobs and engine goroutines
// close when they return.
func (m *Model) doneChans() []chan struct{} {
	out := make([]chan struct{}, 0, len(m.jobs)+len(m.flowJobs))
	for _, j := range m.jobs {
		out = append(out, j.done)
	}
	for _, j := range m.flowJobs {
		out = append(out, j.done)
	}
	return out
}

func waitDone(done []chan struct{}, d time.Duration) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for _, c := range done {
		select {
		case <-c:
		case <-deadline.C:
			return
		}
	}
}

// shutdown stops whatever the cockpit still runs (commands, flows) and
// waits up to d for it to be recorded. Run calls it after the program ends
// however it ended (q, SIGTERM, a panic), since only q goes through quit.
func (m *Model) shutdown(d time.Duration) {
	done := m.doneChans()
	m.stopAll()
	waitDone(done, d)
}

// verifying reports whether a job of the cockpit verifies feature.
func (m *Model) verifying(feature string) bool {
	for _, j := range m.jobs {
		if j.feature == feature {
			return true
		}
	}
	return false
}
