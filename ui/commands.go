package ui

import (
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/render"
	"github.com/flowdeck/flowdeck/ui/cmdline"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// commandKey edits the command line; enter runs it.
func (m *Model) commandKey(k tea.KeyPressMsg) tea.Cmd {
	switch a, _ := m.textAction(k, keys.Quit, keys.Help); a {
	case keys.Quit:
		return m.quit()
	case keys.Help:
		m.openHelp(modeCommand)
		return nil
	}
	line, res, cmd := m.cmdline.HandleKey(k, cmdline.Pools{Features: m.feats.IDs(), Sessions: m.sessionIDs(),
		Flows: m.flowNames, FlowRuns: m.flowRunIDs()})
	switch res {
	case cmdline.Cancelled:
		m.mode = modeNormal
		m.cmdline.Close()
	case cmdline.Submitted:
		c, err := cmdline.Parse(line)
		if err != nil {
			// Stay open so the person can fix the line.
			m.cmdline.SetValue(line)
			m.cmdline.SetError(err.Error())
			return nil
		}
		run, err := m.runCommand(c)
		if err != nil {
			m.cmdline.SetValue(line)
			m.cmdline.SetError(err.Error())
			return nil
		}
		m.mode = modeNormal
		m.cmdline.Close()
		return run
	}
	return cmd
}

type usageError string

func (e usageError) Error() string { return string(e) }

func usage(name string) error { return usageError("usage: " + cmdline.UsageOf(name)) }

// runCommand turns a typed /flow-* command into an action (or a view).
// /flow-plan, /flow-run, /flow-auto and /flow start literate flows, which
// the cockpit executes (flows.go).
func (m *Model) runCommand(c cmdline.Command) (tea.Cmd, error) {
	switch c.Name {
	case "/quit":
		m.mode = modeNormal // the line is sent: nothing typed is lost
		return m.quit(), nil
	case "/flow-plan":
		if c.Rest == "" && m.sess != nil && !m.plannerAgent() {
			return m.editPlanCmd(), nil // nobody but the person writes the plan: in their editor
		}
		if c.Rest == "" {
			return nil, usage(c.Name)
		}
		cmd := m.startFlow("plan", []string{c.Rest})
		if !m.plannerAgent() {
			m.planInEditor = m.flowJobs[len(m.flowJobs)-1] // its form's plan: in the editor too
		}
		return cmd, nil
	case "/flow-run":
		if len(c.Args) > 1 {
			return nil, usage(c.Name)
		}
		if err := m.canRun(c.Args); err != nil {
			return nil, err
		}
		return m.startFlow("run", c.Args), nil
	case "/flow-auto":
		agents, err := crewSize(c.Args)
		if err != nil {
			return nil, err
		}
		if m.sess == nil {
			// The auto flow would stop and ask; it never invents a goal.
			return nil, usageError("/flow-auto needs a goal: there is no active session · /flow-plan GOAL plans one first")
		}
		if m.sess.Status == model.StatusCompleted {
			return nil, usageError("/flow-auto needs a goal: the session is completed · /flow-plan GOAL plans the next one")
		}
		if agents > 1 {
			return m.startCrew(agents), nil
		}
		return m.startFlow("auto", nil), nil
	case "/flow":
		if len(c.Args) == 0 {
			return nil, usage(c.Name)
		}
		args, ok := splitWords(c.Rest)
		if !ok {
			args = c.Args
		}
		return m.startFlow(args[0], args[1:]), nil
	case "/flow-show":
		switch len(c.Args) {
		case 0:
			m.flowPin = ""
			m.note = infoNote("the flow pane shows the newest flow run that has not ended")
		case 1:
			if !slices.Contains(m.flowRunIDs(), c.Args[0]) {
				return nil, usageError("no flow run " + c.Args[0] + " (tab completes the ids)")
			}
			m.flowPin = c.Args[0]
		default:
			return nil, usage(c.Name)
		}
		m.focusPane(layout.Flow)
		m.minLoad = m.loadSeq + 1
		return m.loadCmd(), nil
	case "/run":
		argv := argvOf(c.Rest)
		if len(argv) == 0 {
			return nil, usage(c.Name)
		}
		return m.startJob(c.Rest, "", "", [][]string{argv}), nil
	}
	return m.sessionCommand(c)
}

// sessionCommand runs the commands that act on the session or show it.
func (m *Model) sessionCommand(c cmdline.Command) (tea.Cmd, error) {
	switch c.Name {
	case "/flow-status":
		m.doc = docIndex
		m.focusPane(layout.Detail)
		m.note = infoNote("status: " + m.statusLine())
		return m.refreshDetail(), nil
	case "/flow-history":
		m.doc = docHistory
		m.focusPane(layout.Detail)
		return m.refreshDetail(), nil
	case "/flow-session":
		if len(c.Args) != 1 {
			return nil, usage(c.Name)
		}
		return m.do("activate "+c.Args[0], model.ActivateSession{ID: c.Args[0]}), nil
	case "/flow-reset":
		switch {
		case len(c.Args) == 2 && c.Args[0] == "feature":
			if m.sess == nil || m.sess.Plan == nil || m.sess.Plan.Feature(c.Args[1]) == nil {
				// Let the model refuse it: the refusal names the valid ids.
				return m.do("reset "+c.Args[1], model.ResetFeature{Feature: c.Args[1]}), nil
			}
			m.sel, m.autoSel = c.Args[1], false
			m.syncSelection()
			return m.startReset(), nil
		case len(c.Args) == 1 && c.Args[0] == "session":
			return m.startResetSession(), nil
		}
		return nil, usage(c.Name)
	case "/flow-approve":
		if !m.planWaits() {
			return nil, usageError("no plan waits for approval")
		}
		return m.startApprovePlan(), nil
	case "/flow-apply":
		if c.Rest == "" {
			return nil, usage(c.Name)
		}
		return m.applyPlanFile(c.Rest), nil
	case "/flow-complete":
		return m.completeCommand(c)
	case "/flow-validate":
		return m.validateCommand(c)
	case "/flow-review":
		return m.reviewCommand(c)
	case "/flow-note":
		if c.Rest == "" {
			return nil, usage(c.Name)
		}
		return m.do("note", model.AddNote{Text: c.Rest}), nil
	}
	return nil, usage(c.Name)
}

func (m *Model) sessionIDs() []string {
	out := make([]string, len(m.sessions))
	for i, s := range m.sessions {
		out[i] = s.ID
	}
	return out
}

// statusLine is /flow-status in one line.
func (m *Model) statusLine() string {
	s := m.sess
	if s == nil {
		return "no active session · next: " + model.NextCommand(nil)
	}
	return model.StatusText(s) + " · " + render.ProgressText(s.Plan) + " · next: " + model.NextCommand(s)
}
