package render

// Markdown for user text: what the docs do to text they did not write so
// that it shows literally, in its place (see the note at the top of
// docs.go).

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/flowdeck/flowdeck/termtext"
)

// cleanText strips from user text what must never reach a terminal or a
// renderer: ANSI escape sequences, C0 and C1 control characters, bidi
// overrides that can make text read differently than it is, and invalid
// UTF-8. Tabs become spaces and CR LF becomes LF; newlines stay only when
// keepNewlines is set, otherwise they become spaces.
func cleanText(s string, keepNewlines bool) string {
	if !needsCleaning(s) {
		return s
	}
	// termtext's parser removes escape sequences and C1 controls and
	// leaves valid UTF-8; the C0 controls it keeps the loop below drops.
	s = termtext.Strip(s)
	var b strings.Builder
	b.Grow(len(s))
	newline := func() {
		if keepNewlines {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			newline()
		case r == '\r':
			if !strings.HasPrefix(s[i+size:], "\n") {
				newline()
			}
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsCleaning(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f {
			return true
		}
	}
	return false
}

// mdText renders user text on one line, shown literally.
func mdText(s string) string {
	return escapeLine(strings.TrimSpace(cleanText(s, false)))
}

// mdHeading is mdText for an ATX heading, where trailing "#"s would be eaten.
func mdHeading(s string) string {
	t := mdText(s)
	if t == "" {
		return "Untitled"
	}
	if strings.HasSuffix(t, "#") {
		t = t[:len(t)-1] + `\#`
	}
	return t
}

// mdCell renders user text as a table cell: one line (newlines become <br>),
// with pipes escaped so it stays one cell.
func mdCell(s string) string {
	lines := strings.Split(strings.TrimSpace(cleanText(s, true)), "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, escapeLine(l))
		}
	}
	return strings.Join(out, "<br>")
}

// mdParagraph renders multi-line user text. Lines keep their breaks (as soft
// breaks) and blank lines separate paragraphs; every continuation line starts
// with indent so the text stays inside the list item it belongs to.
func mdParagraph(s, indent string) string {
	lines := strings.Split(strings.TrimSpace(cleanText(s, true)), "\n")
	var b strings.Builder
	blank := false
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			blank = true
			continue
		}
		if i > 0 {
			if blank {
				b.WriteByte('\n')
			}
			b.WriteByte('\n')
			b.WriteString(indent)
		}
		blank = false
		b.WriteString(escapeLine(l))
	}
	return b.String()
}

// escapeLine escapes one line of plain text so that markdown shows it
// literally: inline markup (emphasis, code, links, strikethrough, pipes,
// HTML, entities) and, at the start, block markers (headings, quotes, lists,
// setext underlines). Intra-word underscores stay, as snake_case is common
// and cannot start emphasis there.
func escapeLine(s string) string {
	if s == "" {
		return ""
	}
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s) + 8)
	switch rs[0] {
	case '#', '>', '-', '+', '=':
		b.WriteByte('\\')
	}
	for i, r := range rs {
		switch r {
		case '\\', '`', '*', '[', ']', '|', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '_':
			if i > 0 && i < len(rs)-1 && isWordRune(rs[i-1]) && isWordRune(rs[i+1]) {
				b.WriteByte('_')
			} else {
				b.WriteString(`\_`)
			}
		case '<':
			b.WriteString("&lt;")
		case '&':
			if entityAt(rs[i:]) {
				b.WriteString("&amp;")
			} else {
				b.WriteByte('&')
			}
		case '.', ')':
			// "1. text" at the start of a line would become a list.
			if orderedMarkerEnd(rs, i) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// orderedMarkerEnd reports whether rs[i] ends an ordered-list marker: 1 to 9
// digits at the start of the line, then this "." or ")", then a space or the end.
func orderedMarkerEnd(rs []rune, i int) bool {
	if i == 0 || i > 9 || (i+1 < len(rs) && rs[i+1] != ' ') {
		return false
	}
	for _, r := range rs[:i] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// entityAt reports whether rs starts with something a renderer would decode
// as an HTML entity, such as "&amp;" or "&#60;".
func entityAt(rs []rune) bool {
	for i := 1; i < len(rs) && i <= 32; i++ {
		r := rs[i]
		switch {
		case r == ';':
			return i > 1
		case r == '#' && i == 1, r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return false
}

// codeSpan renders text as an inline code span, on one line. The fence is one
// backtick longer than the longest run inside, so the text cannot close it.
func codeSpan(s string) string {
	s = strings.TrimSpace(cleanText(s, false))
	if s == "" {
		return none
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// codeCell is codeSpan for a table cell. GFM splits cells on unescaped pipes
// even inside code spans, so pipes are escaped; text with a backslash is shown
// as plain text instead, because "\|" inside a code span is ambiguous there.
func codeCell(s string) string {
	c := strings.TrimSpace(cleanText(s, false))
	if c == "" {
		return none
	}
	if strings.ContainsRune(c, '\\') {
		return mdCell(c)
	}
	return strings.ReplaceAll(codeSpan(c), "|", `\|`)
}

// codeBlock renders lines as a fenced code block whose fence no line can close.
func codeBlock(lang string, lines []string) string {
	var body []string
	for _, l := range lines {
		for _, part := range strings.Split(cleanText(l, true), "\n") {
			body = append(body, strings.TrimRight(part, " "))
		}
	}
	n := 3
	for _, l := range body {
		if r := longestRun(l, '`') + 1; r > n {
			n = r
		}
	}
	fence := strings.Repeat("`", n)
	return fence + lang + "\n" + strings.Join(body, "\n") + "\n" + fence + "\n"
}

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			if cur > best {
				best = cur
			}
		} else {
			cur = 0
		}
	}
	return best
}
