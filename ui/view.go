package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/termtext"
	"github.com/flowdeck/flowdeck/ui/layout"
	agentspane "github.com/flowdeck/flowdeck/ui/panes/agents"
)

// sessionBarH is the session bar's height.
const sessionBarH = 2

// minW×minH is the smallest terminal the cockpit draws in (README).
const minW, minH = 40, 12

// dialogMinH is a dialog's least height: its title, a line, its keys and
// its bottom edge; paneMinH a pane's (one row in its frame). Below that
// the panes give their rows to the dialog.
const dialogMinH, paneMinH = 4, 3

// tooSmall says so in a w×h terminal, however small: the longest message
// that fits whole.
func tooSmall(w, h int) []string {
	return layout.FitMessage(w, h,
		fmt.Sprintf("flowdeck needs a terminal of at least %dx%d; this one is %dx%d. Make it larger, or q quits.", minW, minH, w, h),
		fmt.Sprintf("flowdeck needs at least %dx%d (this is %dx%d)", minW, minH, w, h),
		fmt.Sprintf("needs %dx%d, is %dx%d", minW, minH, w, h),
		fmt.Sprintf("needs %dx%d", minW, minH),
		fmt.Sprintf("%dx%d", minW, minH), "40+", "!")
}

// footerLines is what goes under the panes: the prompt, the command line or
// the status line, then the key hint bar.
func (m *Model) footerLines() []string {
	var out []string
	switch {
	case m.top() != nil:
		// The note stays visible above the dialog: an error may be why the
		// dialog is back, a notice may say who closed the one before. Both
		// fit between the session bar and the key bar, the dialog first, so
		// that its top edge stays on screen (40x12 included).
		room := m.h - sessionBarH - 1
		if len(m.note.lines) > 0 {
			out = m.noteLines()
			out = out[:min(len(out), max(0, room-dialogMinH))]
		}
		out = append(out, m.dialogView(m.top(), room-len(out))...)
	case m.mode == modeCommand:
		out = []string{m.cmdline.View(m.w), m.cmdline.Notes(m.th, m.w)}
	case m.mode == modeFilter:
		out = []string{layout.Fit(m.filter.View(), m.w)}
	case m.mode == modeSearch:
		out = []string{layout.Fit(m.search.View(), m.w)}
	default:
		out = m.noteLines()
	}
	return append(out, m.hintBar())
}

func (m *Model) noteLines() []string {
	p, rest := m.th.Dim, m.th.Dim
	switch m.note.kind {
	case noteOK:
		p, rest = m.th.Ok, m.th.Ok
	case noteErr:
		p, rest = m.th.Err, m.th.Text // the error's first line in red, its detail plain
	}
	return layout.NoteLines(m.note.lines, p, rest, "", m.w, 5)
}

// relayout recomputes the pane rectangles for the current size and footer,
// and re-renders the detail when its width changed. Called after every
// update; it is cheap when nothing moved.
func (m *Model) relayout() tea.Cmd {
	if m.w <= 0 || m.h <= 0 {
		return nil
	}
	bodyY := sessionBarH
	bodyH := max(0, m.h-sessionBarH-len(m.footerLines()))
	slot := m.slot
	if slot == layout.Flow && m.flowView == nil && m.focus != layout.Flow ||
		slot == layout.Agents && len(m.crew.pane.Rows()) == 0 && m.focus != layout.Agents {
		slot = layout.Output // an empty flow or agents pane gives its room back
	}
	m.lay = layout.Layout{}
	if bodyH >= paneMinH {
		m.lay = layout.Compute(0, bodyY, m.w, bodyH, m.lower, slot, m.feats.Want()+2, m.crewOn())
	}
	for p, pn := range m.panes {
		r := m.lay.Rects[p]
		pn.SetSize(max(0, r.W-2), max(0, r.H-2))
	}
	m.cmdline.SetWidth(m.w)
	m.filter.SetWidth(max(1, m.w-2))
	m.refreshHelp()
	if m.focus != layout.Features && m.lay.Rects[m.focus].Empty() && bodyH >= paneMinH {
		m.focusPane(m.focus) // a resize hid the focused pane: bring it back
		m.lay = layout.Compute(0, bodyY, m.w, bodyH, m.lower, m.slot, m.feats.Want()+2, m.crewOn())
	}
	return m.refreshDetail()
}

// View draws the frame from the state Update prepared: only visible rows.
func (m *Model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.WindowTitle = termtext.Line(m.title()) // a step name must not retitle the terminal
	if m.mouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	if m.exiting {
		return v // blank: see exit
	}
	if m.w <= 0 || m.h <= 0 {
		v.SetContent("flowdeck: starting…")
		return v
	}
	if m.w < minW || m.h < minH {
		v.SetContent(strings.Join(tooSmall(m.w, m.h), "\n"))
		return v
	}
	c := layout.NewCanvas(m.h)
	c.Put(0, 0, m.sessionBar())
	if m.mode == modeHelp {
		r := layout.Rect{X: 0, Y: sessionBarH, W: m.w, H: m.h - sessionBarH - 1}
		c.Put(0, r.Y, m.helpView(r.W, r.H))
		c.Put(0, m.h-1, []string{m.hintBar()})
	} else {
		for p := layout.Pane(0); p < layout.NumPanes; p++ {
			r := m.lay.Rects[p]
			if r.Empty() {
				continue
			}
			c.Put(r.X, r.Y, m.paneBox(p, r))
		}
		foot := m.footerLines()
		c.Put(0, m.h-len(foot), foot)
	}
	// The backstop: whatever foreign text a pane drew without cleaning
	// loses every sequence but SGR on its way to the terminal.
	v.SetContent(termtext.Frame(strings.Join(c.Lines(), "\n")))
	return v
}

// paneBox frames one pane's content with its number and title.
func (m *Model) paneBox(p layout.Pane, r layout.Rect) []string {
	focused := p == m.focus && m.mode != modeHelp
	var body []string
	var footer string
	switch p {
	case layout.Features:
		body = m.feats.View(focused)
	case layout.DAG:
		body = m.graph.View(focused)
	case layout.Runs:
		body = m.runList.View(focused)
	case layout.Output:
		body = m.output.View()
	case layout.Recall:
		body = m.recall.View(focused)
	case layout.Flow:
		body = m.flowPane.View()
	case layout.Agents:
		body = m.crew.pane.View(focused)
	default:
		body = m.detail.View()
	}
	footer = m.pane(p).Footer()
	return layout.Box(m.th, m.paneTitle(p, focused), m.th.Dim.Render(footer), body, r.W, r.H, focused)
}

func (m *Model) paneTitle(p layout.Pane, focused bool) string {
	name := fmt.Sprintf(" %d %s ", int(p)+1, p.Title())
	paint := m.th.Title
	if focused {
		paint = m.th.TitleFocused
	}
	title := paint.Render(name)
	switch {
	case p == layout.Features && m.feats.Filter() != "":
		title += m.th.Accent.Render(" /" + m.feats.Filter() + " ")
	case p == layout.Detail:
		title += m.th.Dim.Render(" " + m.detailLabel() + " ")
	case p == layout.Output && m.output.Title() != "":
		title += m.th.Dim.Render(" " + layout.Cut(m.output.Title(), 40) + " ")
	case p == layout.Flow && m.flowPane.Title() != "":
		title += m.th.Dim.Render(" " + m.flowPane.Title() + " ")
	}
	// Stacked: the lower slot lists the panes it can show, so they can be found.
	if !m.lay.Wide && p != layout.Features {
		var tabs []string
		for _, t := range m.lay.Tabs {
			if t != p {
				tabs = append(tabs, fmt.Sprintf("%d %s", int(t)+1, t.Title()))
			}
		}
		title += m.th.Dim.Render(" · " + strings.Join(tabs, " · ") + " ")
	}
	return title
}

func (m *Model) detailLabel() string {
	switch {
	case m.doc == docHistory:
		return "history"
	case m.sess == nil:
		return "no session"
	case m.doc == docFeature && m.sess.Plan != nil && m.sel != "":
		return m.sel
	}
	return "session"
}

// sessionBar: goal, status, approval, progress, active feature, what waits,
// next command.
func (m *Model) sessionBar() []string {
	th := m.th
	s := m.sess
	if !m.loaded {
		return []string{layout.Fit(th.Bold.Render(" flowdeck")+th.Dim.Render(" · loading…"), m.w), layout.Fit("", m.w)}
	}
	if s == nil {
		l1 := th.Bold.Render(" flowdeck") + th.Dim.Render(" · no active session")
		l2 := " "
		if w := m.waitingPart(); w != "" {
			l2 = w + th.Dim.Render(" · ") // it starts with a space of its own
		}
		if r := m.runningPart(); r != "" {
			l2 += r + th.Dim.Render(" · ")
		}
		l2 += th.Dim.Render("next: ") + ":/flow-plan GOAL" + th.Dim.Render("  ("+model.NextCommand(nil)+")")
		return []string{layout.Fit(l1, m.w), layout.Fit(l2, m.w)}
	}
	status := model.StatusText(s)
	sp := th.Accent
	switch {
	case s.Status == model.StatusBlocked:
		sp = th.Err
	case model.Landable(s):
		sp = th.Warn // done, but not yet on the person's branch
	case s.Status == model.StatusCompleted:
		sp = th.Ok
	}
	l1 := th.Bold.Render(" "+s.Goal) + "  " + sp.Render("["+status+"]") + th.Dim.Render(" plan "+string(s.Approval))
	right := ""
	if s.Plan != nil {
		done, req := s.Plan.CompletedCount(), s.Plan.Required()
		right = m.progressBar(done, req, 16) + fmt.Sprintf(" %d/%d done ", done, req)
	}
	gap := m.w - layout.Width(right)
	l1 = layout.Fit(layout.Cut(l1, max(0, gap-1)), max(0, gap)) + right

	var parts []string
	if active := activeText(s); active != "" {
		parts = append(parts, th.Dim.Render("active ")+th.Bold.Render(active))
	}
	if w := m.waitingPart(); w != "" {
		parts = append(parts, w)
		if m.crewOn() {
			// A crew's claims run long: what waits for the person first.
			parts[0], parts[len(parts)-1] = parts[len(parts)-1], parts[0]
		}
	} else {
		parts = append(parts, th.Dim.Render("nothing waits for you"))
	}
	// What runs comes after what waits: on a narrow screen the line is cut
	// from the right, and what waits for the person matters more.
	if r := m.runningPart(); r != "" {
		parts = append(parts, r)
	}
	if a := m.idlePart(); a != "" {
		parts = append(parts, a)
	}
	sep := th.Dim.Render(" · ")
	l2 := " " + strings.Join(parts, sep)
	if next := m.nextHintIn(model.NextCommand(s), m.w-layout.Width(l2)-layout.Width(sep)); next != "" {
		l2 += sep + next
	}
	return []string{l1, layout.Fit(l2, m.w)}
}

// waitingPart lists what waits for the person (reviews, a blocked session,
// flow decisions), highlighted; "" when nothing does.
func (m *Model) waitingPart() string {
	n := len(m.waits)
	if n == 0 {
		return ""
	}
	names := make([]string, 0, n)
	for _, w := range m.waits {
		names = append(names, m.waitName(w))
	}
	return m.th.Attention.Render(fmt.Sprintf(" ⚑ %d waiting: %s ", n, strings.Join(names, ", ")))
}

// runningPart says what runs right now, from the runs list: "⟳ go test
// ./... (agent)", or how many.
func (m *Model) runningPart() string {
	running := m.runList.Running()
	if len(running) == 0 {
		return ""
	}
	r := running[0]
	text := "⟳ " + layout.Cut(model.CommandLine(r.Argv), 32)
	if r.Actor != "" {
		text += " (" + r.Actor + ")"
	}
	if len(running) > 1 {
		text = fmt.Sprintf("⟳ %d running: %s, …", len(running), layout.Cut(model.CommandLine(r.Argv), 24))
	}
	return m.th.State(model.StateInProgress).Render(text)
}

// idlePart names the agents whose harness said they went idle (opencode's
// session.idle, through `flowdeck agent-event idle`) and that have not acted
// since: nothing in the session changed and no run started after it.
func (m *Model) idlePart() string {
	var since time.Time
	if m.sess != nil {
		since = m.sess.Timestamps.Updated
	}
	if t := m.runList.Newest(); t.After(since) {
		since = t
	}
	var idle []string
	for _, a := range m.agents {
		if a.Event == "idle" && a.At.After(since) {
			idle = append(idle, fmt.Sprintf("%s idle %s", a.Agent, agentspane.Elapsed(m.now().Sub(a.At))))
		}
	}
	if len(idle) == 0 {
		return ""
	}
	return m.th.Dim.Render("☾ " + strings.Join(idle, ", "))
}

func (m *Model) progressBar(done, total, w int) string {
	if total <= 0 {
		return ""
	}
	full := done * w / total
	return m.th.BarFull.Render(strings.Repeat("█", full)) + m.th.BarEmpty.Render(strings.Repeat("░", w-full))
}

// activeText names the active feature, or, when several are (max_parallel
// above 1), each with the agent that claimed it.
func activeText(s *model.Session) string {
	if len(model.ActiveClaims(s)) <= 1 {
		return s.Execution.ActiveFeature
	}
	return model.ClaimsText(s)
}
