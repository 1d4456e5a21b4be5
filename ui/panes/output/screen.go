package output

import (
	"io"
	"strings"

	"github.com/charmbracelet/x/vt"

	"github.com/flowdeck/flowdeck/termtext"
)

// Screen is a terminal emulator for output that moves the cursor: an agent's
// own TUI, multi-line progress. It is owned by one command at a time (the
// model hands it over in a message), so it needs no lock.
type Screen struct {
	emu *vt.Emulator
}

// NewScreen makes an emulator of the run's terminal size.
func NewScreen(cols, rows int) *Screen {
	e := vt.NewEmulator(cols, rows)
	e.SetScrollbackSize(20000)
	// The emulator answers queries (cursor position, …) on its read side;
	// nobody needs the answers, but unread they would block its writes.
	go func() { _, _ = io.Copy(io.Discard, e) }()
	return &Screen{emu: e}
}

// Feed writes raw output into the emulator.
func (s *Screen) Feed(b []byte) { _, _ = s.emu.Write(b) }

// Close stops the emulator's answer pipe, which ends the goroutine that
// drains it. Not emu.Close: that writes a flag the drain's Read reads
// without a lock (a data race in x/vt); closing the pipe's writer is
// synchronised by the pipe itself.
func (s *Screen) Close() {
	if c, ok := s.emu.InputPipe().(io.Closer); ok {
		_ = c.Close()
	}
}

// Snapshot returns the scrollback and the screen as lines. The emulator's own
// rendering is filtered once more so only SGR reaches the cockpit's frame.
// A full-screen program (alternate screen) shows its screen only.
func (s *Screen) Snapshot() []Line {
	var out []Line
	var p Parser // one parser, reset per row
	if !s.emu.IsAltScreen() {
		for _, l := range s.emu.Scrollback().Lines() {
			out = append(out, p.sanitize(l.Render()))
		}
	}
	rows := strings.Split(s.emu.Render(), "\n")
	// Trailing blank rows of the screen are not output.
	for len(rows) > 0 && strings.TrimSpace(p.sanitize(rows[len(rows)-1]).Plain) == "" {
		rows = rows[:len(rows)-1]
	}
	for _, r := range rows {
		out = append(out, p.sanitize(strings.TrimRight(r, "\r")))
	}
	return out
}

// sanitize keeps the SGR and text of one rendered row, nothing else.
func (p *Parser) sanitize(s string) Line {
	p.state().clear()
	ls := p.Feed([]byte(s))
	if l, ok := p.Flush(); ok {
		ls = append(ls, l)
	}
	if len(ls) == 0 {
		return Line{}
	}
	l := ls[0]
	l.Text = strings.TrimRight(l.Text, " ")
	l.Plain = strings.TrimRight(l.Plain, " ")
	return l
}

// Sanitize keeps the text and SGR sequences of s and drops every other
// escape sequence and control character: for text rendered elsewhere
// (glamour's hyperlinks) that must not reach the terminal as is.
func Sanitize(s string) string {
	if termtext.Safe(s) {
		return s
	}
	var p Parser
	return p.sanitize(s).Text
}
