package patterns

import (
	"bytes"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
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
	if overwrites(line) || !utf8.Valid(line) {
		scr := screenText(line)
		if red := r.rules.stateless(scr); !bytes.Equal(red, scr) {
			return red
		}
	}
	return r.rules.stateless(line)
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
			if r == utf8.RuneError && n <= 1 || r >= 0x80 && r <= 0x9f {
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
// removed by ansi.Strip, then every control character left (C0 but tab and
// newline, DEL, C1) dropped. Dropping rather than obeying \r and \b joins
// pieces a terminal would show apart, which can only find more.
func flatText(dst, line []byte) []byte {
	s := ansi.Strip(string(c1ToBytes(line)))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			if c := s[i]; c >= 0xa0 {
				dst = append(dst, c) // not UTF-8, but not a control either
			}
		case r < 0x20 && r != '\t' && r != '\n', r >= 0x7f && r <= 0x9f:
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return dst
}

// screenText is what a terminal shows of one line after \r returns to its
// start and \b steps back: later characters overwrite earlier ones, and a
// byte that is not UTF-8 (8-bit C1 included) is drawn as U+FFFD. One
// rune is one cell here; wide characters only make this view approximate,
// and flatText still sees every character.
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
	for _, r := range ansi.Strip(string(c1ToBytes(line))) {
		switch {
		case r == '\r':
			col = 0
		case r == '\b':
			col = max(col-1, 0)
		case r == '\t':
			for put(' '); col%8 != 0; {
				put(' ')
			}
		case r < 0x20, r >= 0x7f && r <= 0x9f:
		default:
			put(r) // utf8.RuneError for a byte that is not UTF-8
		}
	}
	return []byte(string(cells))
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
