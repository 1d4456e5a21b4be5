// Package output is the output pane: a run's output as lines, live while it
// runs. Plain logs take a cheap path (SGR colours kept, \r progress lines
// collapsed, every other escape sequence dropped); output that moves the
// cursor or switches screens goes through a terminal emulator (x/vt). Either
// way no raw escape sequence from a command reaches the user's terminal.
package output

import (
	"strings"
	"unicode/utf8"
)

// Parser turns raw output into lines incrementally. It is a value: a command
// copies it, feeds a chunk and hands back the new value, so parsing never
// runs in Update.
type Parser struct {
	cur     []byte // the line being built, with its SGR sequences
	plain   []byte // the same without escapes, for overwrites and search
	cr      bool   // a \r was seen: the next text overwrites the line
	tail    string // after a \r: what the new text has not overwritten yet
	esc     []byte // an escape sequence cut by the chunk boundary
	sgr     string // the SGR state at the end of the last line, re-opened on the next
	Emulate bool   // the output moves the cursor: it needs the emulator
}

// Line is one finished line: the text to draw (SGR only) and its plain form.
type Line struct {
	Text, Plain string
}

// Feed parses data and returns the lines it finished.
func (p *Parser) Feed(data []byte) []Line {
	var out []Line
	if len(p.esc) > 0 {
		data = append(p.esc, data...)
		p.esc = nil
	}
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '\n':
			p.cr = false
			out = append(out, p.finish())
			i++
		case c == '\r':
			p.cr = true
			i++
		case c == '\b':
			if n := len(p.plain); n > 0 {
				_, sz := utf8.DecodeLastRune(p.plain)
				p.plain = p.plain[:n-sz]
				p.cur = append(p.cur, '\b') // resolved when the line is finished
			}
			i++
		case c == '\t':
			p.text([]byte(strings.Repeat(" ", 8-len(p.plain)%8)))
			i++
		case c == 0x1b:
			n, complete := p.escape(data[i:])
			if !complete {
				p.esc = append([]byte(nil), data[i:]...)
				return out
			}
			i += n
		case c < 0x20 || c == 0x7f:
			i++ // other controls (BEL, …) have nothing to show
		default:
			j := i + 1
			for j < len(data) && data[j] >= 0x20 && data[j] != 0x7f && data[j] != 0x1b {
				j++
			}
			p.text(data[i:j])
			i = j
		}
	}
	return out
}

// Flush returns the unfinished last line (a run still printing, or one that
// ended without a newline) without consuming it.
func (p *Parser) Flush() (Line, bool) {
	if len(p.cur) == 0 && len(p.plain) == 0 {
		return Line{}, false
	}
	q := *p
	q.cur = append([]byte(nil), p.cur...)
	q.plain = append([]byte(nil), p.plain...)
	return q.finish(), true
}

// text appends printable bytes; after a \r they overwrite from column 0, as
// a terminal would, so a progress bar shows its last state.
func (p *Parser) text(b []byte) {
	if p.cr {
		p.cr = false
		p.tail = string(p.plain) + p.tail
		p.cur, p.plain = p.cur[:0], p.plain[:0]
		if p.sgr != "" {
			p.cur = append(p.cur, p.sgr...)
		}
	}
	p.cur = append(p.cur, b...)
	p.plain = append(p.plain, b...)
	// The new text covers as many cells of the old line as it has runes.
	for n := utf8.RuneCount(b); n > 0 && p.tail != ""; n-- {
		_, sz := utf8.DecodeRuneInString(p.tail)
		p.tail = p.tail[sz:]
	}
}

func (p *Parser) finish() Line {
	if p.tail != "" {
		p.cur = append(p.cur, p.tail...)
		p.plain = append(p.plain, p.tail...)
		p.tail = ""
	}
	text := string(p.cur)
	if strings.IndexByte(text, '\b') >= 0 {
		text = resolveBackspaces(text)
	}
	if p.sgr != "" || strings.Contains(text, "\x1b[") {
		text += "\x1b[m"
	}
	// Most lines have no escape sequence: one string serves as both, which
	// halves what a run of 250,000 lines holds.
	plain := text
	if text != string(p.plain) {
		plain = string(p.plain)
	}
	l := Line{Text: text, Plain: plain}
	p.cur, p.plain = p.cur[:0], p.plain[:0]
	if p.sgr != "" {
		p.cur = append(p.cur, p.sgr...)
	}
	return l
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

// escape consumes one escape sequence at the start of d. SGR is kept; cursor
// movement and screen switches mark the output for the emulator; the rest is
// dropped. complete is false when d ends inside the sequence.
func (p *Parser) escape(d []byte) (n int, complete bool) {
	if len(d) < 2 {
		return 0, false
	}
	switch d[1] {
	case '[': // CSI: parameters, intermediates, one final byte
		j := 2
		for j < len(d) && (d[j] < 0x40 || d[j] > 0x7e) {
			j++
		}
		if j >= len(d) {
			return 0, len(d) > 256 // a runaway sequence: give up on it
		}
		seq, final := d[:j+1], d[j]
		params := string(d[2:j])
		switch final {
		case 'm':
			if params == "" || params == "0" {
				p.sgr = ""
			} else {
				p.sgr += string(seq)
			}
			p.cur = append(p.cur, seq...)
		case 'K': // erase in line: a \r progress line's cleanup; nothing to keep
		case 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'f', 'J', 'S', 'T', 'd', 'r', 's', 'u':
			p.Emulate = true
		case 'h', 'l':
			if strings.HasPrefix(params, "?") && (strings.Contains(params, "1049") || strings.Contains(params, "47")) {
				p.Emulate = true
			}
		}
		return j + 1, true
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: up to BEL or ST
		for j := 2; j < len(d); j++ {
			if d[j] == 0x07 {
				return j + 1, true
			}
			if d[j] == 0x1b && j+1 < len(d) && d[j+1] == '\\' {
				return j + 2, true
			}
		}
		return 0, len(d) > 64*1024
	case '7', '8', 'M', 'D', 'E': // save/restore cursor, index: cursor movement
		p.Emulate = true
		return 2, true
	case '(', ')', '*', '+', '#', ' ':
		if len(d) < 3 {
			return 0, false
		}
		return 3, true
	}
	return 2, true
}
