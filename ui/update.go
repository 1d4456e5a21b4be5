package ui

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/panes/output"
	"github.com/flowdeck/flowdeck/ui/styles"
)

// Init starts the first load, the poll loop, the recovery of flow runs
// whose process is gone, and, for theme = auto, asks the terminal for its
// background (the answer arrives as a message; the first frame does not
// wait for it).
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.loadCmd(), m.pollCmd(), m.recoverCmd(), m.flowNamesCmd()}
	if m.cfg.Theme == "auto" && m.color {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	return tea.Batch(cmds...)
}

// Update routes a message. It changes state and returns commands; it never
// touches the store or the terminal itself.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case tea.BackgroundColorMsg:
		if m.cfg.Theme == "auto" && m.color {
			m.setTheme(msg.IsDark())
		}
	case stampMsg:
		cmd = m.onStamp(msg)
	case loadedMsg:
		cmd = m.onLoaded(msg)
	case renderedMsg:
		m.onRendered(msg)
	case actionMsg:
		cmd = m.onAction(msg)
	case outputMsg:
		cmd = m.onOutput(msg)
	case screenMsg:
		cmd = m.onScreen(msg)
	case jobMsg:
		cmd = m.onJob(msg)
	case tailMsg:
		m.onTail(msg)
	case landPreviewMsg:
		m.onLandPreview(msg)
	case landMsg:
		cmd = m.onLand(msg)
	case changeMsg:
		cmd = m.onChange(msg)
	case highlightMsg:
		cmd = m.onHighlight(msg)
	case noteMsg:
		m.note = msg.note
	case recallMsg:
		cmd = m.onRecall(msg)
	case flowDoneMsg:
		cmd = m.onFlowDone(msg)
	case flowActMsg:
		cmd = m.onFlowAct(msg)
	case decidedMsg:
		cmd = m.onDecided(msg)
	case editMsg:
		cmd = m.onEdit(msg)
	case recoveredMsg:
		cmd = m.onRecovered(msg)
	case agentTailMsg:
		m.onAgentTail(msg)
	case flowNamesMsg:
		m.flowNames = msg.names
	case exitMsg:
		cmd = m.exit()
	case tea.KeyPressMsg:
		cmd = m.onKey(msg)
	case tea.PasteMsg:
		cmd = m.onPaste(msg)
	case tea.MouseClickMsg:
		cmd = m.onClick(msg.Mouse())
	case tea.MouseWheelMsg:
		cmd = m.onWheel(msg.Mouse())
	}
	m.stampNote()
	return m, tea.Batch(cmd, m.relayout())
}

// setStyles sets the styles the root draws with, the help's among them.
func (m *Model) setStyles(th *styles.Styles) {
	m.th = th
	m.help = help.New()
	m.help.Styles = th.Help
	m.help.ShortSeparator = " · "
	// A cut hint bar ends where the last whole hint does; ? lists them all.
	m.help.Ellipsis = ""
	m.help.Styles.Ellipsis = lipgloss.NewStyle()
}

// styleInputs gives the root's text fields the current styles.
func (m *Model) styleInputs() {
	st := m.th.Input()
	m.filter.SetStyles(st)
	m.search.SetStyles(st)
	m.cmdline.SetInputStyles(st)
}

func (m *Model) setTheme(dark bool) {
	m.setStyles(styles.New(dark, m.color))
	m.styleInputs()
	for p := layout.Pane(0); p < layout.NumPanes; p++ {
		m.pane(p).SetStyles(m.th)
	}
	for _, d := range m.dialogs {
		switch d := d.(type) {
		case *reviewDialog:
			if d.change != nil {
				d.change.view.SetStyles(m.th)
			}
		case *changeDialog:
			d.change.view.SetStyles(m.th)
		}
	}
	// Paints are baked into the rows; rebuild them.
	m.feats.SetSession(m.sess)
	m.graph.SetSession(m.sess)
	m.syncSelection()
}

// onKey dispatches a key press: to the help (it opens over anything), the
// focused dialog, the text being typed, or the focused pane's key map, in
// that order.
func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	return tea.Batch(m.keyPressed(), m.routeKey(k))
}

func (m *Model) routeKey(k tea.KeyPressMsg) tea.Cmd {
	if m.mode == modeHelp {
		return m.helpKey(k)
	}
	if d := m.top(); d != nil && !m.docked {
		return m.dialogKey(d, k)
	}
	if !m.typing() {
		return m.modeKey(k)
	}
	// A dialog that waited while the person typed shows once they stop,
	// docked: the keys they type next are still for the pane they chose.
	cmd := m.modeKey(k)
	if !m.typing() && m.top() == nil {
		cmd = tea.Batch(cmd, m.openWaiting())
		if d := m.top(); d != nil {
			m.docked, d.base().until = true, time.Time{}
		}
	}
	return cmd
}

// typing reports whether keys go into a text field (command line, filter,
// search, recall query).
func (m *Model) typing() bool {
	switch m.mode {
	case modeCommand, modeFilter, modeSearch, modeRecall:
		return true
	case modeHelp:
		return m.hlp.typing
	}
	return false
}

func (m *Model) modeKey(k tea.KeyPressMsg) tea.Cmd {
	switch m.mode {
	case modeCommand:
		return m.commandKey(k)
	case modeFilter:
		return m.filterKey(k)
	case modeHelp:
		return m.helpKey(k)
	case modeRecall:
		return m.recallKey(k)
	case modeSearch:
		return m.searchKey(k)
	}
	return m.normalKey(k)
}

// normalKey: every binding of the key map, resolved in one place.
func (m *Model) normalKey(k tea.KeyPressMsg) tea.Cmd {
	a, ok := m.keys.Which(k, append(m.paneKeyMap(m.focus).actions(), globalKeys...)...)
	if !ok {
		return nil
	}
	switch a {
	case keys.FocusDialog:
		m.focusDialog()
	case keys.ShowAll:
		m.toggleInternal()
		return m.syncOutput()
	case keys.Quit:
		return m.quit()
	case keys.Help:
		m.openHelp(modeNormal)
	case keys.Command:
		m.mode = modeCommand
		return tea.Batch(m.cmdline.Open(), m.flowNamesCmd())
	case keys.Filter:
		if m.focus == layout.Features || m.focus == layout.DAG {
			m.focusPane(layout.Features)
			m.mode = modeFilter
			m.filter.SetValue(m.feats.Filter())
			m.filter.CursorEnd()
			return m.filter.Focus()
		}
		m.focusPane(layout.Output)
		m.mode = modeSearch
		m.search.SetValue(m.output.Query())
		m.search.CursorEnd()
		return m.search.Focus()
	case keys.Recall:
		m.focusPane(layout.Recall)
	case keys.Land:
		return m.startLand() // ui/land.go
	case keys.ShowDiff:
		return m.openChange(m.sel, false) // ui/change.go
	case keys.Mouse:
		m.mouse = !m.mouse
		if m.mouse {
			m.note = infoNote("mouse on: wheel scrolls, click focuses (" + m.keys.Get(keys.Mouse).Help().Key + " turns it off to select text)")
		} else {
			m.note = infoNote("mouse off: the terminal selects text again")
		}
	case keys.NextPane:
		m.focusPane((m.focus + 1) % layout.NumPanes)
	case keys.PrevPane:
		m.focusPane((m.focus + layout.NumPanes - 1) % layout.NumPanes)
	case keys.Pane1, keys.Pane2, keys.Pane3, keys.Pane4, keys.Pane5, keys.Pane6, keys.Pane7, keys.Pane8:
		m.focusPane(paneOf(a))
	case keys.Up, keys.Down, keys.Top, keys.Bottom, keys.PageDown, keys.PageUp:
		return m.move(a)
	case keys.Open:
		switch m.focus {
		case layout.Features, layout.DAG:
			m.doc = docFeature
			m.focusPane(layout.Detail)
			return m.refreshDetail()
		case layout.Runs:
			m.focusPane(layout.Output)
		case layout.Recall:
			return m.openHit()
		case layout.Flow:
			return m.openDecisionFromPane()
		}
	case keys.Back:
		return m.back()
	}
	if m.focus == layout.Agents {
		if cmd, ok := m.agentAction(a); ok {
			return cmd
		}
	}
	return m.paneAction(a)
}

// paneAction runs an action that belongs to a pane (features, flow, output).
func (m *Model) paneAction(a keys.Action) tea.Cmd {
	switch a {
	case keys.Start, keys.Verify, keys.Approve, keys.NeedsFix, keys.Block, keys.Reset, keys.ResetSession, keys.ApprovePlan, keys.Complete1:
		return m.featureKey(a)
	case keys.Kill:
		return m.startStop()
	case keys.PauseFlow:
		return m.pauseFlow()
	case keys.ResumeFlow:
		return m.resumeShownFlow()
	case keys.CancelFlow:
		return m.cancelFlow()
	case keys.Follow:
		if m.focusedOutput().ToggleFollow() {
			m.note = infoNote("follow on: the output sticks to the end")
		} else {
			m.note = infoNote("follow off")
		}
	case keys.Wrap:
		if m.focusedOutput().ToggleWrap() {
			m.note = infoNote("wrap on")
		} else {
			m.note = infoNote("wrap off")
		}
	case keys.SearchNext, keys.SearchPrev:
		if m.output.Query() == "" {
			m.note = infoNote("no search yet: / in the output pane searches")
			return nil
		}
		dir := 1
		if a == keys.SearchPrev {
			dir = -1
		}
		i, n := m.output.Next(dir)
		m.note = infoNote(fmt.Sprintf("match %d of %d for %q", i, n, m.output.Query()))
	}
	return nil
}

func paneOf(a keys.Action) layout.Pane {
	switch a {
	case keys.Pane2:
		return layout.DAG
	case keys.Pane3:
		return layout.Detail
	case keys.Pane4:
		return layout.Runs
	case keys.Pane5:
		return layout.Output
	case keys.Pane6:
		return layout.Recall
	case keys.Pane7:
		return layout.Flow
	case keys.Pane8:
		return layout.Agents
	}
	return layout.Features
}

// focusedOutput is the output f and w act on: the flow pane's when it has
// the focus, else the output pane's.
func (m *Model) focusedOutput() *output.Model {
	if m.focus == layout.Flow {
		return m.flowFeed.view
	}
	return m.output
}

// focusPane focuses p and makes sure it is on screen: in the stacked layout
// it becomes the lower pane; output and recall share a slot when wide.
func (m *Model) focusPane(p layout.Pane) {
	if p == layout.Recall && m.focus != layout.Recall {
		m.recallFrom = m.focus
	}
	m.focus = p
	// The recall pane is a text field: while it has the focus every
	// printable key goes to its query.
	switch {
	case p == layout.Recall && m.mode == modeNormal:
		m.mode = modeRecall
		m.recall.Edit()
	case p != layout.Recall && m.mode == modeRecall:
		m.mode = modeNormal
		m.recall.StopEditing()
	}
	if p != layout.Features {
		m.lower = p
	}
	if p == layout.Output || p == layout.Recall || p == layout.Flow || p == layout.Agents {
		m.slot = p
	}
}

// move sends a movement to the focused pane.
func (m *Model) move(a keys.Action) tea.Cmd {
	p := m.pane(m.focus)
	switch a {
	case keys.Up:
		p.Move(-1)
	case keys.Down:
		p.Move(1)
	case keys.Top:
		p.Top()
	case keys.Bottom:
		p.Bottom()
	case keys.PageDown:
		p.Page(1)
	case keys.PageUp:
		p.Page(-1)
	}
	switch m.focus {
	case layout.Features:
		return m.setSel(m.feats.Selected())
	case layout.DAG:
		return m.setSel(m.graph.Selected())
	case layout.Runs:
		return m.syncOutput()
	}
	return nil
}

// back is esc: close what is open, step back one level.
func (m *Model) back() tea.Cmd {
	switch {
	case m.note.kind == noteErr:
		m.note = note{}
	case m.focus == layout.Features && m.feats.Filter() != "":
		m.feats.SetFilter("")
	case m.focus == layout.Detail && m.doc != docIndex:
		m.doc = docIndex
		return m.refreshDetail()
	case m.focus == layout.Detail:
		m.doc = docFeature
		return m.refreshDetail()
	case (m.focus == layout.Features || m.focus == layout.DAG) && !m.autoSel && m.sess != nil:
		m.autoSel = true
		m.sel = defaultSelection(m.sess)
		m.syncSelection()
		m.note = infoNote("the selection follows the active feature again")
		return m.refreshDetail()
	default:
		m.note = note{}
	}
	return nil
}

// pane is what every pane answers to: movement, size, theme, footer.
type pane interface {
	Move(int)
	Page(int)
	Top()
	Bottom()
	Scroll(int)
	SetStyles(*styles.Styles)
	SetSize(w, h int)
	Footer() string
}

func (m *Model) pane(p layout.Pane) pane { return m.panes[p] }

// textAction is the bound action of a key in a text field, among acts:
// printable keys never act there, they are text.
func (m *Model) textAction(k tea.KeyPressMsg, acts ...keys.Action) (keys.Action, bool) {
	if printable(k) {
		return "", false
	}
	return m.keys.Which(k, acts...)
}

// filterKey edits the features filter; it applies on every keystroke.
func (m *Model) filterKey(k tea.KeyPressMsg) tea.Cmd {
	a, _ := m.textAction(k, keys.Open, keys.Back, keys.Up, keys.Down, keys.Quit, keys.Help)
	switch a {
	case keys.Open:
		m.mode = modeNormal
		m.filter.Blur()
		return m.setSel(m.feats.Selected())
	case keys.Back:
		m.mode = modeNormal
		m.filter.Blur()
		m.feats.SetFilter("")
		return nil
	case keys.Up, keys.Down:
		d := 1
		if a == keys.Up {
			d = -1
		}
		m.feats.Move(d)
		return m.setSel(m.feats.Selected())
	case keys.Quit:
		return m.quit()
	case keys.Help:
		m.openHelp(modeFilter)
		return nil
	}
	var cmd tea.Cmd
	m.filter, cmd = m.filter.Update(k)
	m.feats.SetFilter(m.filter.Value())
	return tea.Batch(cmd, m.setSel(m.feats.Selected()))
}

// searchKey edits the output search; it applies on enter.
func (m *Model) searchKey(k tea.KeyPressMsg) tea.Cmd {
	a, _ := m.textAction(k, keys.Open, keys.Back, keys.Quit, keys.Help)
	switch a {
	case keys.Open:
		m.mode = modeNormal
		m.search.Blur()
		q := m.search.Value()
		n := m.output.SetSearch(q)
		switch {
		case q == "":
			m.note = infoNote("search cleared")
		case n == 0:
			m.note = errNote(fmt.Sprintf("no line holds %q", q))
		default:
			m.note = infoNote(fmt.Sprintf("%d lines hold %q · %s/%s next/previous", n, q, m.keyName(keys.SearchNext), m.keyName(keys.SearchPrev)))
		}
		return nil
	case keys.Back:
		m.mode = modeNormal
		m.search.Blur()
		return nil
	case keys.Quit:
		return m.quit()
	case keys.Help:
		m.openHelp(modeSearch)
		return nil
	}
	var cmd tea.Cmd
	m.search, cmd = m.search.Update(k)
	return cmd
}

func (m *Model) onPaste(msg tea.PasteMsg) tea.Cmd {
	switch {
	case m.mode == modeHelp: // over a dialog too: the help has the keys
		return m.helpPaste(msg)
	case m.top() != nil && !m.docked:
		return pasteInto(m.top(), msg)
	case m.mode == modeCommand:
		return m.cmdline.Paste(msg)
	case m.mode == modeFilter:
		var cmd tea.Cmd
		m.filter, cmd = m.filter.Update(msg)
		m.feats.SetFilter(m.filter.Value())
		return cmd
	case m.mode == modeSearch:
		var cmd tea.Cmd
		m.search, cmd = m.search.Update(msg)
		return cmd
	case m.mode == modeRecall:
		q, cmd := m.recall.Paste(msg)
		return tea.Batch(cmd, m.recallCmd(q))
	}
	return nil
}
