package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/project"
	"github.com/flowdeck/flowdeck/ui/keys"
	agentspane "github.com/flowdeck/flowdeck/ui/panes/agents"
)

// Reassigning a feature: there is no model action that moves a claim, so
// the cockpit stops the agent's flow run, resets the feature (and, as every
// reset does, what is downstream of it: nothing there can have started) and
// claims it for the agent the person names. Nothing runs that agent by
// itself: a crew scheduler adopts claims only when it starts, so the dialog
// says how to set one to work on it.

// reassignDialog asks for the agent to give a feature to.
type reassignDialog struct {
	dialogBase
	from, feature, flowRun string
	flowLive               bool
	input                  textinput.Model
	err                    string
}

func (d *reassignDialog) ID() string   { return "reassign" }
func (d *reassignDialog) Typing() bool { return true }
func (d *reassignDialog) Unsent() bool { return strings.TrimSpace(d.input.Value()) != "" }

func (d *reassignDialog) Title(*Model) string {
	return "Reassign " + d.feature + " from " + nameOr(d.from, "(unnamed)")
}

func (d *reassignDialog) Body(m *Model) []string {
	var out []string
	if d.err != "" {
		out = append(out, m.th.Err.Render(d.err))
	}
	what := "Resets " + d.feature + " (its evidence and reviews no longer count) and claims it for the agent you name."
	if d.flowLive {
		what = "Stops flow run " + d.flowRun + ", then r" + strings.TrimPrefix(what, "R")
	}
	return append(out, m.th.Dim.Render(what),
		m.th.Dim.Render("No process works on the new claim by itself: flowdeck flows run run "+d.feature+" --var agent_name=NAME does, or a crew started later (its agents are worker-N)."),
		d.input.View())
}

func (d *reassignDialog) KeyMap(m *Model) keyMap {
	k := m.keyMapOf([]keys.Action{keys.Open, keys.Back})
	k.desc = map[keys.Action]string{keys.Open: "reassign", keys.Back: "cancel"}
	return k
}

func (d *reassignDialog) HandleKey(m *Model, k tea.KeyPressMsg) (tea.Cmd, bool) {
	if !printable(k) {
		if a, ok := m.keys.Which(k, keys.Open, keys.Back); ok {
			if a == keys.Back {
				m.drop(d.ID())
				m.note = infoNote("reassign cancelled")
				return nil, true
			}
			to := strings.TrimSpace(d.input.Value())
			switch {
			case !model.ValidAgentName(to):
				d.err = "an agent's name is letters, digits, '.', '_' and '-' (at most 64)"
				return nil, true
			case to == d.from:
				d.err = d.feature + " is " + to + "'s already"
				return nil, true
			}
			m.drop(d.ID())
			return m.reassignCmd(d, to), true
		}
		if m.keys.Matches(k, keys.Quit) || m.keys.Matches(k, keys.Help) {
			return nil, false
		}
	}
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(k)
	return cmd, true
}

func (d *reassignDialog) paste(msg tea.PasteMsg) tea.Cmd {
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(msg)
	return cmd
}

func nameOr(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// startReassign opens the reassign dialog for the selected agent's feature.
func (m *Model) startReassign() tea.Cmd {
	ag, ok := m.selectedAgent()
	if !ok {
		return nil
	}
	if ag.Feature == "" || ag.State == agentspane.Idle || m.sess == nil || m.sess.Plan == nil {
		m.note = errNote(agentLabel(ag) + " holds no feature to reassign")
		return nil
	}
	if f := m.sess.Plan.Feature(ag.Feature); f == nil || f.Status != model.FeatureInProgress {
		m.note = errNote(ag.Feature + " is not in progress: only a claimed feature is reassigned (" + m.keyName(keys.Pane1) + " and " + m.keyName(keys.Start) + " start one)")
		return nil
	}
	d := &reassignDialog{dialogBase: dialogBase{seq: m.sessSeq()}, from: ag.Name, feature: ag.Feature, flowRun: ag.FlowRun}
	for _, r := range m.flowRuns {
		if r.ID == ag.FlowRun && !model.FlowEnded(r.Status) {
			d.flowLive = true
		}
	}
	d.input = m.newInput("to agent: ", "the agent's name, e.g. worker-2")
	m.push(d, false)
	return d.input.Focus()
}

// reassignCmd stops the flow run, resets the feature as of the session the
// dialog was drawn from and claims it for to. The reset's staleness is
// asked before anything stops, so a stale decision changes nothing (the
// agent keeps its run and its claim); the run stops before the reset, which
// removes the feature's worktree the agent works in.
func (m *Model) reassignCmd(d *reassignDialog, to string) tea.Cmd {
	p := m.p
	label := "reassign " + d.feature + " to " + to
	m.note = infoNote(label + "…")
	reset := model.ResetFeature{Feature: d.feature}
	return func() tea.Msg {
		if err := staleFor(p, reset, d.seq); err != nil {
			return actionMsg{label: label, err: err}
		}
		if d.flowLive {
			if _, err := p.CancelFlowRun(d.flowRun); err != nil {
				return actionMsg{label: label, err: err}
			}
		}
		if out, err := storeAction(p, reset, d.seq); err != nil {
			return actionMsg{label: label, out: out, err: err}
		}
		out, err := storeAction(p, model.RunStart{Feature: d.feature, Agent: to}, 0)
		return actionMsg{label: label, out: out, err: err}
	}
}

// staleFor is the store's stale_decision refusal of a as of seen (the
// session sequence a dialog was drawn from), read without storing a: for
// an action that must not begin its side effects on a stale decision.
func staleFor(p *project.Project, a model.Action, seen uint64) error {
	s, err := p.Active()
	if err != nil {
		return fmt.Errorf("reading the session: %w", err)
	}
	if s == nil || seen == 0 || s.Seq <= seen {
		return nil
	}
	res, err := p.History(s.ID)
	if err != nil {
		return fmt.Errorf("reading the session's events: %w", err)
	}
	if h, ok := res.(*ops.HistoryResult); ok {
		if e := model.Stale(a, seen, h.Events); e != nil {
			return e
		}
	}
	return nil
}
