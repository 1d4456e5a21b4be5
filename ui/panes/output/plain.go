// Package output is the output pane: a run's output as lines, live while it
// runs. Plain logs take a cheap path (SGR colours kept, \r progress lines
// collapsed, erase-in-line applied, every other escape sequence dropped);
// output that moves the cursor or switches screens goes through a terminal
// emulator (x/vt). Either way no raw escape sequence, C1 control or bidi
// character from a command reaches the user's terminal.
package output

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"

	"github.com/flowdeck/flowdeck/termtext"
)

// MaxLineBytes bounds one line the pane keeps: the rest of a longer line is
// counted, not kept, so a 50 MB line costs what a 64 KiB one does. The store
// keeps everything; `flowdeck show` prints it.
const MaxLineBytes = 64 << 10

// maxSGR bounds the SGR state carried from line to line.
const maxSGR = 512

// Parser turns raw output into lines incrementally. A command owns it while
// feeding it (it is handed back in a message), so it needs no lock. The zero
// value is ready to use. Every Feed consumes all its bytes: sequences cut by
// a chunk boundary live on in the escape parser's state, never as a buffer
// that grows.
type Parser struct {
	st      *lineState
	Emulate bool // the output moves the cursor: it needs the emulator
}

type lineState struct {
	ap     *ansi.Parser
	cur    []byte // the line being built, with its SGR sequences
	plain  []byte // the same without escapes, for overwrites and search
	cr     bool   // a \r was seen: the next text overwrites the line
	tail   string // after a \r: what the new text has not overwritten yet
	sgr    string // the SGR state at the end of the last line, re-opened on the next
	over   int64  // bytes of the current line beyond MaxLineBytes, dropped
	pendC1 byte   // a C1 control in UTF-8 form, fed on as the raw byte
	out    []Line
	emu    bool
}

// Line is one finished line: the text to draw (SGR only) and its plain form.
type Line struct {
	Text, Plain string
}

func (p *Parser) state() *lineState {
	if p.st == nil {
		s := &lineState{ap: ansi.NewParser()}
		s.ap.SetDataSize(1) // string payloads (OSC, DCS …) are never used
		s.ap.SetHandler(ansi.Handler{
			Print:     s.print,
			Execute:   s.execute,
			HandleCsi: s.csi,
			HandleEsc: s.esc,
		})
		p.st = s
	}
	return p.st
}

// Feed parses data and returns the lines it finished.
func (p *Parser) Feed(data []byte) []Line {
	s := p.state()
	s.out = nil
	for i := 0; i < len(data); {
		switch s.ap.State() {
		case parser.GroundState:
			if n := termtext.SafeRun(data[i:]); n > 0 {
				s.text(data[i : i+n])
				i += n
				continue
			}
		case parser.OscStringState, parser.DcsStringState:
			// A string's payload is skipped without the parser; an
			// unterminated one costs nothing however long it runs.
			for i < len(data) && !stringEnd(data[i]) {
				i++
			}
			if i == len(data) {
				continue
			}
		case parser.Utf8State:
			if c := data[i]; c < 0x80 || c >= 0xc0 {
				s.text([]byte("\uFFFD")) // a cut UTF-8 character
				s.ap.Reset()
			}
		}
		s.advance(data[i])
		i++
	}
	p.Emulate = p.Emulate || s.emu
	return s.out
}

func stringEnd(c byte) bool {
	switch c {
	case 0x07, '\n', 0x18, 0x1a, 0x1b, 0x9c:
		return true
	}
	return false
}

func (s *lineState) advance(c byte) {
	if c == '\n' && s.ap.State() != parser.GroundState {
		// A line end ends any unfinished sequence, so one stray OSC, DCS
		// or CSI cannot hide or eat the rest of the output.
		s.ap.Reset()
	}
	s.ap.Advance(c)
	if c1 := s.pendC1; c1 != 0 {
		s.pendC1 = 0
		s.ap.Advance(c1)
	}
}

func (s *lineState) print(r rune) {
	switch {
	case termtext.IsC1(r):
		s.pendC1 = byte(r)
	case termtext.IsBidi(r), r < 0x20, r == 0x7f:
	default:
		s.text(utf8.AppendRune(nil, r))
	}
}

func (s *lineState) execute(c byte) {
	switch c {
	case '\n':
		s.cr = false
		s.out = append(s.out, s.finish())
	case '\r':
		s.cr = true
	case '\b':
		if n := len(s.plain); n > 0 && s.over == 0 {
			_, sz := utf8.DecodeLastRune(s.plain)
			s.plain = s.plain[:n-sz]
			s.cur = append(s.cur, '\b') // resolved when the line is finished
		}
	case '\t':
		s.text([]byte(strings.Repeat(" ", 8-len(s.plain)%8)))
	}
}

// esc handles two-byte escapes: cursor save/restore and index move the
// cursor, so the output needs the emulator; the rest (charsets) is dropped.
func (s *lineState) esc(cmd ansi.Cmd) {
	if cmd.Intermediate() != 0 {
		return
	}
	switch cmd.Final() {
	case '7', '8', 'M', 'D', 'E':
		s.emu = true
	}
}

func (s *lineState) csi(cmd ansi.Cmd, params ansi.Params) {
	if cmd.Intermediate() != 0 {
		return
	}
	final := cmd.Final()
	if cmd.Prefix() != 0 {
		if cmd.Prefix() == '?' && (final == 'h' || final == 'l') {
			for _, prm := range params {
				switch prm.Param(0) {
				case 47, 1047, 1049:
					s.emu = true // the alternate screen
				}
			}
		}
		return
	}
	switch final {
	case 'm':
		seq := termtext.AppendSGR(nil, params)
		switch {
		case len(params) == 0 || len(params) == 1 && params[0].Param(0) == 0:
			s.sgr = ""
		case len(s.sgr)+len(seq) > maxSGR:
			s.sgr = string(seq) // a flood of attributes: keep the latest
		default:
			s.sgr += string(seq)
		}
		if s.over == 0 && len(s.cur) < 2*MaxLineBytes {
			s.cur = append(s.cur, seq...)
		}
	case 'K':
		s.eraseLine(params)
	case 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'f', 'J', 'S', 'T', 'd', 'r', 's', 'u':
		s.emu = true
	}
}

// eraseLine applies CSI K. The cursor is at the end of plain (after a \r:
// at column 0); tail is what lies right of it.
func (s *lineState) eraseLine(params ansi.Params) {
	mode := 0
	if len(params) > 0 {
		mode = params[0].Param(0)
	}
	if s.cr {
		// After \r the cursor is at column 0: the erase acts on the
		// whole old line, which becomes the text to the right.
		s.cr = false
		s.tail = string(s.plain) + s.tail
		s.restart()
	}
	switch mode {
	case 0: // cursor to end of line
		s.tail = ""
	case 1: // start of line to cursor: blanks where text was
		s.blankLeft()
	case 2: // the whole line; the cursor stays where it is
		s.tail = ""
		s.blankLeft()
	}
}

// blankLeft replaces the text left of the cursor with spaces.
func (s *lineState) blankLeft() {
	n := utf8.RuneCount(s.plain)
	s.restart()
	s.appendText([]byte(strings.Repeat(" ", n)))
}

// clear forgets everything: the next byte starts a new stream.
func (s *lineState) clear() {
	s.ap.Reset()
	s.cr, s.tail, s.sgr, s.pendC1, s.emu = false, "", "", 0, false
	s.restart()
}

// restart empties the line, re-opening the SGR state that carries over.
func (s *lineState) restart() {
	s.cur, s.plain, s.over = s.cur[:0], s.plain[:0], 0
	if s.sgr != "" {
		s.cur = append(s.cur, s.sgr...)
	}
}

// text appends printable bytes; after a \r they overwrite from column 0, as
// a terminal would, so a progress bar shows its last state.
func (s *lineState) text(b []byte) {
	if s.cr {
		s.cr = false
		s.tail = string(s.plain) + s.tail
		s.restart()
	}
	s.appendText(b)
	// The new text covers as many cells of the old line as it has runes.
	for n := utf8.RuneCount(b); n > 0 && s.tail != ""; n-- {
		_, sz := utf8.DecodeRuneInString(s.tail)
		s.tail = s.tail[sz:]
	}
}

// appendText keeps at most MaxLineBytes of a line and counts the rest.
func (s *lineState) appendText(b []byte) {
	if room := MaxLineBytes - len(s.plain); len(b) > room || s.over > 0 {
		room = max(room, 0)
		for room > 0 && room < len(b) && !utf8.RuneStart(b[room]) {
			room-- // do not cut a character in two
		}
		s.over += int64(len(b) - room)
		b = b[:room]
	}
	s.cur = append(s.cur, b...)
	s.plain = append(s.plain, b...)
}

// finish returns the current line and starts the next.
func (s *lineState) finish() Line {
	l := s.peek()
	s.tail = ""
	s.restart()
	return l
}

// peek renders the current line without consuming it.
func (s *lineState) peek() Line {
	cur, plain := string(s.cur), string(s.plain)
	// Blanks left of an erase are not output.
	if tail := strings.TrimRight(s.tail, " "); tail != "" {
		cur += tail
		plain += tail
	}
	if s.over > 0 {
		cut := " … [" + strconv.FormatInt(s.over, 10) + " more bytes on this line]"
		cur += cut
		plain += cut
	}
	if strings.IndexByte(cur, '\b') >= 0 {
		cur = resolveBackspaces(cur)
	}
	if s.sgr != "" || strings.Contains(cur, "\x1b[") {
		cur += "\x1b[m"
	}
	// Most lines have no escape sequence: one string serves as both, which
	// halves what a run of 250,000 lines holds.
	if cur == plain {
		plain = cur
	}
	return Line{Text: cur, Plain: plain}
}

// Flush returns the unfinished last line (a run still printing, or one that
// ended without a newline) without consuming it.
func (p *Parser) Flush() (Line, bool) {
	s := p.st
	if s == nil || len(s.plain) == 0 && s.tail == "" && s.over == 0 {
		return Line{}, false
	}
	return s.peek(), true
}

func resolveBackspaces(s string) string {
	var b []rune
	for _, r := range s {
		if r == '\b' {
			if len(b) > 0 {
				b = b[:len(b)-1]
			}
			continue
		}
		b = append(b, r)
	}
	return string(b)
}
