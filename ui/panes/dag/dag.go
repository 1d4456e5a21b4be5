// Package dag is the graph pane: the plan as topological levels (model.Levels),
// one row per feature with the names it waits for, every node coloured by
// state, active ones with the agent that claimed them (@name), and the
// selected feature's upstream and downstream marked. Rows
// rather than drawn edges keep 100+ features legible in any width.
package dag

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/styles"
)

type line struct {
	level  int    // level header when id == ""
	count  int    // features in the level (header only)
	id     string // feature row
	state  model.FeatureState
	deps   []string
	blocks []string
	agent  string // the agent working on it (active features only)
}

// Model is the graph pane.
type Model struct {
	th    *styles.Styles
	lines []line
	nodes []int          // indexes of feature rows in lines, graph order
	at    map[string]int // feature id -> index in nodes
	cycle bool
	cur   int // index in nodes
	sel   string
	up    map[string]bool
	down  map[string]bool
	nUp   int
	nDown int
	feats []model.Feature
	off   int
	w, h  int
}

// New returns an empty pane.
func New(th *styles.Styles) *Model { return &Model{th: th, at: map[string]int{}} }

// SetStyles changes the styles the pane draws with.
func (m *Model) SetStyles(th *styles.Styles) { m.th = th }

// SetSession rebuilds the rows from the plan.
func (m *Model) SetSession(s *model.Session) {
	m.lines, m.nodes, m.feats = m.lines[:0], m.nodes[:0], nil
	m.at = map[string]int{}
	m.cycle = false
	if s == nil || s.Plan == nil || len(s.Plan.Features) == 0 {
		m.Select("")
		return
	}
	m.feats = s.Plan.Features
	levels := model.Levels(s.Plan.Features)
	if levels == nil {
		m.cycle = true
		ids := make([]string, len(s.Plan.Features))
		for i, f := range s.Plan.Features {
			ids[i] = f.ID
		}
		levels = [][]string{ids}
	}
	for li, lvl := range levels {
		m.lines = append(m.lines, line{level: li, count: len(lvl)})
		for _, id := range lvl {
			f := s.Plan.Feature(id)
			m.at[id] = len(m.nodes)
			m.nodes = append(m.nodes, len(m.lines))
			l := line{id: id, state: model.StateOf(s, f), deps: f.DependsOn, blocks: f.BlockedBy}
			if f.Status == model.FeatureInProgress {
				l.agent = f.Agent
			}
			m.lines = append(m.lines, l)
		}
	}
	sel := m.sel
	m.sel = ""
	if _, ok := m.at[sel]; !ok && len(m.nodes) > 0 {
		sel = m.lines[m.nodes[0]].id
	}
	m.Select(sel)
}

// Select highlights feature id and its upstream and downstream.
func (m *Model) Select(id string) {
	i, ok := m.at[id]
	if !ok {
		m.sel, m.up, m.down, m.nUp, m.nDown = "", nil, nil, 0, 0
		return
	}
	m.cur = i
	if id != m.sel {
		m.sel = id
		m.up, m.down = set(model.Upstream(m.feats, id)), set(model.Downstream(m.feats, id))
		m.nUp, m.nDown = len(m.up), len(m.down)
	}
	m.follow()
}

func set(ids []string) map[string]bool {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out
}

// Selected is the highlighted feature.
func (m *Model) Selected() string { return m.sel }

// Move moves the selection through the graph order.
func (m *Model) Move(d int) {
	if len(m.nodes) == 0 {
		return
	}
	i := min(max(m.cur+d, 0), len(m.nodes)-1)
	m.Select(m.lines[m.nodes[i]].id)
}

// Page moves half a screen.
func (m *Model) Page(dir int) { m.Move(dir * max(1, m.bodyH()/2)) }

// Top and Bottom jump to the first and last node.
func (m *Model) Top()    { m.Move(-len(m.nodes)) }
func (m *Model) Bottom() { m.Move(len(m.nodes)) }

// Scroll moves the window without moving the selection.
func (m *Model) Scroll(d int) {
	m.off = min(max(m.off+d, 0), max(0, len(m.lines)-m.bodyH()))
}

// ClickRow selects the node on body row y (0 = first row under the summary).
func (m *Model) ClickRow(y int) {
	i := m.off + y - 1
	if i >= 0 && i < len(m.lines) && m.lines[i].id != "" {
		m.Select(m.lines[i].id)
	}
}

// SetSize sets the content area.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.follow() }

// bodyH is the rows under the summary line.
func (m *Model) bodyH() int { return max(0, m.h-1) }

// follow scrolls so the selected row and, when it fits, its level header are
// visible.
func (m *Model) follow() {
	if len(m.nodes) == 0 {
		m.off = 0
		return
	}
	row := m.nodes[m.cur]
	h := m.bodyH()
	if row-1 < m.off {
		m.off = max(0, row-1)
	}
	if row >= m.off+h {
		m.off = row - h + 1
	}
	m.off = min(max(m.off, 0), max(0, len(m.lines)-h))
}

// Footer is the position indicator for the frame.
func (m *Model) Footer() string {
	if len(m.nodes) == 0 {
		return ""
	}
	return layout.Position("feature", m.cur+1, len(m.nodes))
}

// View paints the summary line and the visible rows.
func (m *Model) View(focused bool) []string {
	if len(m.nodes) == 0 {
		return layout.PadLines([]string{m.th.Dim.Render(" no plan yet")}, m.w, m.h)
	}
	out := make([]string, 0, m.h)
	out = append(out, m.summary())
	end := min(len(m.lines), m.off+m.bodyH())
	for i := m.off; i < end; i++ {
		out = append(out, m.renderLine(m.lines[i], focused))
	}
	return layout.PadLines(out, m.w, m.h)
}

func (m *Model) summary() string {
	if m.sel == "" {
		return ""
	}
	s := " " + m.th.Bold.Render(m.sel) + "  " +
		m.th.Upstream.Render(fmt.Sprintf("↑%d upstream", m.nUp)) + "  " +
		m.th.Downstream.Render(fmt.Sprintf("↓%d downstream", m.nDown))
	if m.cycle {
		s += "  " + m.th.Err.Render("dependency cycle")
	}
	return s
}

func (m *Model) renderLine(l line, focused bool) string {
	if l.id == "" {
		head := fmt.Sprintf("─ level %d · %d ", l.level, l.count)
		if m.cycle {
			head = "─ unordered (cycle) "
		}
		return m.th.Dim.Render(head + strings.Repeat(m.th.Frame.Top, max(0, m.w-layout.Width(head))))
	}
	mark, mp := "  ", styles.Style{}
	switch {
	case l.id == m.sel:
		mark = "▶ "
	case m.up[l.id]:
		mark, mp = "↑ ", m.th.Upstream
	case m.down[l.id]:
		mark, mp = "↓ ", m.th.Downstream
	}
	sp := m.th.State(l.state)
	var b strings.Builder
	b.WriteString(mp.Render(mark))
	b.WriteString(sp.Render(l.state.Glyph() + " " + l.id))
	if l.agent != "" {
		b.WriteString(m.th.Accent.Render(" @" + l.agent))
	}
	if len(l.deps) > 0 || len(l.blocks) > 0 {
		b.WriteString(m.th.Dim.Render(" ←"))
		for i, d := range l.deps {
			b.WriteString(m.dep(d, i == 0))
		}
		for i, d := range l.blocks {
			b.WriteString(m.dep("⊘"+d, i == 0 && len(l.deps) == 0))
		}
	}
	s := b.String()
	if l.id == m.sel {
		p := m.th.SelectedBlur
		if focused {
			p = m.th.Selected
		}
		return p.Render(layout.Fit(ansi.Strip(s), m.w))
	}
	return s
}

// dep paints one name after "←": on the selected node's path it takes the
// upstream colour, so the edges into the selection stand out.
func (m *Model) dep(name string, first bool) string {
	sep := ", "
	if first {
		sep = " "
	}
	id := strings.TrimPrefix(name, "⊘")
	p := m.th.Dim
	if m.up[id] || id == m.sel {
		p = m.th.Upstream
	}
	return m.th.Dim.Render(sep) + p.Render(name)
}
