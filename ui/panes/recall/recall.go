// Package recall is the recall pane: a fuzzy search over every indexed line
// of output, updated on every keystroke, matched characters highlighted.
// The search itself (db.Store.Recall) runs in a command; the pane holds the
// query and the hits.
package recall

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/panes/scroll"
	"github.com/flowdeck/flowdeck/ui/styles"
)

// Model is the recall pane.
type Model struct {
	th      *styles.Styles
	input   textinput.Model
	editing bool
	query   string // the query the hits answer
	hits    []model.Hit
	err     string
	sc      scroll.State
	w, h    int
}

// New returns an empty pane.
func New(th *styles.Styles) *Model {
	in := textinput.New()
	in.Prompt = "recall: "
	in.Placeholder = "type to search all output"
	in.SetStyles(th.Input())
	return &Model{th: th, input: in}
}

// SetStyles changes the styles the pane draws with.
func (m *Model) SetStyles(th *styles.Styles) {
	m.th = th
	m.input.SetStyles(th.Input())
}

// Edit starts typing into the query.
func (m *Model) Edit() tea.Cmd { m.editing = true; return m.input.Focus() }

// StopEditing keeps the query and hits, and gives the keys back.
func (m *Model) StopEditing() { m.editing = false; m.input.Blur() }

// Editing reports whether keys go to the query.
func (m *Model) Editing() bool { return m.editing }

// Key edits the query; it returns the query when it changed.
func (m *Model) Key(k tea.KeyPressMsg) (string, bool, tea.Cmd) {
	before := m.input.Value()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	after := m.input.Value()
	return after, after != before, cmd
}

// Paste inserts pasted text.
func (m *Model) Paste(msg tea.PasteMsg) (string, tea.Cmd) {
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m.input.Value(), cmd
}

// Value is the query being typed.
func (m *Model) Value() string { return m.input.Value() }

// SetHits shows the answer to query (ignored when the query moved on).
func (m *Model) SetHits(query string, hits []model.Hit, err error) {
	if query != m.input.Value() {
		return
	}
	m.query, m.hits, m.err = query, hits, ""
	if err != nil {
		m.err = err.Error()
	}
	m.sc.SetLen(len(hits))
	m.sc.Top()
}

// Selected is the hit under the cursor, or nil.
func (m *Model) Selected() *model.Hit {
	if m.sc.Cursor < 0 || m.sc.Cursor >= len(m.hits) {
		return nil
	}
	return &m.hits[m.sc.Cursor]
}

// Navigation.
func (m *Model) Move(d int)   { m.sc.Move(d) }
func (m *Model) Page(dir int) { m.sc.Page(dir) }
func (m *Model) Top()         { m.sc.Top() }
func (m *Model) Bottom()      { m.sc.Bottom() }
func (m *Model) Scroll(d int) { m.sc.Scroll(d) }

// SetSize sets the content area: one row for the query, the rest for hits.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.input.SetWidth(max(1, w-10))
	m.sc.SetHeight(max(0, h-1))
}

// Footer is the hit count for the frame.
func (m *Model) Footer() string {
	if m.query == "" {
		return ""
	}
	return fmt.Sprintf(" %d hits ", len(m.hits))
}

// View paints the query row and the visible hits.
func (m *Model) View(focused bool) []string {
	out := []string{m.input.View()}
	switch {
	case m.err != "":
		out = append(out, m.th.Err.Render(" ✗ "+m.err))
	case m.query == "":
		out = append(out, m.th.Dim.Render(" type to search all output · enter opens the run at the line"))
	case len(m.hits) == 0:
		out = append(out, m.th.Dim.Render(" no line matches"))
	}
	from, to := m.sc.Window()
	for i := from; i < to && m.err == ""; i++ {
		out = append(out, m.row(&m.hits[i], i == m.sc.Cursor, focused))
	}
	return layout.PadLines(out, m.w, m.h)
}

func (m *Model) row(h *model.Hit, selected, focused bool) string {
	// The line number must survive the cut: it is where enter goes.
	suffix := fmt.Sprintf(":%d", h.Line)
	argv := model.ShellJoin(h.Argv)
	whereW := min(layout.Width(argv)+len(suffix), max(m.w*2/5, len(suffix)+4))
	where := layout.Cut(argv, whereW-len(suffix)) + suffix
	marker := " "
	if selected {
		marker = "›"
	}
	text := strings.ReplaceAll(h.Text, "\t", " ")
	body := m.highlight(layout.Cut(text, max(1, m.w-whereW-3)), h.Matched)
	line := marker + m.th.Dim.Render(layout.Fit(where, whereW)) + " " + body
	if selected && focused {
		return m.th.Selected.Render(layout.Fit(marker+layout.Fit(where, whereW)+" "+layout.Cut(text, max(1, m.w-whereW-3)), m.w))
	}
	return line
}

// highlight paints the matched bytes (offsets into the text).
func (m *Model) highlight(text string, matched []int) string {
	if len(matched) == 0 {
		return text
	}
	hit := make(map[int]bool, len(matched))
	for _, i := range matched {
		hit[i] = true
	}
	var b strings.Builder
	for i, r := range text {
		if hit[i] {
			b.WriteString(m.th.Match.Render(string(r)))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
