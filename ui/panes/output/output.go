package output

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/styles"
)

// Model is the output pane: lines (parsed or emulated elsewhere, in
// commands), a window on them, follow, wrap and search.
type Model struct {
	th       *styles.Styles
	run      string
	title    string
	lines    lineBlocks
	partial  *Line // the line the run is still printing
	emulated bool
	note     string

	follow bool
	wrap   bool
	top    int // first visible line
	sub    int // first visible row of that line when wrapped

	query   string
	matches []int // line numbers (0-based) holding the query, ascending
	mi      int
	scanned int // lines already searched

	dropped int // lines cut from the front to bound memory

	w, h int
}

// MaxLines bounds the lines the pane keeps for one run: a flood of output
// must not grow the cockpit without limit. The store keeps everything.
const MaxLines = 250_000

// New returns an empty pane.
func New(th *styles.Styles) *Model { return &Model{th: th, follow: true} }

// SetStyles changes the styles the pane draws with.
func (m *Model) SetStyles(th *styles.Styles) { m.th = th }

// Reset shows a new run (or none, with a note).
func (m *Model) Reset(run, title, note string) {
	*m = Model{th: m.th, run: run, title: title, note: note, follow: true, wrap: m.wrap, w: m.w, h: m.h, query: m.query}
}

// Run is the run shown.
func (m *Model) Run() string { return m.run }

// Title is the shown run's command, for the frame.
func (m *Model) Title() string { return m.title }

// SetNote shows a message when there are no lines.
func (m *Model) SetNote(s string) { m.note = s }

// Append adds finished lines and replaces the unfinished one.
func (m *Model) Append(lines []Line, partial *Line) {
	m.lines.Append(lines)
	m.partial = partial
	if cut := m.lines.Len() - MaxLines; cut > 0 {
		m.lines.DropFront(cut)
		m.dropped += cut
		m.top = max(0, m.top-cut)
		m.scanned = max(0, m.scanned-cut)
		kept := m.matches[:0]
		for _, l := range m.matches {
			if l >= cut {
				kept = append(kept, l-cut)
			}
		}
		m.matches, m.mi = kept, 0
	}
	m.scan()
	if m.follow {
		m.Bottom()
	}
}

// SetSnapshot replaces everything with an emulator's snapshot.
func (m *Model) SetSnapshot(lines []Line) {
	m.lines.Set(lines)
	m.partial, m.emulated = nil, true
	m.matches, m.scanned = nil, 0
	m.scan()
	if m.follow {
		m.Bottom()
	} else {
		m.clamp()
	}
}

// Emulated reports whether the lines come from the terminal emulator.
func (m *Model) Emulated() bool { return m.emulated }

// Len is the number of lines, the unfinished one included.
func (m *Model) Len() int {
	if m.partial != nil {
		return m.lines.Len() + 1
	}
	return m.lines.Len()
}

func (m *Model) line(i int) Line {
	if i == m.lines.Len() && m.partial != nil {
		return *m.partial
	}
	return *m.lines.At(i)
}

// SetSize sets the content area.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	if m.follow {
		m.Bottom()
	}
	m.clamp()
}

// ToggleFollow turns follow on (jumping to the end) or off.
func (m *Model) ToggleFollow() bool {
	m.follow = !m.follow
	if m.follow {
		m.Bottom()
	}
	return m.follow
}

// ToggleWrap turns wrapping on or off.
func (m *Model) ToggleWrap() bool {
	m.wrap = !m.wrap
	m.sub = 0
	if m.follow {
		m.Bottom()
	}
	return m.wrap
}

// Following and Wrapping report the modes.
func (m *Model) Following() bool { return m.follow }
func (m *Model) Wrapping() bool  { return m.wrap }

// rows is how many screen rows line i takes.
func (m *Model) rows(i int) int {
	if !m.wrap || m.w <= 0 {
		return 1
	}
	return max(1, (ansi.StringWidth(m.line(i).Plain)+m.w-1)/m.w)
}

// Move scrolls by d rows; scrolling up leaves follow mode, like less +F.
func (m *Model) Move(d int) {
	if d < 0 {
		m.follow = false
	}
	for ; d > 0; d-- {
		if m.sub+1 < m.rows(m.top) {
			m.sub++
		} else if m.top+1 < m.Len() {
			m.top, m.sub = m.top+1, 0
		}
	}
	for ; d < 0; d++ {
		if m.sub > 0 {
			m.sub--
		} else if m.top > 0 {
			m.top--
			m.sub = m.rows(m.top) - 1
		}
	}
	m.clamp()
}

// Page moves half a screen.
func (m *Model) Page(dir int) { m.Move(dir * max(1, m.h/2)) }

// Scroll is the mouse wheel.
func (m *Model) Scroll(d int) { m.Move(d) }

// Top goes to the first line.
func (m *Model) Top() { m.top, m.sub, m.follow = 0, 0, false }

// Bottom shows the last screenful.
func (m *Model) Bottom() {
	n := m.Len()
	if n == 0 {
		m.top, m.sub = 0, 0
		return
	}
	m.top, m.sub = n-1, m.rows(n-1)-1
	for used := 1; used < m.h; used++ {
		if m.sub > 0 {
			m.sub--
		} else if m.top > 0 {
			m.top--
			m.sub = m.rows(m.top) - 1
		} else {
			break
		}
	}
}

// GotoLine shows line n (1-based) at the top, leaving follow mode.
func (m *Model) GotoLine(n int) bool {
	n -= m.dropped
	if n < 1 || n > m.Len() {
		return false
	}
	m.follow = false
	m.top, m.sub = n-1, 0
	m.clamp()
	return true
}

func (m *Model) clamp() {
	if m.top >= m.Len() {
		m.top = max(0, m.Len()-1)
	}
	if m.top < 0 {
		m.top = 0
	}
	// Never leave empty screen below the last line when there is more above.
	if !m.wrap && m.Len()-m.top < m.h {
		m.top, m.sub = max(0, m.Len()-m.h), 0
	}
}

// SetSearch searches for q (case-insensitive) and jumps to the first match
// at or after the window. It returns the number of matches.
func (m *Model) SetSearch(q string) int {
	m.query = strings.ToLower(q)
	m.matches, m.scanned, m.mi = nil, 0, 0
	m.scan()
	if len(m.matches) > 0 {
		m.mi = 0
		for i, l := range m.matches {
			if l >= m.top {
				m.mi = i
				break
			}
		}
		m.show(m.matches[m.mi])
	}
	return len(m.matches)
}

// Next jumps to the next (dir 1) or previous (dir -1) match.
func (m *Model) Next(dir int) (int, int) {
	if len(m.matches) == 0 {
		return 0, 0
	}
	m.mi = (m.mi + dir + len(m.matches)) % len(m.matches)
	m.show(m.matches[m.mi])
	return m.mi + 1, len(m.matches)
}

// Query is the active search.
func (m *Model) Query() string { return m.query }

func (m *Model) show(line int) {
	m.follow = false
	m.top, m.sub = max(0, line-m.h/3), 0
	m.clamp()
}

// scan extends the match list over lines added since the last scan.
func (m *Model) scan() {
	if m.query == "" {
		return
	}
	for ; m.scanned < m.lines.Len(); m.scanned++ {
		if strings.Contains(strings.ToLower(m.lines.At(m.scanned).Plain), m.query) {
			m.matches = append(m.matches, m.scanned)
		}
	}
}

// Footer is the position and modes for the frame.
func (m *Model) Footer() string {
	var parts []string
	if m.Len() > 0 {
		parts = append(parts, fmt.Sprintf("line %d of %d", m.dropped+min(m.top+m.h, m.Len()), m.dropped+m.Len()))
	}
	if m.dropped > 0 {
		parts = append(parts, fmt.Sprintf("first %d not kept", m.dropped))
	}
	if m.emulated {
		parts = append(parts, "vt")
	}
	if m.follow {
		parts = append(parts, "follow")
	}
	if m.wrap {
		parts = append(parts, "wrap")
	}
	if m.query != "" {
		parts = append(parts, fmt.Sprintf("/%s %d", m.query, len(m.matches)))
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " · ") + " "
}

// View paints the visible rows only: nothing off screen is wrapped or
// highlighted.
func (m *Model) View() []string {
	if m.Len() == 0 {
		note := m.note
		if note == "" {
			note = "no output"
		}
		return layout.PadLines([]string{m.th.Dim.Render(" " + note)}, m.w, m.h)
	}
	out := make([]string, 0, m.h)
	for i, sub := m.top, m.sub; i < m.Len() && len(out) < m.h; i, sub = i+1, 0 {
		l := m.line(i)
		text := l.Text
		if m.query != "" && strings.Contains(strings.ToLower(l.Plain), m.query) {
			text = m.highlight(l.Plain)
		}
		if !m.wrap {
			out = append(out, text)
			continue
		}
		rows := strings.Split(ansi.Hardwrap(text, m.w, true), "\n")
		for _, r := range rows[min(sub, len(rows)-1):] {
			if len(out) == m.h {
				break
			}
			out = append(out, r)
		}
	}
	return layout.PadLines(out, m.w, m.h)
}

// highlight paints every occurrence of the query in a plain line.
func (m *Model) highlight(plain string) string {
	low := strings.ToLower(plain)
	if len(low) != len(plain) {
		return plain // case folding moved the bytes: show the line unmarked
	}
	var b strings.Builder
	for {
		i := strings.Index(low, m.query)
		if i < 0 || m.query == "" {
			b.WriteString(plain)
			return b.String()
		}
		b.WriteString(plain[:i])
		b.WriteString(m.th.Selected.Render(plain[i : i+len(m.query)]))
		plain, low = plain[i+len(m.query):], low[i+len(m.query):]
	}
}
