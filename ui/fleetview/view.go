package fleetview

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/fleet"
	"github.com/flowdeck/flowdeck/termtext"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/styles"
)

// minW×minH is the smallest terminal the fleet view draws in, as the
// cockpit's.
const minW, minH = 40, 12

// boxMinH is a box's least height: its frame and one row.
const boxMinH = 3

// frame is what relayout prepared for View: every line, placed.
type frame struct {
	header string
	// rowsY/rowsH and queueY/queueH place the two boxes (full width);
	// a height of 0 hides the box.
	rowsY, rowsH, queueY, queueH int
	rows, queue                  []string
	foot                         []string
}

// relayout prepares the frame for the current size and state. Called after
// every update: a fleet of 50 costs a few hundred short strings.
func (m *Model) relayout() {
	if m.w < minW || m.h < minH {
		return
	}
	l := frame{header: m.headerLine()}
	foot := m.footerLines()
	bodyH := max(0, m.h-1-len(foot))
	if m.helpOpen {
		l.rowsY, l.rowsH = 1, bodyH
		l.rows = m.helpBox(bodyH)
		l.foot = foot
		m.lay = l
		return
	}
	rowsH, queueH, two := m.split(bodyH)
	l.rowsY, l.rowsH = 1, rowsH
	l.queueY, l.queueH = 1+rowsH, queueH
	if rowsH > 0 {
		l.rows = m.rowsBox(rowsH, two)
	}
	if queueH > 0 {
		l.queue = m.queueBox(queueH)
	}
	l.foot = foot
	m.lay = l
}

// split shares the body between the projects and the queue: the queue
// keeps room for a few items, the projects take two lines each when they
// fit (one otherwise), and the queue takes what is left. Below two boxes'
// worth only the focused box shows.
func (m *Model) split(bodyH int) (rowsH, queueH int, two bool) {
	if bodyH < 2*boxMinH {
		if bodyH < boxMinH {
			return 0, 0, false
		}
		if m.focus == focusQueue {
			return 0, bodyH, false
		}
		return bodyH, 0, false
	}
	n := max(1, len(m.statuses))
	qMin := min(max(1, len(m.items)), 3) + 2
	avail := bodyH - qMin
	two = 2*n+2 <= avail
	want := n + 2
	if two {
		want = 2*n + 2
	}
	rowsH = max(boxMinH, min(avail, want))
	return rowsH, bodyH - rowsH, two
}

// View draws the frame relayout prepared.
func (m *Model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.WindowTitle = m.title()
	if m.next.open != nil {
		return v // blank while the project's cockpit takes the terminal
	}
	if m.w <= 0 || m.h <= 0 {
		v.SetContent("flowdeck fleet: starting…")
		return v
	}
	if m.w < minW || m.h < minH {
		v.SetContent(strings.Join(layout.FitMessage(m.w, m.h,
			fmt.Sprintf("the fleet needs a terminal of at least %dx%d; this one is %dx%d. Make it larger, or q quits.", minW, minH, m.w, m.h),
			fmt.Sprintf("needs %dx%d, is %dx%d", minW, minH, m.w, m.h), fmt.Sprintf("%dx%d", minW, minH), "!"), "\n"))
		return v
	}
	c := layout.NewCanvas(m.h)
	c.Put(0, 0, []string{m.lay.header})
	c.Put(0, m.lay.rowsY, m.lay.rows)
	c.Put(0, m.lay.queueY, m.lay.queue)
	c.Put(0, m.h-len(m.lay.foot), m.lay.foot)
	// The backstop: whatever foreign text slipped through uncleaned loses
	// every sequence but SGR on its way to the terminal.
	v.SetContent(termtext.Frame(strings.Join(c.Lines(), "\n")))
	return v
}

// headerLine: how many projects, how many answer, what waits.
func (m *Model) headerLine() string {
	th := m.th
	count := map[fleet.Reach]int{}
	for _, s := range m.statuses {
		count[s.Reach]++
	}
	line := th.Bold.Render(" flowdeck fleet") + th.Dim.Render(fmt.Sprintf(" · %d %s", len(m.statuses), plural(len(m.statuses), "project", "projects")))
	if n := count[fleet.Unreachable]; n > 0 {
		line += th.Dim.Render(" · ") + th.Err.Render(fmt.Sprintf("%d unreachable", n))
	}
	if n := count[fleet.Incompatible]; n > 0 {
		line += th.Dim.Render(" · ") + th.Warn.Render(fmt.Sprintf("%d incompatible", n))
	}
	if n := count[fleet.Connecting]; n > 0 {
		line += th.Dim.Render(fmt.Sprintf(" · %d connecting…", n))
	}
	if n := len(m.items); n > 0 {
		line += th.Dim.Render(" ·") + th.Attention.Render(fmt.Sprintf(" ⚑ %d waiting ", n))
	} else {
		line += th.Dim.Render(" · nothing waits for you")
	}
	return layout.Fit(line, m.w)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// reachText says why a project does not answer, on one line.
func reachText(s fleet.Status) string {
	switch s.Reach {
	case fleet.Connecting:
		return "connecting…"
	case fleet.Unreachable:
		t := "unreachable"
		if s.Err != "" {
			t += ": " + s.Err
		}
		if !s.Retry.IsZero() {
			t += " (retrying)"
		}
		return t
	case fleet.Incompatible:
		t := "incompatible"
		if s.Err != "" {
			t += ": " + s.Err
		}
		return t
	}
	return string(s.Reach)
}

func (m *Model) reachStyle(r fleet.Reach) styles.Style {
	switch r {
	case fleet.Unreachable:
		return m.th.Err
	case fleet.Incompatible:
		return m.th.Warn
	}
	return m.th.Dim
}

// row is one project's cells, cleaned and measured.
type row struct {
	name, goal, progress, waits, agents, when string
	goalStyle                                 styles.Style
	detail                                    string // line 2, after where
	detailStyle                               styles.Style
	reach                                     string // why it does not answer ("" when it does)
	reachStyle                                styles.Style
	where                                     string
	nwaits                                    int
}

func (m *Model) rowOf(s fleet.Status) row {
	r := row{name: termtext.Line(s.Name), where: termtext.Line(m.shortPath(s.Where())), goalStyle: m.th.Text}
	if s.Reach != fleet.Reachable {
		// On one line, why it does not answer matters more than its goal;
		// on two, the word, and the reason under it.
		r.reach, r.reachStyle = reachText(s), m.reachStyle(s.Reach)
		r.detail, r.detailStyle = r.reach, r.reachStyle
	}
	g := s.Glance
	if g == nil {
		r.goal, r.goalStyle = string(s.Reach), r.reachStyle
		if s.Reach == fleet.Connecting {
			r.goal, r.detail = "connecting…", ""
		}
		return r
	}
	r.goal = termtext.Line(g.Goal)
	if r.goal == "" {
		r.goal, r.goalStyle = termtext.Line(g.Status), m.th.Dim
	}
	if g.Total > 0 {
		r.progress = fmt.Sprintf("%d/%d done", g.Done, g.Total)
	}
	r.nwaits = len(g.Waits)
	if r.nwaits > 0 {
		r.waits = fmt.Sprintf("⚑ %d", r.nwaits)
	}
	agents := map[string]bool{}
	var working []string
	for _, a := range g.Active {
		w := termtext.Line(a.Feature)
		if a.Agent != "" {
			agents[a.Agent] = true
			w += " (" + termtext.Line(a.Agent) + ")"
		}
		working = append(working, w)
	}
	if n := len(agents); n > 0 {
		r.agents = fmt.Sprintf("%d %s", n, plural(n, "agent", "agents"))
	}
	if !g.LastActivity.IsZero() {
		r.when = ago(m.now().Sub(g.LastActivity))
	}
	switch {
	case s.Reach != fleet.Reachable:
	case len(working) > 0:
		r.detail, r.detailStyle = "working: "+strings.Join(working, ", "), m.th.Text
	default:
		r.detail, r.detailStyle = termtext.Line(g.Status), m.th.Dim
	}
	return r
}

// cells is what the boxes draw of the fleet's state: every string
// cleaned (termtext) and measured.
type cells struct {
	rows                               []row
	nameW, progW, waitW, agentW, whenW int
	queue                              []qcell
	projW, qWhenW                      int
}

// qcell is one queue item's text: its project, what waits, why (a blocked
// feature's reason, a decision's question; "" for a review) and since when.
type qcell struct{ project, what, reason, when string }

// cellsNow is the cells of the current state, made when it changed.
func (m *Model) cellsNow() *cells {
	if m.cells != nil {
		return m.cells
	}
	cs := &cells{rows: make([]row, len(m.statuses)), nameW: 4, queue: make([]qcell, len(m.items)), projW: 4}
	for i, s := range m.statuses {
		r := m.rowOf(s)
		cs.rows[i] = r
		cs.nameW = max(cs.nameW, layout.Width(r.name))
		cs.progW = max(cs.progW, layout.Width(r.progress))
		cs.waitW = max(cs.waitW, layout.Width(r.waits))
		cs.agentW = max(cs.agentW, layout.Width(r.agents))
		cs.whenW = max(cs.whenW, layout.Width(r.when))
	}
	for i, it := range m.items {
		q := qcell{project: termtext.Line(it.Project), what: termtext.Line(label(it))}
		if !isReview(it) && it.Wait.Reason != "" {
			q.reason = termtext.Line(it.Wait.Reason)
		}
		if !it.Wait.Since.IsZero() {
			q.when = ago(m.now().Sub(it.Wait.Since))
		}
		cs.queue[i] = q
		cs.projW = max(cs.projW, layout.Width(q.project))
		cs.qWhenW = max(cs.qWhenW, layout.Width(q.when))
	}
	m.cells = cs
	return cs
}

// rowsBox draws the projects box, h rows high: one or two lines a project.
func (m *Model) rowsBox(h int, two bool) []string {
	th := m.th
	inner := m.w - 3 // a cell of margin inside the right edge
	per := 1
	if two {
		per = 2
	}
	m.rows.SetHeight(max(1, (h-2)/per))
	cs := m.cellsNow()
	rows := cs.rows
	nameW, progW, waitW, agentW, whenW := min(cs.nameW, max(8, inner/5)), cs.progW, cs.waitW, cs.agentW, cs.whenW
	// The columns right of the goal, most wanted first, while the goal
	// keeps a dozen cells; drawn in reading order.
	const (
		colWaits = iota
		colProgress
		colWhen
		colAgents
	)
	type col struct {
		w    int
		cell func(row) (string, styles.Style)
	}
	cand := [...]col{
		colWaits:    {waitW, func(r row) (string, styles.Style) { return r.waits, th.Attention }},
		colProgress: {progW, func(r row) (string, styles.Style) { return r.progress, th.Text }},
		colWhen:     {whenW, func(r row) (string, styles.Style) { return r.when, th.Dim }},
		colAgents:   {agentW, func(r row) (string, styles.Style) { return r.agents, th.Accent }},
	}
	room := inner - 2 - nameW - 2 - 12
	var kept [len(cand)]bool
	right := 0
	for i, c := range cand {
		if c.w > 0 && c.w+2 <= room {
			kept[i] = true
			room -= c.w + 2
			right += c.w + 2
		}
	}
	goalW := max(1, inner-2-nameW-2-right)
	order := []int{colProgress, colAgents, colWhen, colWaits}
	var body []string
	from, to := m.rows.Window()
	focused := m.focus == focusRows && m.top() == nil
	for i := from; i < to; i++ {
		r := rows[i]
		sel := i == m.rows.Cursor
		var plain, painted strings.Builder
		add := func(s string, w int, st styles.Style, leftAlign bool) {
			cell := layout.Cut(s, w)
			pad := strings.Repeat(" ", max(0, w-layout.Width(cell)))
			if leftAlign {
				cell += pad
			} else {
				cell = pad + cell
			}
			plain.WriteString(cell)
			if strings.TrimSpace(s) == "" {
				painted.WriteString(cell)
			} else {
				painted.WriteString(st.Render(cell))
			}
		}
		mark := "  "
		if sel {
			mark = "› "
		}
		add(mark, 2, th.Accent, true)
		add(r.name, nameW, th.Bold, true)
		add("  ", 2, th.Text, true)
		if !two && r.reach != "" {
			add(r.reach, goalW, r.reachStyle, true)
		} else {
			add(r.goal, goalW, r.goalStyle, true)
		}
		for _, o := range order {
			if kept[o] {
				text, st := cand[o].cell(r)
				add("  ", 2, th.Text, true)
				add(text, cand[o].w, st, false)
			}
		}
		line := painted.String()
		if sel {
			paint := th.SelectedBlur
			if focused {
				paint = th.Selected
			}
			line = paint.Render(layout.Fit(plain.String(), inner))
		}
		body = append(body, line)
		if two {
			whereW := max(10, inner/2)
			if r.reach != "" && r.detail != "" {
				whereW = max(10, inner/3) // the reason matters more
			}
			l2 := "    " + th.Dim.Render(layout.Cut(r.where, whereW))
			if r.detail != "" {
				l2 += th.Dim.Render(" · ") + r.detailStyle.Render(layout.Cut(r.detail, max(1, inner-layout.Width(l2)-3)))
			}
			body = append(body, l2)
		}
	}
	if len(m.statuses) == 0 {
		body = []string{th.Dim.Render(" no projects yet: flowdeck fleet add NAME DIR, or NAME -- COMMAND…")}
	}
	footer := ""
	if n := len(m.statuses); n > 0 {
		footer = layout.Position("project", m.rows.Cursor+1, n)
	}
	return layout.Box(th, m.boxTitle(" Projects ", focused), th.Dim.Render(footer), body, m.w, h, focused)
}

func (m *Model) boxTitle(name string, focused bool) string {
	if focused {
		return m.th.TitleFocused.Render(name)
	}
	return m.th.Title.Render(name)
}

// queueBox draws the queue: one line an item, oldest first.
func (m *Model) queueBox(h int) []string {
	th := m.th
	inner := m.w - 3 // a cell of margin inside the right edge
	m.queue.SetHeight(max(1, h-2))
	cs := m.cellsNow()
	projW, whenW := min(cs.projW, max(8, inner/5)), cs.qWhenW
	focused := m.focus == focusQueue && m.top() == nil
	var body []string
	from, to := m.queue.Window()
	for i := from; i < to; i++ {
		q := cs.queue[i]
		sel := i == m.queue.Cursor
		what, reason := q.what, q.reason
		labelW := max(1, inner-2-projW-2-whenW-2)
		text := layout.Cut(what, labelW)
		if reason != "" && !strings.Contains(what, reason) && layout.Width(text)+3 < labelW {
			reason = layout.Cut(" — "+reason, labelW-layout.Width(text))
		} else {
			reason = ""
		}
		pad := strings.Repeat(" ", max(0, labelW-layout.Width(text)-layout.Width(reason)))
		proj := layout.Fit(layout.Cut(q.project, projW), projW)
		when := strings.Repeat(" ", whenW-layout.Width(q.when)) + q.when
		mark := "  "
		if sel {
			mark = "› "
		}
		if sel {
			paint := th.SelectedBlur
			if focused {
				paint = th.Selected
			}
			body = append(body, paint.Render(layout.Fit(mark+proj+"  "+text+reason+pad+"  "+when, inner)))
			continue
		}
		body = append(body, mark+th.Bold.Render(proj)+"  "+text+th.Dim.Render(reason)+pad+"  "+th.Dim.Render(when))
	}
	if len(m.items) == 0 {
		body = []string{th.Dim.Render(" nothing waits for you")}
	}
	footer := ""
	if n := len(m.items); n > 0 {
		footer = layout.Position("item", m.queue.Cursor+1, n)
	}
	title := m.boxTitle(" Waiting for you ", focused)
	if n := len(m.items); n > 0 {
		title += th.Attention.Render(fmt.Sprintf(" ⚑ %d ", n))
	}
	return layout.Box(th, title, th.Dim.Render(footer), body, m.w, h, focused)
}

// footerLines: the note, the top dialog (above the key bar), the key bar.
// A dialog may take all but the header and a box of the fleet.
func (m *Model) footerLines() []string {
	out := m.noteLines()
	if d := m.top(); d != nil && !m.helpOpen {
		room := m.h - 1 - 1 - len(out)
		if m.h >= 16 {
			room -= boxMinH // a glimpse of the fleet stays
		}
		if room < 4 && len(out) > 0 {
			out = out[:max(0, len(out)-(4-room))]
			room = 4
		}
		out = append(out, m.dialogView(d, room)...)
	}
	return append(out, m.hintBar())
}

// dialogView draws the top dialog as a box of full width and at most maxH
// rows: its body (cut from the bottom when it does not fit), then its key
// hints, which always show.
func (m *Model) dialogView(d dialog, maxH int) []string {
	th := m.th
	room := max(1, maxH-3)
	var body []string
	for _, l := range d.body(m, max(10, m.w-4), room) {
		body = append(body, " "+l)
	}
	if len(body) > room {
		body = body[:room]
	}
	hint := m.bindingHints(m.w-4, d.keyMap(m).ShortHelp()...)
	body = append(body, " "+hint)
	return layout.Box(th, th.DialogTitle.Render(" "+d.title(m)+" "), "", body, m.w, len(body)+2, true)
}

func (m *Model) noteLines() []string {
	p, rest := m.th.Dim, m.th.Dim
	switch m.note.kind {
	case noteOK:
		p, rest = m.th.Ok, m.th.Ok
	case noteErr:
		p, rest = m.th.Err, m.th.Text // the error's first line in red, its detail plain
	}
	return layout.NoteLines(m.note.lines, p, rest, " ", m.w, 3)
}

// hintBar is the last line: what the keys do here, then help and quit. A
// dialog's own keys are in its box.
func (m *Model) hintBar() string {
	typing := false
	var own []key.Binding
	switch d := m.top(); {
	case m.helpOpen:
		own = m.helpKeyMap().ShortHelp()
	case d != nil:
		typing = d.typing()
	default:
		own = m.boxKeyMap().ShortHelp()
	}
	tailBs := m.keys.Bindings(globalKeys...)
	if typing {
		tailBs = keys.TextOnly(tailBs)
	}
	tail := m.bindingHints(m.w, tailBs...)
	text := " "
	room := m.w - layout.Width(text) - layout.Width(tail) - 3
	if hints := m.bindingHints(room, own...); hints != "" {
		text += hints + m.th.Dim.Render(" · ")
	}
	return layout.Fit(text+tail, m.w)
}

// bindingHints renders as many "key desc" pairs of bs as fit in w cells.
func (m *Model) bindingHints(w int, bs ...key.Binding) string {
	return keys.Hints(m.help, w, bs...)
}
