// Package textview is a scrolling view of lines that were rendered elsewhere
// (the detail pane's glamour output, placeholders). It never renders
// anything itself, so scrolling costs only slicing.
package textview

import (
	"fmt"

	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/styles"
)

// Model is a scrollable block of pre-rendered lines.
type Model struct {
	th      *styles.Styles
	lines   []string
	key     string // what the lines show; a new key scrolls to the top
	note    string // shown instead of lines when there are none
	pending bool
	off     int
	w, h    int
}

// New returns an empty view.
func New(th *styles.Styles) *Model { return &Model{th: th} }

// SetStyles changes the styles the pane draws with.
func (m *Model) SetStyles(th *styles.Styles) { m.th = th }

// SetLines shows lines; the scroll position is kept when key is unchanged
// (the same document re-rendered), reset otherwise.
func (m *Model) SetLines(key string, lines []string) {
	if key != m.key {
		m.off = 0
	}
	m.key, m.lines, m.pending = key, lines, false
	m.clamp()
}

// SetNote shows a one-line message (no content yet, a placeholder).
func (m *Model) SetNote(note string) { m.note = note }

// SetPending marks the content as being rendered; the old lines stay.
func (m *Model) SetPending(p bool) { m.pending = p }

// Key is what the view currently shows.
func (m *Model) Key() string { return m.key }

// Lines are the content lines.
func (m *Model) Lines() []string { return m.lines }

// SetSize sets the content area.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.clamp() }

// Navigation: a text view scrolls, it has no cursor.
func (m *Model) Move(d int)   { m.off += d; m.clamp() }
func (m *Model) Page(dir int) { m.Move(dir * max(1, m.h/2)) }
func (m *Model) Top()         { m.off = 0 }
func (m *Model) Bottom()      { m.off = len(m.lines); m.clamp() }
func (m *Model) Scroll(d int) { m.Move(d) }

func (m *Model) clamp() {
	m.off = min(m.off, max(0, len(m.lines)-m.h))
	m.off = max(m.off, 0)
}

// Footer is the scroll position for the frame.
func (m *Model) Footer() string {
	if m.pending {
		return " rendering… "
	}
	if len(m.lines) <= m.h {
		return ""
	}
	return fmt.Sprintf(" %d%% ", 100*(m.off+m.h)/len(m.lines))
}

// View returns exactly h lines of width w.
func (m *Model) View() []string {
	if len(m.lines) == 0 {
		note := m.note
		if m.pending {
			note = "rendering…"
		}
		return layout.PadLines([]string{m.th.Dim.Render(" " + note)}, m.w, m.h)
	}
	end := min(len(m.lines), m.off+m.h)
	return layout.PadLines(m.lines[m.off:end], m.w, m.h)
}
