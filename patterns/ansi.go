package patterns

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi/parser"

	"github.com/flowdeck/flowdeck/termtext"
)

// replacement is U+FFFD, written in place of bytes that are not UTF-8 so
// that classified text is always valid UTF-8 and no raw 8-bit C1 byte can
// reach a terminal that would execute it.
const replacement = "\uFFFD"

// splitter turns a raw pty byte stream into clean text lines. It removes
// escape sequences and control characters, maps \r\n to \n, lets a lone \r
// restart the line (progress bars), and replaces invalid UTF-8. It keeps
// at most maxLine bytes of a line and counts the rest, so a single huge
// line costs bounded memory. State survives across writes: sequences and
// UTF-8 characters may be split anywhere. Where a sequence ends is x/ansi's
// VT500 state table's to say (driven by termtext, which keeps x/ansi's
// heavy root package out of flowdeck-cli); text and lines are the splitter's own.
type splitter struct {
	// seq is the escape-sequence parser. Its zero value is ready and
	// keeps no parameters or string data: the splitter only needs to
	// know where each sequence ends, never what it says.
	seq     termtext.Seq
	strC2   bool // inside a string, the previous byte was 0xC2 (UTF-8 lead of C1 ST)
	cr      bool // a \r is pending: the next printable byte restarts the line
	pend    [utf8.UTFMax]byte
	npend   int
	line    []byte
	maxLine int   // < 0: unlimited
	over    int64 // bytes dropped from the current line beyond maxLine
	partial bool  // the current line has content (or a dropped tail)
	emit    func(line []byte, dropped int64)
}

func (s *splitter) write(p []byte) {
	if s.npend > 0 {
		p = s.finishRune(p)
	}
	for len(p) > 0 {
		if s.inSequence() {
			p = s.control(p)
			continue
		}
		// Fast path: a run of printable ASCII goes to the line in one append.
		i := 0
		for i < len(p) && p[i] >= 0x20 && p[i] < 0x7f {
			i++
		}
		if i > 0 {
			s.text(p[:i])
			p = p[i:]
			continue
		}
		b := p[0]
		switch {
		case b == '\n':
			s.endLine()
			p = p[1:]
		case b == '\t':
			s.text(p[:1])
			p = p[1:]
		case b == '\r':
			s.cr = true
			p = p[1:]
		case b == 0x1b:
			s.seq.Advance(b)
			p = p[1:]
		case b < 0x80:
			p = p[1:] // other C0 controls and DEL: dropped
		default:
			p = s.runeAt(p)
		}
	}
}

// runeAt handles a non-ASCII byte in ground state.
func (s *splitter) runeAt(p []byte) []byte {
	if !utf8.FullRune(p) {
		// An incomplete sequence at the end of this write: keep it for the next.
		s.npend = copy(s.pend[:], p)
		return nil
	}
	r, n := utf8.DecodeRune(p)
	s.handleRune(r, p[:n])
	return p[n:]
}

// finishRune completes a UTF-8 sequence split across writes. When the
// pending bytes turn out invalid, the bytes after the first are scanned
// again, before p, exactly as if the write had not been split.
func (s *splitter) finishRune(p []byte) []byte {
	for s.npend > 0 {
		for s.npend < utf8.UTFMax && len(p) > 0 && !utf8.FullRune(s.pend[:s.npend]) {
			s.pend[s.npend] = p[0]
			s.npend++
			p = p[1:]
		}
		if !utf8.FullRune(s.pend[:s.npend]) {
			return p // still incomplete and p is used up: wait for more
		}
		var buf [utf8.UTFMax]byte
		m := copy(buf[:], s.pend[:s.npend])
		s.npend = 0
		r, n := utf8.DecodeRune(buf[:m])
		s.handleRune(r, buf[:n])
		if n < m {
			s.write(buf[n:m]) // may leave a new incomplete sequence: loop
		}
	}
	return p
}

func (s *splitter) handleRune(r rune, enc []byte) {
	switch {
	case r == utf8.RuneError && len(enc) == 1:
		s.text([]byte(replacement))
	case termtext.IsC1(r):
		// C1 controls in their UTF-8 form: CSI, OSC and the string
		// introducers start sequences; the rest are dropped.
		switch r {
		case 0x9b, 0x9d, 0x90, 0x98, 0x9e, 0x9f:
			s.seq.Advance(byte(r)) // the 8-bit introducer starts the same sequence
			s.strC2 = false
		}
	default:
		s.text(enc)
	}
}

func (s *splitter) inSequence() bool { return s.seq.State() != parser.GroundState }

// inString reports whether the parser is inside a string (OSC, DCS, SOS,
// PM, APC), whose payload runs to BEL or ST.
func (s *splitter) inString() bool {
	switch s.seq.State() {
	case parser.OscStringState, parser.DcsStringState, parser.SosStringState,
		parser.PmStringState, parser.ApcStringState:
		return true
	}
	return false
}

// control consumes bytes while inside an escape sequence. A newline ends
// any sequence (one stray OSC cannot hide the rest of a command's output);
// a non-ASCII byte ends any but a string and is text.
func (s *splitter) control(p []byte) []byte {
	for len(p) > 0 && s.inSequence() {
		if s.inString() {
			if p = s.skipString(p); len(p) == 0 {
				return p
			}
			switch c := p[0]; {
			case c == 0x1b:
				s.seq.Advance(c) // ends the string; ESC \ is ST
			case c == '\n':
				s.seq.Reset()
				return p // the newline still ends the line
			default: // BEL, CAN, SUB, the ST of C2 9C
				s.seq.Reset()
			}
			s.strC2 = false
			p = p[1:]
			continue
		}
		b := p[0]
		switch {
		case b == '\n' || b >= 0x80:
			s.seq.Reset()
			return p // handled as text or a line end
		case b == 0x1b && s.seq.State() == parser.DcsEntryState:
			// x/ansi would take ESC as DCS passthrough data; an empty
			// DCS ends here instead, and the ESC starts a sequence.
			s.seq.Reset()
			continue
		}
		s.seq.Advance(b)
		p = p[1:]
	}
	return p
}

// skipString drops a string's payload up to the first byte that can end
// it: BEL, ESC, \n, CAN, SUB or the UTF-8 C1 ST (C2 9C).
func (s *splitter) skipString(p []byte) []byte {
	i := 0
	for i < len(p) {
		c := p[i]
		if c == 0x07 || c == 0x1b || c == '\n' || c == 0x18 || c == 0x1a || (c == 0x9c && s.strC2) {
			break
		}
		s.strC2 = c == 0xc2
		i++
	}
	return p[i:]
}

// text appends printable bytes to the current line.
func (s *splitter) text(b []byte) {
	if s.cr {
		// A lone \r followed by text: the terminal would overwrite the
		// line, so the text so far is replaced (progress bars).
		s.cr = false
		s.line = s.line[:0]
		s.over = 0
	}
	s.partial = true
	if s.maxLine >= 0 && len(s.line)+len(b) > s.maxLine {
		room := s.maxLine - len(s.line)
		if room < 0 {
			room = 0
		}
		s.over += int64(len(b) - room)
		b = b[:room]
	}
	s.line = append(s.line, b...)
}

func (s *splitter) endLine() {
	s.cr = false
	s.emit(s.line, s.over)
	s.line = s.line[:0]
	s.over = 0
	s.partial = false
}

// flush ends the stream: a pending partial UTF-8 sequence becomes U+FFFD,
// an unterminated last line is emitted.
func (s *splitter) flush() {
	if s.npend > 0 {
		s.npend = 0
		if !s.inSequence() {
			s.text([]byte(replacement))
		}
	}
	s.seq.Reset()
	if s.partial {
		s.cr = false // "text\r" at the very end: nothing overwrote it
		s.endLine()
	}
}

// StripANSI returns b without terminal control sequences: CSI, OSC (BEL or
// ST terminated), DCS/SOS/PM/APC strings, two- and three-byte ESC
// sequences, C1 controls and every other control character except \n and
// \t. \r\n becomes \n; a lone \r starts the line over, as a terminal would
// overwrite it. Invalid UTF-8 becomes U+FFFD. The result is safe to print.
func StripANSI(b []byte) []byte {
	out := make([]byte, 0, len(b))
	s := splitter{maxLine: -1}
	s.emit = func(line []byte, _ int64) {
		out = append(out, line...)
		out = append(out, '\n')
	}
	s.write(b)
	// An unterminated last line stays unterminated.
	s.emit = func(line []byte, _ int64) { out = append(out, line...) }
	s.flush()
	return out
}
