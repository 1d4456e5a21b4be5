// Package runs is the runs pane: every command run through flowdeck, newest
// first, with outcome, command, duration, feature and the classifier's
// summary. Selecting a run shows its output in the output pane.
package runs

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

// Model is the runs pane.
type Model struct {
	th   *styles.Styles
	recs []model.RunRecord
	sc   scroll.State
	w, h int
	// seenTop is the newest run when the person was last at the top; the
	// runs above it arrived since, and the footer counts them ("↑ N new").
	seenTop string
}

// New returns an empty pane.
func New(th *styles.Styles) *Model { return &Model{th: th} }

// SetStyles changes the styles the pane draws with.
func (m *Model) SetStyles(th *styles.Styles) { m.th = th }

// SetRuns replaces the list, keeping the selected run. When the newest run
// was selected, a newer one takes its place: the pane follows new runs
// unless the person picked an older one.
func (m *Model) SetRuns(recs []model.RunRecord) {
	sel := m.Selected()
	onNewest := m.sc.Cursor == 0
	m.recs = recs
	m.sc.SetLen(len(recs))
	if onNewest {
		m.sc.Top()
		m.markSeen()
		return
	}
	m.Select(sel)
}

// markSeen remembers the newest run as seen.
func (m *Model) markSeen() {
	if len(m.recs) > 0 {
		m.seenTop = m.recs[0].ID
	}
}

// New is how many runs arrived above the list since the person left the
// top (0 at the top).
func (m *Model) New() int {
	if m.sc.Cursor == 0 {
		return 0
	}
	for i := range m.recs {
		if m.recs[i].ID == m.seenTop {
			return i
		}
	}
	return 0
}

// Selected is the selected run's id.
func (m *Model) Selected() string {
	if r := m.SelectedRecord(); r != nil {
		return r.ID
	}
	return ""
}

// SelectedRecord is the selected run, or nil.
func (m *Model) SelectedRecord() *model.RunRecord {
	if m.sc.Cursor < 0 || m.sc.Cursor >= len(m.recs) {
		return nil
	}
	return &m.recs[m.sc.Cursor]
}

// Record finds a run by id.
func (m *Model) Record(id string) *model.RunRecord {
	for i := range m.recs {
		if m.recs[i].ID == id {
			return &m.recs[i]
		}
	}
	return nil
}

// Select moves to run id.
func (m *Model) Select(id string) bool {
	for i := range m.recs {
		if m.recs[i].ID == id {
			m.sc.Set(i)
			return true
		}
	}
	return false
}

// Running lists the runs still in progress, newest first.
func (m *Model) Running() []*model.RunRecord {
	var out []*model.RunRecord
	for i := range m.recs {
		if m.recs[i].Outcome == model.RunRunning {
			out = append(out, &m.recs[i])
		}
	}
	return out
}

// Newest is the start of the newest run shown (zero when there is none).
func (m *Model) Newest() time.Time {
	var t time.Time
	for i := range m.recs {
		if m.recs[i].Start.After(t) {
			t = m.recs[i].Start
		}
	}
	return t
}

// Len is the number of runs.
func (m *Model) Len() int { return len(m.recs) }

// Navigation.
func (m *Model) Move(d int)     { m.sc.Move(d); m.seenAtTop() }
func (m *Model) Page(dir int)   { m.sc.Page(dir); m.seenAtTop() }
func (m *Model) Top()           { m.sc.Top(); m.markSeen() }
func (m *Model) Bottom()        { m.sc.Bottom() }
func (m *Model) Scroll(d int)   { m.sc.Scroll(d) }
func (m *Model) ClickRow(y int) { m.sc.Set(m.sc.Offset + y) }

func (m *Model) seenAtTop() {
	if m.sc.Cursor == 0 {
		m.markSeen()
	}
}

// SetSize sets the content area.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.sc.SetHeight(h) }

// Footer is the position for the frame.
func (m *Model) Footer() string {
	if len(m.recs) == 0 {
		return ""
	}
	if n := m.New(); n > 0 {
		return fmt.Sprintf(" ↑ %d new ·", n) + layout.Position("run", m.sc.Cursor+1, len(m.recs))
	}
	return layout.Position("run", m.sc.Cursor+1, len(m.recs))
}

// View paints the visible rows in aligned columns: outcome, command,
// duration, then the summary (what passed or failed), feature and actor.
func (m *Model) View(focused bool) []string {
	if len(m.recs) == 0 {
		return layout.PadLines([]string{m.th.Dim.Render(" no runs yet: flowdeck run -- CMD, or v on a feature")}, m.w, m.h)
	}
	from, to := m.sc.Window()
	// The command column is as wide as the widest visible command, up to
	// two fifths of the row: the summary after it is what says how it went.
	cmdW := 8
	for i := from; i < to; i++ {
		cmdW = max(cmdW, layout.Width(model.CommandLine(m.recs[i].Argv)))
	}
	cmdW = min(cmdW, max(12, (m.w-3)*2/5))
	out := make([]string, 0, m.h)
	for i := from; i < to; i++ {
		out = append(out, m.row(&m.recs[i], cmdW, i == m.sc.Cursor, focused))
	}
	return layout.PadLines(out, m.w, m.h)
}

func (m *Model) row(r *model.RunRecord, cmdW int, selected, focused bool) string {
	glyph, paint := m.outcome(r)
	marker := " "
	if selected {
		marker = "›"
	}
	var b strings.Builder
	b.WriteString(marker + paint.Render(glyph) + " ")
	rest := m.w - 3
	cmdW = min(cmdW, max(1, rest))
	b.WriteString(layout.Fit(model.CommandLine(r.Argv), cmdW))
	rest -= cmdW
	const durW = 7
	if rest > durW+1 {
		b.WriteString(" " + m.th.Dim.Render(layout.Fit(duration(r), durW)))
		rest -= durW + 1
	}
	if rest > 4 {
		summary := r.Summary
		switch {
		case r.Outcome == model.RunRunning:
			summary = fmt.Sprintf("%d lines so far", r.Lines)
			if r.Lines == 1 {
				summary = "1 line so far"
			}
		case summary == "" && r.Outcome != "" && r.Outcome != "exited":
			summary = r.Outcome
		case summary == "" && r.ExitCode != 0:
			summary = fmt.Sprintf("exit %d", r.ExitCode)
		}
		var who []string
		for _, s := range []string{r.Feature, r.Actor} {
			if s != "" {
				who = append(who, s)
			}
		}
		tail := paint.Render(summary)
		if summary == "" {
			tail = ""
		}
		if len(who) > 0 {
			if tail != "" {
				tail += m.th.Dim.Render(" · ")
			}
			tail += m.th.Dim.Render(strings.Join(who, " · "))
		}
		b.WriteString(" " + layout.Cut(tail, rest-1))
	}
	line := b.String()
	if selected {
		p := m.th.SelectedBlur
		if focused {
			p = m.th.Selected
		}
		return p.Render(layout.Fit(stripped(line), m.w))
	}
	return line
}

// outcome is a run's glyph and paint: running, passed, failed, killed.
func (m *Model) outcome(r *model.RunRecord) (string, styles.Style) {
	switch r.Outcome {
	case model.RunRunning:
		return "⟳", m.th.State(model.StateInProgress)
	case "exited":
		if r.ExitCode == 0 {
			return "✓", m.th.Ok
		}
		return "✗", m.th.Err
	case "timeout":
		return "◷", m.th.Err // single-width on every terminal, unlike the emoji clocks
	case "oom", "pids":
		return "✗", m.th.Err
	case "cancelled":
		return "⊘", m.th.Dim
	case "start_failed":
		return "!", m.th.Err
	}
	if r.ExitCode != 0 {
		return "✗", m.th.Err
	}
	return "·", m.th.Dim
}

func duration(r *model.RunRecord) string {
	d := r.Duration
	if r.Outcome == model.RunRunning {
		return "running"
	}
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Truncate(time.Second).String()
}

func stripped(s string) string { return ansi.Strip(s) }
