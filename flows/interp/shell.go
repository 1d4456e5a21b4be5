package interp

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellLangs are the readings a dialect's script must agree under.
func shellLangs(dialect string) []syntax.LangVariant {
	switch dialect {
	case "bash":
		return []syntax.LangVariant{syntax.LangBash}
	case "zsh":
		return []syntax.LangVariant{syntax.LangZsh}
	case "ksh":
		return []syntax.LangVariant{syntax.LangMirBSDKorn}
	}
	return []syntax.LangVariant{syntax.LangPOSIX, syntax.LangBash}
}

// shell interpolates a script for a shell dialect (sh, bash, zsh, ksh). Where each $var lands is decided by
// mvdan.cc/sh's parser, not by a hand-written tracker: a value is
// 'single-quoted' as an unquoted word, backslash-escaped inside "...",
// closed, escaped and reopened inside '...', hex-escaped inside $'...',
// escaped in an unquoted heredoc and inserted as it is in a quoted one.
// Arithmetic ($(( )), (( )), let, [[ -eq ]], subscripts, declare -i) takes
// integers only, because the shell evaluates whatever text lands there.
// Comments are left alone. A value that cannot be placed as data is an
// error, never a guess.
//
// sh is dash on some systems and bash on others, and they read some text
// differently ("(( x <<= 1 ))" is arithmetic to bash, a heredoc to dash):
// an sh script is placed only where the POSIX and the bash reading agree.
func shell(src string, vars map[string]any, dialect string) (string, error) {
	s, escaped := unescapeDollars(src)
	if !mentions(s, escaped, vars) {
		return s, nil // nothing to place: no need to understand the code
	}
	var edits []edit
	for i, lang := range shellLangs(dialect) {
		f, err := parseShell(s, lang)
		if err != nil {
			return "", err
		}
		w := &shellWalker{src: s, vars: vars, escaped: escaped, roots: map[syntax.Node]int{}, hdocs: map[*syntax.Word]*syntax.Redirect{},
			posix: lang == syntax.LangPOSIX, intNames: integerNames(f)}
		syntax.Walk(f, w.visit)
		if w.err != nil {
			return "", w.err
		}
		sort.Slice(w.edits, func(i, j int) bool { return w.edits[i].off < w.edits[j].off })
		if i == 0 {
			edits = w.edits
		} else if off, same := sameEdits(edits, w.edits); !same {
			return "", fmt.Errorf("line %d of the block: POSIX sh (dash) and bash read this script differently before this variable (bash-only syntax such as (( )) or $'...' in an sh block); write ```bash {exec}", lineAt(s, off))
		}
	}
	var b strings.Builder
	last := 0
	for _, e := range edits {
		b.WriteString(s[last:e.off])
		b.WriteString(e.text)
		last = e.off + e.n
	}
	b.WriteString(s[last:])
	return b.String(), nil
}

// sameEdits compares two readings' edits; when they differ it returns the
// offset of the first difference.
func sameEdits(a, b []edit) (int, bool) {
	for i := 0; i < len(a) || i < len(b); i++ {
		switch {
		case i >= len(a):
			return b[i].off, false
		case i >= len(b) || a[i] != b[i]:
			return a[i].off, false
		}
	}
	return 0, true
}

// CheckShell reports a shell block that the parser cannot read, with its
// line, so `flows check` refuses it before anything runs.
func CheckShell(src, dialect string) error {
	s, _ := unescapeDollars(src)
	for _, lang := range shellLangs(dialect) {
		if _, err := parseShell(s, lang); err != nil {
			return err
		}
	}
	return nil
}

// mentions reports whether s refers to any flow variable at all.
func mentions(s string, escaped map[int]bool, vars map[string]any) bool {
	for i := strings.IndexByte(s, '$'); i >= 0 && i < len(s); i++ {
		if s[i] == '$' && !escaped[i] {
			if _, _, ok := ref(s, i, vars); ok {
				return true
			}
		}
	}
	return false
}

// SyntaxError is a shell block the parser cannot read; Line counts from
// the block's first line.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("shell syntax error at line %d of the block: %s", e.Line, e.Msg)
}

func parseShell(s string, lang syntax.LangVariant) (*syntax.File, error) {
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(s), "")
	if err != nil {
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			return nil, &SyntaxError{Line: int(pe.Pos.Line()), Msg: pe.Text}
		}
		var le syntax.LangError
		if errors.As(err, &le) && lang == syntax.LangPOSIX {
			return nil, &SyntaxError{Line: int(le.Pos.Line()), Msg: le.Feature + " is not POSIX sh; write ```bash {exec} for bash"}
		}
		if errors.As(err, &le) {
			return nil, &SyntaxError{Line: int(le.Pos.Line()), Msg: fmt.Sprintf("%s is not supported in %s", le.Feature, lang)}
		}
		return nil, &SyntaxError{Line: 1, Msg: err.Error()}
	}
	return f, nil
}

// unescapeDollars turns every \$ into $ (a literal dollar for the shell,
// never a flow variable) and returns the offsets of those dollars.
func unescapeDollars(src string) (string, map[int]bool) {
	if !strings.Contains(src, `\$`) {
		return src, nil
	}
	var b strings.Builder
	escaped := map[int]bool{}
	for i := 0; i < len(src); i++ {
		if src[i] == '\\' && i+1 < len(src) && src[i+1] == '$' {
			escaped[b.Len()] = true
			b.WriteByte('$')
			i++
			continue
		}
		b.WriteByte(src[i])
	}
	return b.String(), escaped
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

// QuoteShell quotes s as one POSIX shell word (unchanged when it is safe;
// a leading - is quoted so that [[ ]] cannot read it as an operator).
func QuoteShell(s string) string {
	if s == "" || s[0] == '-' {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_./:@,+%", c) >= 0) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
