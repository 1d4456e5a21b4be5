package patterns

import "unicode/utf8"

// Parser states for terminal control sequences (ECMA-48 / the VT500 parser,
// reduced to what is needed to drop sequences, never to execute them).
const (
	stGround   = iota
	stEsc      // after ESC
	stEscInter // ESC followed by intermediate bytes (ESC ( B, ESC # 8)
	stCSI      // ESC [ or C1 CSI: parameters and intermediates until a final byte
	stString   // OSC, DCS, SOS, PM, APC: until BEL or ST
	stStrEsc   // ESC seen inside a string: ESC \ is ST
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
// UTF-8 characters may be split anywhere.
type splitter struct {
	state   int
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
		if s.state != stGround {
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
			s.state = stEsc
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
	case r >= 0x80 && r <= 0x9f:
		// C1 controls in their UTF-8 form: CSI, OSC and the string
		// introducers start sequences; the rest are dropped.
		switch r {
		case 0x9b:
			s.state = stCSI
		case 0x9d, 0x90, 0x98, 0x9e, 0x9f:
			s.state = stString
			s.strC2 = false
		}
	default:
		s.text(enc)
	}
}

// control consumes bytes while inside an escape sequence.
func (s *splitter) control(p []byte) []byte {
	for len(p) > 0 && s.state != stGround {
		b := p[0]
		switch s.state {
		case stEsc, stEscInter:
			switch {
			case b == '[' && s.state == stEsc:
				s.state = stCSI
			case b == ']' && s.state == stEsc:
				s.state, s.strC2 = stString, false
			case (b == 'P' || b == 'X' || b == '^' || b == '_') && s.state == stEsc:
				s.state, s.strC2 = stString, false
			case b >= 0x20 && b <= 0x2f:
				s.state = stEscInter
			case b >= 0x30 && b <= 0x7e:
				s.state = stGround
			case b == 0x1b:
				s.state = stEsc
			case b == '\n' || b == 0x18 || b == 0x1a || b >= 0x80:
				// Abort; the byte is handled in ground state (a newline
				// still ends the line, a non-ASCII byte is text).
				s.state = stGround
				return p
			}
		case stCSI:
			switch {
			case b >= 0x20 && b <= 0x3f:
			case b >= 0x40 && b <= 0x7e:
				s.state = stGround
			case b == 0x1b:
				s.state = stEsc
			case b == '\n' || b == 0x18 || b == 0x1a || b >= 0x80:
				s.state = stGround
				return p
			}
		case stString:
			// Skip the payload quickly: only BEL, ESC, \n, CAN, SUB and
			// the UTF-8 C1 ST (C2 9C) can end a string.
			i := 0
			for i < len(p) {
				c := p[i]
				if c == 0x07 || c == 0x1b || c == '\n' || c == 0x18 || c == 0x1a || (c == 0x9c && s.strC2) {
					break
				}
				s.strC2 = c == 0xc2
				i++
			}
			p = p[i:]
			if len(p) == 0 {
				return p
			}
			switch c := p[0]; c {
			case 0x1b:
				s.state = stStrEsc
			case '\n':
				// An unterminated string ends at the line end, so one stray
				// OSC cannot hide the rest of a command's output.
				s.state = stGround
				return p
			default: // BEL, CAN, SUB, ST
				s.state = stGround
			}
		case stStrEsc:
			if b == '\\' {
				s.state = stGround
			} else {
				// ESC inside a string ends it and starts a new sequence.
				s.state = stEsc
				continue
			}
		}
		p = p[1:]
	}
	return p
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
		if s.state == stGround {
			s.text([]byte(replacement))
		}
	}
	s.state = stGround
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
