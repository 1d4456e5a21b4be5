package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/model"
)

// stampMsg is one poll of the database file's fingerprint.
type stampMsg struct {
	stamp string
	err   error
}

// loadedMsg carries a fresh read of the store.
type loadedMsg struct {
	seq      int
	stamp    string
	sess     *model.Session
	sessions []model.SessionInfo
	runs     []model.RunRecord
	agents   []model.AgentEvent
	flows    flowLoad
	// trees are the trees the active features' code is at now, where
	// their evidence is pinned: what shows it stale.
	trees map[string]string
	// gone is the decision the open prompt answers, read when it is no
	// longer pending, so the prompt can say who resolved it.
	gone *model.Decision
	err  error
}

// forceEvery reloads even when the fingerprint did not move (a write within
// the file system's timestamp granularity that kept the size): 25 polls, ~5 s.
const forceEvery = 25

// pollCmd waits one poll interval and reads the fingerprint. Stamp is a stat,
// no lock, so polling five times a second costs nothing.
func (m *Model) pollCmd() tea.Cmd {
	p := m.p
	return m.tick(m.poll, func(time.Time) tea.Msg {
		s, err := p.Stamp()
		return stampMsg{s, err}
	})
}

// loadCmd reads the active session, the session list, the runs, the flow
// runs and the pending decisions. The fingerprint is
// taken first, so a write that lands during the read is seen by the next poll.
func (m *Model) loadCmd() tea.Cmd {
	m.loadSeq++
	m.loading = true
	seq, p, pin, prefer, prev := m.loadSeq, m.p, m.flowPin, m.promptFlowRun(), m.flowView
	watch := ""
	if d, ok := m.top().(*decisionDialog); ok {
		watch = d.f.d.ID
	}
	return func() tea.Msg {
		stamp, _ := p.Stamp()
		snap, err := p.Snapshot(runsShown) // one transaction for every list
		if err != nil {
			return loadedMsg{seq: seq, err: err}
		}
		cleanText(snap) // foreign text is made safe once, here
		fl := readFlows(p, snap, pin, prefer, prev)
		cleanText(fl.view)
		cleanText(fl.out)
		msg := loadedMsg{seq: seq, stamp: stamp, sess: snap.Active, sessions: snap.Sessions, runs: snap.Runs,
			agents: snap.Agents, flows: fl}
		if model.Pinned(snap.Active) {
			msg.trees, _ = p.CodeTrees(snap.Active) // a git failure shows nothing stale, as before pinning
		}
		if watch != "" && !pendingIn(snap.Decisions, watch) {
			msg.gone, _ = p.Decision(watch)
			cleanText(msg.gone)
		}
		return msg
	}
}

func pendingIn(ds []model.Decision, id string) bool {
	for _, d := range ds {
		if d.ID == id {
			return true
		}
	}
	return false
}

func (m *Model) onStamp(msg stampMsg) tea.Cmd {
	cmds := []tea.Cmd{m.pollCmd(), m.catchUp()}
	m.ticks++
	m.expireNote()
	changed := msg.err == nil && msg.stamp != m.stamp
	if (changed || m.ticks%forceEvery == 0) && !m.loading {
		cmds = append(cmds, m.loadCmd())
	}
	return tea.Batch(cmds...)
}

func (m *Model) onLoaded(msg loadedMsg) tea.Cmd {
	if msg.seq == m.loadSeq {
		m.loading = false
	}
	if msg.seq < m.minLoad {
		return nil // started before our own action finished: older than what we show
	}
	if msg.err != nil {
		m.note = errNote("reading the project: " + msg.err.Error())
		return nil
	}
	m.stamp = msg.stamp
	m.gone = msg.gone
	m.sessions = msg.sessions
	m.agents = msg.agents
	m.feats.SetTrees(msg.trees)
	// Flows first: what waits (setSession) includes their decisions.
	flowCmd := m.setFlows(msg.flows)
	return tea.Batch(flowCmd, m.setSession(msg.sess), m.setRuns(msg.runs), m.syncAgents())
}

// setSession swaps in a new session: panes, selection, detail, and whatever
// now waits for the person.
func (m *Model) setSession(s *model.Session) tea.Cmd {
	first := !m.loaded
	m.loaded = true
	m.sess = s
	m.feats.SetSession(s)
	m.graph.SetSession(s)
	m.autoSelect()
	m.syncSelection()
	return tea.Batch(m.refreshDetail(), m.updateWaits(first))
}

// defaultSelection picks what the person most likely wants to look at: the
// active feature, else the first that waits for review, is interrupted, is
// blocked or needs a fix, else the first runnable, else the first.
func defaultSelection(s *model.Session) string {
	if s == nil || s.Plan == nil || len(s.Plan.Features) == 0 {
		return ""
	}
	if a := s.Execution.ActiveFeature; a != "" && s.Plan.Feature(a) != nil {
		return a
	}
	for _, want := range []model.FeatureState{model.StateAwaitingReview, model.StateInterrupted, model.StateBlocked, model.StateNeedsFix, model.StateRunnable} {
		for i := range s.Plan.Features {
			if model.StateOf(s, &s.Plan.Features[i]) == want {
				return s.Plan.Features[i].ID
			}
		}
	}
	return s.Plan.Features[0].ID
}

// syncSelection shows m.sel in both the features list and the graph.
func (m *Model) syncSelection() {
	if m.sel != "" {
		m.feats.Select(m.sel)
		m.graph.Select(m.sel)
	}
}

// setSel changes the selected feature from a pane's move. From then on the
// selection stays where the person put it (esc gives it back to the
// cockpit, which follows the active or waiting feature).
func (m *Model) setSel(id string) tea.Cmd {
	if id == "" || id == m.sel {
		return nil
	}
	m.autoSel = false
	m.sel = id
	m.syncSelection()
	if m.doc == docFeature {
		return m.refreshDetail()
	}
	return nil
}
