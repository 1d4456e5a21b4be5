package interp

import (
	"fmt"
	"strings"
)

// shell quoting contexts
const (
	shUnquoted = iota // top level, inside $( ) or ` `
	shDouble          // "..."
	shSingle          // '...'
	shANSI            // $'...'
)

type shFrame struct {
	kind  int
	close byte // ')' for $( ), '`' for backticks, 0 at top level
	depth int  // open plain parentheses inside $( )
}

type heredoc struct {
	delim  string
	quoted bool // <<'EOF': the shell expands nothing in the body
	strip  bool // <<-: leading tabs are stripped
}

// Shell interpolates a shell script. Each value is quoted for the context
// it lands in: 'single-quoted' when unquoted, backslash-escaped inside
// "...", closed, escaped and reopened inside '...', escaped in heredocs;
// comments are left alone.
func Shell(src string, vars map[string]any) (string, error) {
	var b strings.Builder
	stack := []shFrame{{kind: shUnquoted}}
	var pending []heredoc
	wordStart := true
	for i := 0; i < len(src); {
		top := &stack[len(stack)-1]
		c := src[i]
		if c == '\\' && i+1 < len(src) && src[i+1] == '$' {
			b.WriteByte('$')
			i += 2
			wordStart = false
			continue
		}
		if c == '$' {
			if v, n, ok := ref(src, i, vars); ok {
				q := shellQuote(top.kind, shellString(v))
				for _, f := range stack {
					if f.close == '`' {
						// Old-style command substitution removes one level
						// of backslashes before its command is parsed.
						q = backtickEscape.Replace(q)
					}
				}
				b.WriteString(q)
				i += n
				wordStart = false
				continue
			}
		}
		switch top.kind {
		case shSingle:
			b.WriteByte(c)
			i++
			if c == '\'' {
				stack = stack[:len(stack)-1]
			}
			continue
		case shANSI:
			if c == '\\' && i+1 < len(src) {
				b.WriteString(src[i : i+2])
				i += 2
				continue
			}
			b.WriteByte(c)
			i++
			if c == '\'' {
				stack = stack[:len(stack)-1]
			}
			continue
		case shDouble:
			switch {
			case c == '\\' && i+1 < len(src):
				b.WriteString(src[i : i+2])
				i += 2
			case c == '"':
				b.WriteByte(c)
				i++
				stack = stack[:len(stack)-1]
			case strings.HasPrefix(src[i:], "$("):
				b.WriteString("$(")
				i += 2
				stack = append(stack, shFrame{kind: shUnquoted, close: ')'})
				wordStart = true
			case c == '`':
				b.WriteByte(c)
				i++
				stack = append(stack, shFrame{kind: shUnquoted, close: '`'})
				wordStart = true
			default:
				b.WriteByte(c)
				i++
			}
			continue
		}
		// Unquoted: top level, $( ) or backticks.
		switch {
		case c == '\\' && i+1 < len(src):
			b.WriteString(src[i : i+2])
			i += 2
			wordStart = false
		case c == '\'':
			b.WriteByte(c)
			i++
			stack = append(stack, shFrame{kind: shSingle})
			wordStart = false
		case c == '"':
			b.WriteByte(c)
			i++
			stack = append(stack, shFrame{kind: shDouble})
			wordStart = false
		case strings.HasPrefix(src[i:], "$'"):
			b.WriteString("$'")
			i += 2
			stack = append(stack, shFrame{kind: shANSI})
			wordStart = false
		case strings.HasPrefix(src[i:], "$(") || strings.HasPrefix(src[i:], "<(") || strings.HasPrefix(src[i:], ">("):
			b.WriteString(src[i : i+2])
			i += 2
			stack = append(stack, shFrame{kind: shUnquoted, close: ')'})
			wordStart = true
		case c == '(' && top.close == ')':
			top.depth++
			b.WriteByte(c)
			i++
			wordStart = true
		case c == ')' && top.close == ')':
			b.WriteByte(c)
			i++
			if top.depth > 0 {
				top.depth--
			} else {
				stack = stack[:len(stack)-1]
			}
			wordStart = false
		case c == '`':
			b.WriteByte(c)
			i++
			if top.close == '`' {
				stack = stack[:len(stack)-1]
			} else {
				stack = append(stack, shFrame{kind: shUnquoted, close: '`'})
			}
			wordStart = true
		case c == '#' && wordStart:
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			b.WriteString(src[i : i+j])
			i += j
		case strings.HasPrefix(src[i:], "<<") && !strings.HasPrefix(src[i:], "<<<"):
			h, n := readHeredocOp(src[i:])
			b.WriteString(src[i : i+n])
			i += n
			if h != nil {
				pending = append(pending, *h)
			}
			wordStart = false
		case c == '\n':
			b.WriteByte(c)
			i++
			wordStart = true
			for _, h := range pending {
				n, err := heredocBody(&b, src[i:], h, vars)
				if err != nil {
					return "", err
				}
				i += n
			}
			pending = nil
		default:
			b.WriteByte(c)
			i++
			wordStart = strings.IndexByte(" \t;&|()", c) >= 0
		}
	}
	return b.String(), nil
}

// readHeredocOp reads "<<[-] WORD" and returns the heredoc and the bytes
// consumed (just "<<" when no word follows).
func readHeredocOp(s string) (*heredoc, int) {
	i := 2
	h := &heredoc{}
	if i < len(s) && s[i] == '-' {
		h.strip = true
		i++
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	var delim strings.Builder
	for i < len(s) && strings.IndexByte(" \t\n;&|<>()", s[i]) < 0 {
		switch s[i] {
		case '\'', '"':
			h.quoted = true
			q := s[i]
			i++
			for i < len(s) && s[i] != q {
				delim.WriteByte(s[i])
				i++
			}
			i++
		case '\\':
			h.quoted = true
			i++
			if i < len(s) {
				delim.WriteByte(s[i])
				i++
			}
		default:
			delim.WriteByte(s[i])
			i++
		}
	}
	if delim.Len() == 0 {
		return nil, 2
	}
	h.delim = delim.String()
	return h, min(i, len(s))
}

// heredocBody copies one heredoc body (through its delimiter line),
// interpolating values for it, and returns the bytes consumed.
func heredocBody(b *strings.Builder, s string, h heredoc, vars map[string]any) (int, error) {
	i := 0
	for i < len(s) {
		j := strings.IndexByte(s[i:], '\n')
		line := s[i:]
		if j >= 0 {
			line = s[i : i+j+1]
		}
		check := strings.TrimSuffix(line, "\n")
		if h.strip {
			check = strings.TrimLeft(check, "\t")
		}
		if check == h.delim {
			b.WriteString(line)
			return i + len(line), nil
		}
		var out strings.Builder
		for k := 0; k < len(line); k++ {
			if line[k] == '\\' && k+1 < len(line) && line[k+1] == '$' {
				out.WriteByte('$')
				k++
				continue
			}
			if line[k] == '$' {
				if v, n, ok := ref(line, k, vars); ok {
					val := shellString(v)
					for _, l := range strings.Split(val, "\n") {
						if l == h.delim || h.strip && strings.TrimLeft(l, "\t") == h.delim {
							return 0, fmt.Errorf("a value holds the line %q that would end the heredoc early", h.delim)
						}
					}
					if !h.quoted {
						val = escapeDouble(val, false)
					}
					out.WriteString(val)
					k += n - 1
					continue
				}
			}
			out.WriteByte(line[k])
		}
		b.WriteString(out.String())
		i += len(line)
	}
	return i, nil
}

var backtickEscape = strings.NewReplacer(`\`, `\\`, "`", "\\`", `$`, `\$`)

// shellString is a value as a shell sees it: strings as they are, nil as
// nothing, anything else as JSON.
func shellString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return JSON(v)
}

func shellQuote(kind int, s string) string {
	switch kind {
	case shDouble:
		return escapeDouble(s, true)
	case shSingle:
		return strings.ReplaceAll(s, "'", `'\''`)
	case shANSI:
		return strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s)
	}
	return QuoteShell(s)
}

// escapeDouble escapes what a shell expands inside "..." (and in an
// unquoted heredoc, where " is literal).
func escapeDouble(s string, quote bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '$', '`':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '"':
			if quote {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// QuoteShell quotes s as one POSIX shell word (unchanged when it is safe).
func QuoteShell(s string) string {
	if s == "" {
		return "''"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_./:@,+%", c) >= 0) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
