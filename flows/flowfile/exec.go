package flowfile

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/flowdeck/flowdeck/flows/interp"
)

// Argv is the command that runs code (already interpolated); file is the
// path the code was written to when ViaFile is set.
func (e *Exec) Argv(code, file string) []string {
	argv := append([]string(nil), e.Program...)
	if e.ViaFile {
		return append(argv, file)
	}
	return append(argv, code)
}

// interpreter is a known fence language.
type interpreter struct {
	program []string
	dialect string
}

var interpreters = map[string]interpreter{
	"sh":         {[]string{"sh", "-c"}, "sh"},
	"shell":      {[]string{"sh", "-c"}, "sh"},
	"bash":       {[]string{"bash", "-c"}, "bash"},
	"zsh":        {[]string{"zsh", "-c"}, "zsh"},
	"dash":       {[]string{"dash", "-c"}, "sh"},
	"ksh":        {[]string{"ksh", "-c"}, "ksh"},
	"python":     {[]string{"python3", "-c"}, "python"},
	"python3":    {[]string{"python3", "-c"}, "python"},
	"py":         {[]string{"python3", "-c"}, "python"},
	"node":       {[]string{"node", "-e"}, "node"},
	"js":         {[]string{"node", "-e"}, "node"},
	"javascript": {[]string{"node", "-e"}, "node"},
	"ruby":       {[]string{"ruby", "-e"}, "ruby"},
	"rb":         {[]string{"ruby", "-e"}, "ruby"},
	"perl":       {[]string{"perl", "-e"}, "perl"},
	"pl":         {[]string{"perl", "-e"}, "perl"},
}

// dialectOf names the quoting dialect of a program's base name
// (python3.12 → python), "" when unknown.
func dialectOf(program string) string {
	base := filepath.Base(program)
	if in, ok := interpreters[base]; ok {
		return in.dialect
	}
	for _, p := range []string{"python", "node", "ruby", "perl", "bash", "zsh", "dash", "ksh"} {
		if strings.HasPrefix(base, p) {
			return interpreters[p].dialect
		}
	}
	return ""
}

func isExec(info string) bool {
	m := attrInfo().FindStringSubmatch(info)
	if m == nil {
		return false
	}
	toks := strings.Fields(m[2])
	return len(toks) > 0 && (toks[0] == "exec" || strings.HasPrefix(toks[0], "exec="))
}

// exec parses the info string of an exec block: LANG {exec[=PROGRAM]
// [mode=MODE]}. PROGRAM may be quoted ("uv run python"); unquoted, it runs
// up to the next key=value word, so {exec=uv run python -c} works too.
func (p *parser) exec(fe *fence) *Exec {
	m := attrInfo().FindStringSubmatch(fe.info)
	ex := &Exec{Line: fe.line, Lang: m[1], Mode: "stdout", Code: strings.Join(fe.body, "\n")}
	program, ok := p.execAttrs(ex, m[2])
	if !ok {
		return nil
	}
	return p.execProgram(ex, program)
}

// execAttrs reads the attributes of {exec ...} into ex and returns the
// program exec= names (nil: the language's interpreter).
func (p *parser) execAttrs(ex *Exec, attrs string) ([]string, bool) {
	words, err := splitWords(attrs)
	if err != nil {
		p.errorf(ex.Line, "exec block: %v", err)
		return nil, false
	}
	var program []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		key, val, hasVal := strings.Cut(w.text, "=")
		switch key {
		case "exec":
			if !hasVal {
				continue
			}
			if w.quoted {
				ws, err := splitWords(val)
				if err != nil {
					p.errorf(ex.Line, "exec=%q: %v", val, err)
					return nil, false
				}
				for _, x := range ws {
					program = append(program, x.text)
				}
			} else {
				if val != "" {
					program = append(program, val)
				}
				for i+1 < len(words) && !strings.Contains(words[i+1].text, "=") {
					i++
					program = append(program, words[i].text)
				}
			}
			if len(program) == 0 {
				p.errorf(ex.Line, "exec= names no program")
				return nil, false
			}
		case "mode":
			switch val {
			case "stdout", "store", "none":
				ex.Mode = val
			default:
				p.errorf(ex.Line, "unknown exec mode %q (use stdout, store or none)", val)
			}
		default:
			p.errorf(ex.Line, "unknown exec attribute %q (known: exec, exec=PROGRAM, mode=stdout|store|none)", w.text)
		}
	}
	return program, true
}

// execProgram decides the argv of the block: the language's interpreter,
// or the named program with the code after its trailing flag (-c), after a
// known interpreter's inline flag, or in a file.
func (p *parser) execProgram(ex *Exec, program []string) *Exec {
	lang := strings.ToLower(ex.Lang)
	known, langKnown := interpreters[lang]
	switch {
	case len(program) == 0 && !langKnown:
		if ex.Lang == "" {
			p.errorf(ex.Line, "exec block names no language; write ```sh {exec} or {exec=PROGRAM}")
		} else {
			p.errorf(ex.Line, "unknown interpreter %q (known: sh, bash, zsh, python3, node, ruby, perl; or name one with exec=PROGRAM)", ex.Lang)
		}
		return nil
	case len(program) == 0:
		ex.Program, ex.Dialect = append([]string(nil), known.program...), known.dialect
		p.checkShell(ex)
		return ex
	}
	// An explicit program: the code follows its own trailing flag (-c);
	// a known interpreter gets its inline flag; anything else reads a file.
	last := program[len(program)-1]
	ex.Dialect = dialectOf(last)
	switch {
	case strings.HasPrefix(last, "-"):
		for i := len(program) - 1; i >= 0 && ex.Dialect == ""; i-- {
			ex.Dialect = dialectOf(program[i])
		}
	case ex.Dialect != "":
		program = append(program, inlineFlag(ex.Dialect))
	default:
		ex.ViaFile = true
	}
	if ex.Dialect == "" {
		if langKnown {
			ex.Dialect = known.dialect
		} else {
			ex.Dialect = "sh" // quoting for a shell is the safe default
			ex.Program = program
			return ex // not known to be shell: not checked as shell
		}
	}
	ex.Program = program
	p.checkShell(ex)
	return ex
}

// checkShell refuses a shell block that the interpolation's parser cannot
// read, at the line the parser stopped.
func (p *parser) checkShell(ex *Exec) {
	switch ex.Dialect {
	case "sh", "bash", "zsh", "ksh":
	default:
		return
	}
	err := interp.CheckShell(ex.Code, ex.Dialect)
	var se *interp.SyntaxError
	if errors.As(err, &se) {
		p.errorf(ex.Line+se.Line, "%s exec block: shell syntax error: %s", ex.Lang, se.Msg)
	}
}

func inlineFlag(dialect string) string {
	switch dialect {
	case "node", "ruby", "perl":
		return "-e"
	}
	return "-c"
}

type word struct {
	text   string
	quoted bool
}

// splitWords splits on blanks, honouring "double" and 'single' quotes.
func splitWords(s string) ([]word, error) {
	var out []word
	var cur strings.Builder
	in, quoted, have := byte(0), false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in != 0 && c == in:
			in = 0
		case in != 0:
			if c == '\\' && in == '"' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
				i++
				c = s[i]
			}
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			in, quoted, have = c, true, true
		case c == ' ' || c == '\t':
			if have {
				out = append(out, word{cur.String(), quoted})
				cur.Reset()
				quoted, have = false, false
			}
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if in != 0 {
		return nil, fmt.Errorf("unclosed %c quote", in)
	}
	if have {
		out = append(out, word{cur.String(), quoted})
	}
	return out, nil
}
