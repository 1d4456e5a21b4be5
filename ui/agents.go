package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/project"
	"github.com/flowdeck/flowdeck/termtext"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
	agentspane "github.com/flowdeck/flowdeck/ui/panes/agents"
	"github.com/flowdeck/flowdeck/ui/panes/output"
)

// The crew: the agents pane's rows are derived after every load from what
// the cockpit loaded (claims, flow runs, decisions, runs); each agent's last
// output line is read in a command when its newest run grew.

// crewState is the root's part of the agents pane.
type crewState struct {
	pane *agentspane.Model
	// last is each run's last output line as read, with the size it was
	// read at; reading holds the runs whose read is in flight.
	last    map[string]lastLine
	reading map[string]bool
	// shown: the wide layout switched its slot to the agents once, when a
	// crew first appeared; after that the person decides.
	shown bool
	// ofWait is how the session bar names a wait (by key) that an agent
	// asks: what and whose.
	ofWait map[string]string
}

type lastLine struct {
	bytes int64
	line  string
}

// agentTailMsg is the last line of an agent's newest run, read when it
// was bytes long; err: the read failed (the line shown stays).
type agentTailMsg struct {
	run   string
	bytes int64
	line  string
	err   error
}

func newCrew(m *Model) crewState {
	p := agentspane.New(m.th, m.now)
	p.SetNote("no agents: flowdeck flows run auto --parallel N starts a crew; flow run start --agent NAME names one")
	return crewState{pane: p, last: map[string]lastLine{}, reading: map[string]bool{}, ofWait: map[string]string{}}
}

// crewOn reports whether there is a crew to show: two agents or more.
func (m *Model) crewOn() bool { return len(m.crew.pane.Rows()) > 1 }

// syncAgents derives the rows from the state just loaded and reads the last
// line of every agent run that grew.
func (m *Model) syncAgents() tea.Cmd {
	in := agentspane.Input{Session: m.sess, FlowRuns: m.flowRuns, Executing: m.flowExec, Decisions: m.decisions, Runs: m.allRuns}
	for _, a := range m.agents {
		if a.Event == "idle" {
			in.Idle = append(in.Idle, agentspane.IdleEvent{Agent: a.Agent, At: a.At})
		}
	}
	rows := agentspane.Derive(in)
	m.crew.ofWait = map[string]string{}
	var cmds []tea.Cmd
	for i := range rows {
		r := &rows[i]
		m.tieWaits(r)
		if r.Run == "" {
			continue
		}
		got, ok := m.crew.last[r.Run]
		r.Last = got.line
		if (!ok || r.RunBytes > got.bytes) && !m.crew.reading[r.Run] {
			m.crew.reading[r.Run] = true
			cmds = append(cmds, m.agentTailCmd(r.Run, r.RunBytes))
		}
	}
	m.crew.pane.Set(rows)
	m.pruneLast(rows)
	if !m.crew.shown && m.crewOn() {
		m.crew.shown = true
		if m.slot == layout.Output && m.focus != layout.Output {
			m.slot = layout.Agents
		}
	}
	return tea.Batch(cmds...)
}

// tieWaits remembers which waits are r's: its decision, its feature's review.
func (m *Model) tieWaits(r *agentspane.Agent) {
	if r.Name == "" {
		return
	}
	for _, w := range m.waits {
		switch {
		case w.Kind == waitDecision && w.Decision.ID == r.Decision && r.State == agentspane.WaitingReview:
			m.crew.ofWait[w.Key] = m.reviewName(r.Feature) + " (" + r.Name + ")"
		case w.Kind == waitDecision && w.Decision.ID == r.Decision:
			m.crew.ofWait[w.Key] = "decision " + r.Feature + " (" + r.Name + ")"
		case w.Kind == waitReview && r.Feature != "" && w.Feature == r.Feature && r.State == agentspane.WaitingReview:
			m.crew.ofWait[w.Key] = w.String() + " (" + r.Name + ")"
		}
	}
}

// waitName is a wait as the session bar lists it: an agent's with its
// feature and name.
func (m *Model) waitName(w wait) string {
	if s := m.crew.ofWait[w.Key]; s != "" {
		return s
	}
	return m.waitLabel(w)
}

// agentTailCmd reads the end of run id, bytes long as the load listed it,
// and keeps its last line.
func (m *Model) agentTailCmd(id string, bytes int64) tea.Cmd {
	p := m.p
	return func() tea.Msg {
		lines, _, err := readTail(p, id, bytes)
		return agentTailMsg{run: id, bytes: bytes, line: layout.Cut(liveLine(lines), 400), err: err}
	}
}

// liveLine is the newest line that says something, outside a fenced block
// (an agent's JSON answer, a quoted file): fences, what they hold and lone
// brackets are markup, not news. Only markup: its newest text line.
func liveLine(lines []string) string {
	fenced, fallback := false, ""
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "```") && !strings.Contains(l[3:], "`") || strings.HasPrefix(l, "~~~") {
			fenced = !fenced
			continue
		}
		if l == "" || strings.Trim(l, "{}[],") == "" {
			continue
		}
		if !fenced {
			return l
		}
		if fallback == "" {
			fallback = l
		}
	}
	return fallback
}

// outputTail is how much of a run's end is read for its last lines.
const outputTail = 8 << 10

// readTail reads the end of run id's output and returns its lines
// (outputLines) and the size it read to. size is the output's size when the
// caller knows it (a load listed the run), which spares reading the run's
// record; < 0 reads it.
func readTail(p *project.Project, id string, size int64) ([]string, int64, error) {
	if size < 0 {
		rec, err := p.RunRecord(id)
		if err != nil {
			return nil, 0, fmt.Errorf("reading run %s: %w", id, err)
		}
		if rec == nil {
			return nil, 0, fmt.Errorf("no run %s", id)
		}
		size = rec.Bytes
	}
	from := max(0, size-outputTail)
	data, _, err := p.ReadOutput(id, from, outputTail)
	if err != nil {
		return nil, size, fmt.Errorf("reading the output of run %s: %w", id, err)
	}
	return outputLines(data, from > 0), size, nil
}

// outputLines are the non-blank lines of data as a person would see them,
// made safe and one line each (the output is an agent's: hostile), tabs as
// two spaces. cut: data starts mid-line, so its first line is dropped.
func outputLines(data []byte, cut bool) []string {
	var p output.Parser
	lines := p.Feed(data)
	if l, ok := p.Flush(); ok {
		lines = append(lines, l)
	}
	if cut && len(lines) > 0 {
		lines = lines[1:]
	}
	var out []string
	for _, l := range lines {
		if t := termtext.Line(strings.ReplaceAll(l.Plain, "\t", "  ")); strings.TrimSpace(t) != "" {
			out = append(out, t)
		}
	}
	return out
}

func (m *Model) onAgentTail(msg agentTailMsg) {
	delete(m.crew.reading, msg.run)
	if msg.err != nil {
		// Keep the line shown; the next growth of the run reads again.
		msg.line = m.crew.last[msg.run].line
	}
	m.crew.last[msg.run] = lastLine{bytes: msg.bytes, line: msg.line}
	m.crew.pane.SetLast(msg.run, msg.line)
}

// selectedAgent is the agent under the pane's cursor; none says so.
func (m *Model) selectedAgent() (*agentspane.Agent, bool) {
	a := m.crew.pane.Selected()
	if a == nil {
		m.note = infoNote("no agent selected")
		return nil, false
	}
	return a, true
}

// agentAction runs a key of the agents pane; false: not one of its own.
func (m *Model) agentAction(a keys.Action) (tea.Cmd, bool) {
	switch a {
	case keys.Open:
		return m.showAgent(), true
	case keys.PauseFlow:
		return m.pauseAgent(), true
	case keys.ResumeFlow:
		return m.resumeAgent(), true
	case keys.CancelFlow:
		return m.stopAgent(), true
	case keys.Reassign:
		return m.startReassign(), true
	}
	return nil, false
}

// showAgent shows the agent's live output: its flow run in the flow pane
// (steps, prompt, the command running now), else its newest run in the
// output pane.
func (m *Model) showAgent() tea.Cmd {
	ag, ok := m.selectedAgent()
	if !ok {
		return nil
	}
	if ag.FlowRun != "" {
		m.flowPin = ag.FlowRun
		m.focusPane(layout.Flow)
		m.minLoad = m.loadSeq + 1
		return m.loadCmd()
	}
	if ag.Run != "" && m.runList.Select(ag.Run) {
		m.focusPane(layout.Output)
		if !m.output.Following() {
			m.output.ToggleFollow()
		}
		return m.syncOutput()
	}
	m.note = infoNote(agentLabel(ag) + " has no output yet")
	return nil
}

func agentLabel(a *agentspane.Agent) string {
	if a.Name == "" {
		return "the unnamed agent on " + a.Feature
	}
	return "agent " + a.Name
}

// selectedAgentFlow is the selected agent's flow run as loaded, or a note
// saying there is none.
func (m *Model) selectedAgentFlow() (*model.FlowRun, bool) {
	ag, ok := m.selectedAgent()
	if !ok {
		return nil, false
	}
	for i := range m.flowRuns {
		if m.flowRuns[i].ID == ag.FlowRun {
			return &m.flowRuns[i], true
		}
	}
	m.note = errNote(agentLabel(ag) + " runs no flow: nothing to pause or stop (" + m.keyName(keys.Reassign) + " reassigns its feature)")
	return nil, false
}

// agentFlowRefused notes why key a does nothing to the agent's flow run r,
// by the flow pane's rules (flowRefusal); true when it does nothing.
func (m *Model) agentFlowRefused(a keys.Action, r *model.FlowRun) bool {
	exec := m.flowExec[r.ID]
	n, no := m.flowRefusal(a, r.ID, model.FlowStateOf(r, exec), exec)
	if no {
		m.note = n
	}
	return no
}

// pauseAgent asks the process executing the agent's flow run to stop after
// its current step.
func (m *Model) pauseAgent() tea.Cmd {
	r, ok := m.selectedAgentFlow()
	if !ok || m.agentFlowRefused(keys.PauseFlow, r) {
		return nil
	}
	id := r.ID
	return m.flowAct("pause "+id, func(p *project.Project) (*model.FlowRun, error) {
		return p.PauseFlowRun(id)
	})
}

// resumeAgent resumes the agent's flow run here when no process executes
// it: paused, or interrupted (its crew scheduler died).
func (m *Model) resumeAgent() tea.Cmd {
	r, ok := m.selectedAgentFlow()
	if !ok || m.agentFlowRefused(keys.ResumeFlow, r) {
		return nil
	}
	return m.resumeFlow(r.ID)
}

// stopAgent asks before cancelling the agent's flow run.
func (m *Model) stopAgent() tea.Cmd {
	r, ok := m.selectedAgentFlow()
	if !ok || m.agentFlowRefused(keys.CancelFlow, r) {
		return nil
	}
	ag, _ := m.selectedAgent()
	id := r.ID
	body := []string{"Cancels its flow run " + id + ": its current command stops (whichever process runs it)."}
	if ag.Feature != "" && ag.State != agentspane.Idle {
		body = append(body, "The feature "+ag.Feature+" stays claimed: "+m.keyName(keys.Reassign)+" gives it to another agent, "+m.keyName(keys.Reset)+" on it resets it.")
	}
	if ag.Decision != "" {
		body = append(body, "Its pending decision "+ag.Decision+" is cancelled too.")
	}
	m.openConfirmFunc("Stop "+agentLabel(ag)+"?", body, func() tea.Cmd {
		return m.flowAct("stop "+id, func(p *project.Project) (*model.FlowRun, error) {
			return p.CancelFlowRun(id)
		})
	})
	return nil
}

// agentsKeyMap: enter shows the agent's output; pause, resume, stop (its
// flow run) and reassign (its feature).
func (m *Model) agentsKeyMap() keyMap {
	acts := []keys.Action{keys.Open, keys.PauseFlow, keys.ResumeFlow, keys.CancelFlow, keys.Reassign}
	k := m.keyMapOf(append([]keys.Action{keys.NextPane}, acts...), moveKeys, acts)
	k.desc = map[keys.Action]string{keys.Open: "live output", keys.PauseFlow: "pause agent", keys.ResumeFlow: "resume agent",
		keys.CancelFlow: "stop agent", keys.Reassign: "reassign"}
	return k
}

// agentOf is " (NAME)" for a feature an agent claimed, for a dialog's
// title when several agents' prompts queue; "" otherwise.
func (m *Model) agentOf(feature string) string {
	if !m.crewOn() || m.sess == nil || m.sess.Plan == nil {
		return ""
	}
	if f := m.sess.Plan.Feature(feature); f != nil && f.Agent != "" && f.Status == model.FeatureInProgress {
		return " (" + f.Agent + ")"
	}
	return ""
}

// askedBy is " · review api (worker-2)" for a decision an agent's flow run
// asks, for the prompt's title; "" otherwise.
func (m *Model) askedBy(decision string) string {
	if s := m.crew.ofWait[decisionWaitKey(decision)]; s != "" {
		return " · " + s
	}
	return ""
}

// pruneLast forgets the last lines of runs no agent shows any more.
func (m *Model) pruneLast(rows []agentspane.Agent) {
	keep := make(map[string]bool, len(rows))
	for _, r := range rows {
		keep[r.Run] = true
	}
	for id := range m.crew.last {
		if !keep[id] && !m.crew.reading[id] {
			delete(m.crew.last, id)
		}
	}
}
