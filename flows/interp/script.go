package interp

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Code interpolates an exec block for its dialect: sh, bash, zsh, ksh,
// python, node, ruby or perl.
func Code(src, dialect string, vars map[string]any) (string, error) {
	switch dialect {
	case "sh", "", "bash", "zsh", "ksh":
		return shell(src, vars, dialect)
	}
	d, ok := dialects[dialect]
	if !ok {
		return "", fmt.Errorf("unknown dialect %q", dialect)
	}
	return d.interpolate(src, vars)
}

// strLit describes the string literal a value lands in.
type strLit struct {
	quote  string // ', ", `, ''' or """
	raw    bool   // python r'...'
	format bool   // python f'...'
	bytes  bool   // python b'...'
}

type scriptDialect struct {
	lineComment  []string
	blockComment [2]string
	quotes       string
	triple       bool // python's ''' and """
	prefixes     bool // python's r, b, f, u prefixes
	inString     func(lit strLit, s string) (string, error)
	literal      func(v any) string
}

var dialects = map[string]*scriptDialect{
	"python": {lineComment: []string{"#"}, quotes: `'"`, triple: true, prefixes: true, inString: pythonString, literal: pythonLiteral},
	"node":   {lineComment: []string{"//"}, blockComment: [2]string{"/*", "*/"}, quotes: "'\"`", inString: nodeString, literal: JSON},
	"ruby":   {lineComment: []string{"#"}, quotes: `'"`, inString: rubyString, literal: rubyLiteral},
	"perl":   {lineComment: []string{"#"}, quotes: `'"`, inString: perlString, literal: perlLiteral},
}

func (d *scriptDialect) interpolate(src string, vars map[string]any) (string, error) {
	var b strings.Builder
	var lit *strLit
	identStart := -1 // start of the identifier just written, for python prefixes
	for i := 0; i < len(src); {
		c := src[i]
		if c == '\\' && i+1 < len(src) && src[i+1] == '$' {
			b.WriteByte('$')
			i += 2
			continue
		}
		if c == '$' {
			if v, n, ok := ref(src, i, vars); ok {
				if lit != nil {
					s, err := d.inString(*lit, String(v))
					if err != nil {
						return "", err
					}
					b.WriteString(s)
				} else {
					b.WriteString(d.literal(v))
				}
				i += n
				identStart = -1
				continue
			}
		}
		if lit != nil {
			if c == '\\' && i+1 < len(src) {
				b.WriteString(src[i : i+2])
				i += 2
				continue
			}
			if strings.HasPrefix(src[i:], lit.quote) {
				b.WriteString(lit.quote)
				i += len(lit.quote)
				lit = nil
				continue
			}
			b.WriteByte(c)
			i++
			continue
		}
		if cm := d.comment(src[i:]); cm > 0 {
			b.WriteString(src[i : i+cm])
			i += cm
			identStart = -1
			continue
		}
		if strings.IndexByte(d.quotes, c) >= 0 {
			l := strLit{quote: string(c)}
			if d.triple && strings.HasPrefix(src[i:], strings.Repeat(string(c), 3)) {
				l.quote = strings.Repeat(string(c), 3)
			}
			if d.prefixes && identStart >= 0 {
				p := strings.ToLower(src[identStart:i])
				if len(p) <= 2 && strings.Trim(p, "rbfu") == "" {
					l.raw, l.format, l.bytes = strings.Contains(p, "r"), strings.Contains(p, "f"), strings.Contains(p, "b")
				}
			}
			b.WriteString(l.quote)
			i += len(l.quote)
			lit = &l
			identStart = -1
			continue
		}
		if isNameChar(c) {
			if identStart < 0 {
				identStart = i
			}
		} else {
			identStart = -1
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), nil
}

// comment returns the length of a comment starting at s, or 0.
func (d *scriptDialect) comment(s string) int {
	for _, lc := range d.lineComment {
		if strings.HasPrefix(s, lc) {
			if j := strings.IndexByte(s, '\n'); j >= 0 {
				return j
			}
			return len(s)
		}
	}
	if d.blockComment[0] != "" && strings.HasPrefix(s, d.blockComment[0]) {
		if j := strings.Index(s[2:], d.blockComment[1]); j >= 0 {
			return j + 2 + len(d.blockComment[1])
		}
		return len(s)
	}
	return 0
}

// escapeC writes s with C-style escapes for backslash, the quote characters
// and control characters; extra maps further bytes to their escapes.
func escapeC(s, quotes string, extra map[byte]string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r < 128 && strings.IndexByte(quotes, byte(r)) >= 0:
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 128 && extra[byte(r)] != "":
			b.WriteString(extra[byte(r)])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case (r == 0x2028 || r == 0x2029) && extra[0] != "":
			fmt.Fprintf(&b, `\u%04x`, r) // line terminators in older JavaScript
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func pythonString(l strLit, s string) (string, error) {
	if l.raw {
		if strings.ContainsAny(s, "\\\n\r"+l.quote[:1]) {
			return "", fmt.Errorf("cannot insert a value holding a backslash, quote or newline into a python raw string safely")
		}
		return s, nil
	}
	var extra map[byte]string
	if l.format {
		extra = map[byte]string{'{': "{{", '}': "}}"}
	}
	out := escapeC(s, `'"`, extra)
	if l.bytes {
		var b strings.Builder
		for i := 0; i < len(out); i++ {
			if out[i] >= 0x80 {
				fmt.Fprintf(&b, `\x%02x`, out[i])
			} else {
				b.WriteByte(out[i])
			}
		}
		out = b.String()
	}
	return out, nil
}

func nodeString(l strLit, s string) (string, error) {
	if l.quote == "`" {
		return escapeC(s, "`'\"", map[byte]string{'$': `\$`, 0: `\x00`}), nil
	}
	return escapeC(s, `'"`, map[byte]string{0: `\x00`}), nil
}

func rubyString(l strLit, s string) (string, error) {
	if l.quote == "'" {
		return strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s), nil
	}
	return escapeC(s, `"`, map[byte]string{'#': `\#`}), nil
}

func perlString(l strLit, s string) (string, error) {
	if l.quote == "'" {
		return strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s), nil
	}
	return escapeC(s, `"`, map[byte]string{'$': `\$`, '@': `\@`}), nil
}

// literal writes v as a literal with the dialect's spelling of null, true,
// false, lists and maps.
type literalStyle struct {
	null, yes, no  string
	str            func(string) string
	mapOpen, arrow string
}

func (st literalStyle) write(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString(st.null)
	case bool:
		if x {
			b.WriteString(st.yes)
		} else {
			b.WriteString(st.no)
		}
	case string:
		b.WriteString(st.str(x))
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			st.write(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString(st.mapOpen)
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(st.str(k))
			b.WriteString(st.arrow)
			st.write(b, x[k])
		}
		b.WriteByte('}')
	default:
		b.WriteString(st.str(JSON(v)))
	}
}

func (st literalStyle) literal(v any) string {
	var b strings.Builder
	st.write(&b, v)
	return b.String()
}

var (
	pythonStyle = literalStyle{null: "None", yes: "True", no: "False", mapOpen: "{", arrow: ": ",
		str: func(s string) string { return `"` + escapeC(s, `"`, nil) + `"` }}
	rubyStyle = literalStyle{null: "nil", yes: "true", no: "false", mapOpen: "{", arrow: " => ",
		str: func(s string) string { return `"` + escapeC(s, `"`, map[byte]string{'#': `\#`}) + `"` }}
	perlStyle = literalStyle{null: "undef", yes: "1", no: "0", mapOpen: "{", arrow: " => ",
		str: func(s string) string { return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'" }}
)

func pythonLiteral(v any) string { return pythonStyle.literal(v) }
func rubyLiteral(v any) string   { return rubyStyle.literal(v) }
func perlLiteral(v any) string   { return perlStyle.literal(v) }
