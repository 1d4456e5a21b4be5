package patterns

import (
	"bytes"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi/parser"

	"github.com/flowdeck/flowdeck/termtext"
)

// Line returns line with its secrets replaced by [REDACTED]. The line must
// not contain its newline.
//
// Secrets are looked for on the text a reader sees: escape sequences and
// control characters removed (so `AKIA\e[1m…` or a coloured password is
// found), and, when the line moves the cursor back with \r or \b or holds
// bytes that are not UTF-8, also on what the screen shows (overwrites
// applied, such bytes drawn as U+FFFD). When that text holds a secret, the
// result is the redacted text itself, without its escape sequences: what is
// kept cannot reassemble the secret whatever later strips or renders it.
// Otherwise the line keeps its colours, with secrets hidden inside escape
// sequences (an OSC 8 link's URL) redacted in place.
//
// When nothing is redacted the input slice itself is returned, so the
// common case costs no allocation.
func (r *Redactor) Line(line []byte) []byte {
	if plain(line) {
		return r.rules.stateless(r.key.apply(line))
	}
	flat := flatText(nil, line)
	if red := r.rules.stateless(r.key.apply(flat)); !bytes.Equal(red, flat) {
		return red
	}
	if screenDiffers(line) {
		scr := screenText(line)
		if red := r.rules.stateless(scr); !bytes.Equal(red, scr) {
			return red
		}
	}
	for _, v := range shownViews(line) {
		if red := r.rules.stateless(v); !bytes.Equal(red, v) {
			return red
		}
	}
	return r.rules.stateless(line)
}

// shownViews are the texts flowdeck's own renderers make of a line that is
// not plain: termtext.Bytes (the CLI's human output) and StripANSI (show,
// the recall index, a failure's detail). Their parsers read malformed
// sequences otherwise than scanText (a tab executed inside ESC, a raw C1
// introducer before a UTF-8 character), so they can join a secret that
// flatText and screenText see apart.
func shownViews(line []byte) [2][]byte {
	return [2][]byte{termtext.Bytes(line), StripANSI(line)}
}

// plain reports whether text is shown exactly as its bytes: no escape
// sequence, no control character other than tab and newline (and the \r of a
// pty's \r\n), only UTF-8 without C1 controls.
func plain(text []byte) bool {
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c >= 0x20 && c < 0x7f, c == '\t', c == '\n':
		case c == '\r' && (i+1 == len(text) || text[i+1] == '\n'):
		case c >= 0x80:
			r, n := utf8.DecodeRune(text[i:])
			if r == utf8.RuneError && n <= 1 || termtext.IsC1(r) {
				return false
			}
			i += n - 1
		default:
			return false
		}
	}
	return true
}

// overwrites reports whether text moves the cursor back within a line, so
// that what the screen shows differs from the text with controls removed.
func overwrites(text []byte) bool {
	for i, c := range text {
		if c == '\b' || c == '\r' && i+1 < len(text) && text[i+1] != '\n' {
			return true
		}
	}
	return false
}

// screenDiffers reports whether a terminal could show line otherwise than
// flatText reads it: it moves the cursor back, holds bytes that are not
// UTF-8, or C1 controls written as UTF-8, which some terminals ignore.
func screenDiffers(line []byte) bool {
	return overwrites(line) || !utf8.Valid(line) || hasC1(line)
}

// hasC1 reports whether text holds a C1 control written as UTF-8.
func hasC1(text []byte) bool {
	for i := bytes.IndexByte(text, 0xc2); i >= 0 && i+1 < len(text); {
		if text[i+1] >= 0x80 && text[i+1] <= 0x9f {
			return true
		}
		j := bytes.IndexByte(text[i+1:], 0xc2)
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// c1ToBytes rewrites C1 controls written as UTF-8 (U+0080–U+009F) as the
// single bytes ansi's parser reads as C1, since some terminals obey them in
// either form.
func c1ToBytes(line []byte) []byte {
	if !bytes.Contains(line, []byte{0xc2}) {
		return line
	}
	out := make([]byte, 0, len(line))
	for i := 0; i < len(line); i++ {
		if line[i] == 0xc2 && i+1 < len(line) && line[i+1] >= 0x80 && line[i+1] <= 0x9f {
			out = append(out, line[i+1])
			i++
			continue
		}
		out = append(out, line[i])
	}
	return out
}

// flatText appends to dst the printable text of line: escape sequences
// removed as x/ansi's parser reads them, C1 controls obeyed in either
// encoding, and every control character left but tab and newline dropped,
// with bytes that are not UTF-8. Dropping rather than obeying \r and \b
// joins pieces a terminal would show apart, which can only find more.
func flatText(dst, line []byte) []byte {
	return scanText(dst, c1ToBytes(line), false)
}

// screenText is what a terminal that does not obey C1 controls shows of
// one line: \r returns to the line's start and \b steps back, so later
// characters overwrite earlier ones; a byte that is not UTF-8 (an 8-bit
// C1 among them) is drawn as U+FFFD. One rune is one cell here; wide
// characters only make this view approximate, and flatText still sees
// every character.
func screenText(line []byte) []byte {
	var cells []rune
	col := 0
	put := func(r rune) {
		if col < len(cells) {
			cells[col] = r
		} else {
			cells = append(cells, r)
		}
		col++
	}
	for _, r := range string(scanText(nil, line, true)) {
		switch r {
		case '\r':
			col = 0
		case '\b':
			col = max(col-1, 0)
		case '\t':
			for put(' '); col%8 != 0; {
				put(' ')
			}
		default:
			put(r)
		}
	}
	return []byte(string(cells))
}

// scanText appends the text of line to dst, walking x/ansi's parser table
// (the state machine ansi.Strip uses) without its string copies. Tab and
// newline are kept; with screen also \r and \b, and a byte that is not
// UTF-8 becomes U+FFFD while a UTF-8 C1 control (U+0080–U+009F) is dropped.
func scanText(dst, line []byte, screen bool) []byte {
	state := parser.GroundState
	for i := 0; i < len(line); i++ {
		c := line[i]
		if state == parser.GroundState && c >= 0x20 && c < 0x7f {
			dst = append(dst, c)
			continue
		}
		if c >= 0x80 && (c >= 0xc2 && c <= 0xf4 || screen) {
			// A UTF-8 character ends any sequence, as x/ansi reads it.
			r, n := utf8.DecodeRune(line[i:])
			state = parser.GroundState
			switch {
			case r == utf8.RuneError && n <= 1:
				if screen {
					dst = append(dst, "\uFFFD"...)
				}
			case termtext.IsC1(r):
			default:
				dst = append(dst, line[i:i+n]...)
			}
			i += n - 1
			continue
		}
		next, act := parser.Table.Transition(state, c)
		switch act {
		case parser.PrintAction:
			dst = append(dst, c)
		case parser.ExecuteAction:
			if c == '\t' || c == '\n' || screen && (c == '\r' || c == '\b') {
				dst = append(dst, c)
			}
		}
		state = next
	}
	return dst
}

// Text returns a copy of text, any number of lines, with each line redacted
// as Line does, by a fresh stream state (a private key block may span its
// lines). r itself is not changed.
func (r *Redactor) Text(text []byte) []byte {
	c := r.Clone()
	lines := bytes.Split(text, []byte("\n"))
	for i, l := range lines {
		lines[i] = c.Line(l)
	}
	return bytes.Join(lines, []byte("\n"))
}
