// Package agents is the crew pane: one row per agent — its name, the feature
// it works on, its state (working, waiting for a review or a decision,
// paused, idle, failed), how long it has been so, and the last line its
// newest command printed. The rows come from Derive over what the cockpit
// loaded; the pane draws them and moves a cursor.
package agents

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/panes/scroll"
	"github.com/flowdeck/flowdeck/ui/styles"
)

// rowH is the lines an agent takes: its status line and its last output.
const rowH = 2

// Model is the agents pane.
type Model struct {
	th   *styles.Styles
	now  func() time.Time
	rows []Agent
	sc   scroll.State
	w, h int
	note string
	// head is the summary line (how many agents are in each state), drawn
	// when the rows, the size or the styles change rather than each frame.
	head string
}

// New returns an empty pane; now is the clock elapsed times are read on.
func New(th *styles.Styles, now func() time.Time) *Model {
	return &Model{th: th, now: now, note: "no agents yet"}
}

// SetStyles changes the styles the pane draws with.
func (m *Model) SetStyles(th *styles.Styles) {
	m.th = th
	m.head = m.summary()
}

// SetNote is what the pane says while it has no rows.
func (m *Model) SetNote(s string) { m.note = s }

// Set replaces the rows, keeping the selected agent.
func (m *Model) Set(rows []Agent) {
	sel, had := m.selectedName()
	m.rows = rows
	m.sc.SetLen(len(rows))
	m.head = m.summary()
	if had {
		m.Select(sel)
	}
}

// Rows are the rows shown.
func (m *Model) Rows() []Agent { return m.rows }

// SetLast sets the last output line of the agents whose newest run is run.
func (m *Model) SetLast(run, line string) {
	for i := range m.rows {
		if m.rows[i].Run == run {
			m.rows[i].Last = line
		}
	}
}

func (m *Model) selectedName() (string, bool) {
	if a := m.Selected(); a != nil {
		return a.Name, true
	}
	return "", false
}

// Selected is the agent under the cursor, or nil.
func (m *Model) Selected() *Agent {
	if m.sc.Cursor < 0 || m.sc.Cursor >= len(m.rows) {
		return nil
	}
	return &m.rows[m.sc.Cursor]
}

// Select moves the cursor to agent name.
func (m *Model) Select(name string) bool {
	for i := range m.rows {
		if m.rows[i].Name == name {
			m.sc.Set(i)
			return true
		}
	}
	return false
}

// Navigation.
func (m *Model) Move(d int)     { m.sc.Move(d) }
func (m *Model) Page(dir int)   { m.sc.Page(dir) }
func (m *Model) Top()           { m.sc.Top() }
func (m *Model) Bottom()        { m.sc.Bottom() }
func (m *Model) Scroll(d int)   { m.sc.Scroll(d) }
func (m *Model) ClickRow(y int) { m.sc.Set(m.sc.Offset + (y-1)/rowH) }

// SetSize sets the content area: a header line, then two lines an agent.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.sc.SetHeight(max(1, (h-1)/rowH))
	m.head = m.summary()
}

// Footer is the position for the frame.
func (m *Model) Footer() string {
	if len(m.rows) == 0 {
		return ""
	}
	return layout.Position("agent", m.sc.Cursor+1, len(m.rows))
}

// View paints the summary line and the visible agents.
func (m *Model) View(focused bool) []string {
	if len(m.rows) == 0 {
		return layout.PadLines([]string{m.th.Dim.Render(" " + m.note)}, m.w, m.h)
	}
	out := make([]string, 0, m.h)
	out = append(out, m.head)
	nameW, featW := 6, 7
	from, to := m.sc.Window()
	for i := from; i < to; i++ {
		nameW = max(nameW, layout.Width(name(m.rows[i].Name)))
		featW = max(featW, layout.Width(m.rows[i].Feature))
	}
	nameW, featW = min(nameW, 16), min(featW, 24)
	now := m.now()
	for i := from; i < to; i++ {
		out = append(out, m.rowLines(&m.rows[i], nameW, featW, now, i == m.sc.Cursor, focused)...)
	}
	return layout.PadLines(out, m.w, m.h)
}

// summary counts the agents by state, what waits for the person first.
func (m *Model) summary() string {
	c := map[State]int{}
	for _, r := range m.rows {
		c[r.State]++
	}
	var parts []string
	for _, st := range []State{WaitingReview, WaitingDecision, Failed, Paused, Working, Idle} {
		if n := c[st]; n > 0 {
			parts = append(parts, m.paint(st).Render(fmt.Sprintf("%d %s", n, st)))
		}
	}
	return layout.Fit(" "+strings.Join(parts, m.th.Dim.Render(" · ")), m.w)
}

func (m *Model) rowLines(a *Agent, nameW, featW int, now time.Time, selected, focused bool) []string {
	p := m.paint(a.State)
	marker := " "
	if selected {
		marker = "›"
	}
	feat := a.Feature
	if feat == "" {
		feat = "—"
	}
	head := marker + p.Render(glyph(a.State)) + " " + m.th.Bold.Render(layout.Fit(name(a.Name), nameW)) + " " +
		layout.Fit(feat, featW) + " " + p.Render(string(a.State))
	if !a.Since.IsZero() {
		head += m.th.Dim.Render(" " + Elapsed(now.Sub(a.Since)))
	}
	if a.Detail != "" {
		head += m.th.Dim.Render(" · " + a.Detail)
	}
	last := a.Last
	if last == "" && a.Run == "" {
		last = "no output yet"
	}
	tail := "   " + m.th.Dim.Render("│ ") + last
	if a.RunRunning {
		tail = "   " + m.th.State(model.StateInProgress).Render("⟳ ") + last
	}
	if selected {
		sp := m.th.SelectedBlur
		if focused {
			sp = m.th.Selected
		}
		return []string{sp.Render(layout.Fit(ansi.Strip(head), m.w)), layout.Fit(tail, m.w)}
	}
	return []string{layout.Fit(head, m.w), layout.Fit(tail, m.w)}
}

func name(n string) string {
	if n == "" {
		return "(unnamed)"
	}
	return n
}

func glyph(s State) string {
	switch s {
	case WaitingReview, WaitingDecision:
		return "⚑"
	case Failed:
		return "✗"
	case Paused:
		return "‖"
	case Working:
		return "⟳"
	}
	return "☾"
}

func (m *Model) paint(s State) styles.Style {
	switch s {
	case WaitingReview, WaitingDecision:
		return m.th.Attention
	case Failed:
		return m.th.Err
	case Paused:
		return m.th.Warn
	case Working:
		return m.th.State(model.StateInProgress)
	}
	return m.th.Dim
}

// Elapsed is a short duration: "40s", "3m", "2h05m". The cockpit's other
// durations (an agent idle since) use it too.
func Elapsed(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d.Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
