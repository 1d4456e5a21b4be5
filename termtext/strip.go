package termtext

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi/parser"
)

// Strip returns s without its escape sequences, read as a terminal's
// parser reads them: CSI, OSC, DCS, APC, PM, SOS and ESC sequences go, and
// so do C1 controls, obeyed in either encoding (U+009B starts a CSI as the
// byte 0x9B does). Text stays, and so do C0 controls other than ESC
// (newline, tab, \r, BEL …): what to do with them is the caller's choice.
// As in String, a newline ends an unfinished sequence, a cut UTF-8
// character becomes U+FFFD and other bytes that are not UTF-8 are dropped,
// so the result is valid UTF-8; unlike String, bidi characters (text)
// stay.
func Strip(s string) string {
	if stripPlain(s) {
		return s
	}
	return string(AppendStrip(nil, []byte(s)))
}

// stripPlain reports whether Strip leaves s as it is: no ESC, no C1
// control, valid UTF-8.
func stripPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == 0x1b {
			return false
		} else if c >= 0x80 {
			return stripPlainUTF8(s[i:])
		}
	}
	return true
}

func stripPlainUTF8(s string) bool {
	for _, r := range s {
		if r == 0x1b || r == utf8.RuneError || IsC1(r) {
			return false // a real U+FFFD is checked the slow way: harmless
		}
	}
	return true
}

// AppendStrip appends b with its escape sequences removed, as Strip does,
// to dst.
func AppendStrip(dst, b []byte) []byte {
	var p vt
	p.Reset()
	emit := func(ev event) {
		switch ev {
		case evPrint:
			dst = utf8.AppendRune(dst, p.r) // a decoding error is U+FFFD
		case evExecute:
			if p.c < 0x80 && p.c != 0x1b {
				dst = append(dst, p.c)
			}
		}
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch p.State() {
		case parser.GroundState:
			if n := SafeRun(b[i:]); n > 0 {
				dst = append(dst, b[i:i+n]...)
				i += n - 1
				continue
			}
		case parser.Utf8State:
			if c < 0x80 || c >= 0xc0 { // a cut character; c starts afresh
				dst = append(dst, replacement...)
				p.Reset()
			}
		default:
			if c == '\n' { // a stray introducer must not swallow the rest
				p.Reset()
			}
		}
		ev := p.Advance(c)
		if ev == evPrint && IsC1(p.r) {
			ev = p.Advance(byte(p.r)) // obeyed as the 8-bit control
		}
		emit(ev)
	}
	if p.State() == parser.Utf8State {
		dst = append(dst, replacement...)
	}
	return dst
}
