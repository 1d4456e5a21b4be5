// Package flowfile parses literate flows: markdown files with `literate: true`
// frontmatter whose steps (split by `---` lines) carry a ```yaml {config}
// block, prose that becomes the step's prompt, and ```LANG {exec} blocks that
// run through the runner. The format follows literate-commands; Parse checks
// everything it can before a flow runs and reports every problem with its
// file and line.
package flowfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"flowdeck/config"
	"flowdeck/flows/cond"
	"flowdeck/flows/interp"
)

// DefaultMaxSteps is the loop guard: how many steps one run may execute.
const DefaultMaxSteps = 1000

// Flow is a parsed literate flow.
type Flow struct {
	Name        string   `json:"name"`
	Path        string   `json:"path"`
	Description string   `json:"description,omitempty"`
	Agent       string   `json:"agent,omitempty"`
	Args        []string `json:"args,omitempty"`
	MaxSteps    int      `json:"max_steps"`
	Steps       []*Step  `json:"steps"`
	Source      string   `json:"-"`
	Hash        string   `json:"hash"`
	// Warnings are problems that literate-commands tolerates (an unknown
	// next target: the following step runs); Strict makes them errors.
	Warnings Errors `json:"warnings,omitempty"`
}

// Strict returns the flow's warnings as errors (nil when there are none):
// `--strict` refuses what literate-commands would tolerate.
func (f *Flow) Strict() error {
	if len(f.Warnings) == 0 {
		return nil
	}
	return f.Warnings
}

// Step is one step of a flow.
type Step struct {
	Name  string `json:"name"`
	Index int    `json:"index"`
	Line  int    `json:"line"`
	Parse []Var  `json:"parse,omitempty"`
	Next  *Next  `json:"next,omitempty"`
	Stop  bool   `json:"stop,omitempty"`
	// Refused (stop: refused) ends the run as refused, not completed: the
	// step reports that flowdeck refused what the flow asked for.
	Refused    bool          `json:"refused,omitempty"`
	Agent      string        `json:"agent,omitempty"`
	Decision   *Decision     `json:"decision,omitempty"`
	Set        []Assign      `json:"set,omitempty"`
	Timeout    time.Duration `json:"timeout,omitempty"`
	Limits     Limits        `json:"limits"`
	Idempotent bool          `json:"idempotent,omitempty"`
	Body       []Segment     `json:"body"`
}

// Execs returns the step's exec blocks in order.
func (s *Step) Execs() []*Exec {
	var out []*Exec
	for _, seg := range s.Body {
		if seg.Exec != nil {
			out = append(out, seg.Exec)
		}
	}
	return out
}

// Var is one variable a step collects.
type Var struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"` // string, number, bool, json, array, enum
	Enum        []string `json:"enum,omitempty"`
	Description string   `json:"description,omitempty"`
}

// TypeText is the type as written: enum(a,b) for enums.
func (v Var) TypeText() string {
	if v.Type == "enum" {
		return "enum(" + strings.Join(v.Enum, ",") + ")"
	}
	return v.Type
}

// Next routes to the following step: Target, or the first Route whose
// condition holds (a route with Cond "_" is the fallback).
type Next struct {
	Target string  `json:"target,omitempty"`
	Routes []Route `json:"routes,omitempty"`
}

// Route is one `condition: step` of a next map.
type Route struct {
	Cond    string        `json:"cond"`
	Target  string        `json:"target"`
	Line    int           `json:"line"`
	Program *cond.Program `json:"-"`
}

// Decision is a human-in-the-loop decision point.
type Decision struct {
	Prompt   string        `json:"prompt,omitempty"`
	Options  []Option      `json:"options,omitempty"`
	Timeout  time.Duration `json:"timeout,omitempty"`
	Fallback string        `json:"fallback,omitempty"`
	Line     int           `json:"line"`
}

// Option is one choice of a decision.
type Option struct {
	ID          string `json:"id"`
	Description string `json:"description,omitempty"`
}

// Assign is one `name: expression` of a step's set map (a flowdeck
// extension: evaluated after the step's answer, before routing).
type Assign struct {
	Name string `json:"name"`
	Expr string `json:"expr"`
	Line int    `json:"line"`
}

// Limits are the isolator limits for a step's processes.
type Limits struct {
	MemoryBytes int64   `json:"memory_bytes,omitempty"`
	Pids        int     `json:"pids,omitempty"`
	CPU         float64 `json:"cpu,omitempty"`
	NoNetwork   bool    `json:"no_network,omitempty"`
}

// Segment is a piece of a step's body: prose (Text) or an exec block.
type Segment struct {
	Text string `json:"text,omitempty"`
	Exec *Exec  `json:"exec,omitempty"`
}

// Exec is one ```LANG {exec ...} block.
type Exec struct {
	Index int    `json:"index"`
	Line  int    `json:"line"`
	Lang  string `json:"lang"`
	Mode  string `json:"mode"` // stdout, store, none
	// Program is the interpreter's argv. The code is appended as the last
	// argument, after the interpreter's inline flag when it has one (sh -c,
	// python3 -c, node -e); when ViaFile is set it is written to a file
	// whose path is appended instead.
	Program []string `json:"program"`
	ViaFile bool     `json:"via_file,omitempty"`
	// Dialect decides how variables are quoted: sh (read as both POSIX sh
	// and bash), bash, zsh, ksh, python, node, ruby, perl.
	Dialect string `json:"dialect"`
	Code    string `json:"code"`
}

// Argv is the command that runs code (already interpolated); file is the
// path the code was written to when ViaFile is set.
func (e *Exec) Argv(code, file string) []string {
	argv := append([]string(nil), e.Program...)
	if e.ViaFile {
		return append(argv, file)
	}
	return append(argv, code)
}

// Error is one problem in a flow file.
type Error struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Msg  string `json:"message"`
}

func (e Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// Errors is every problem found in a file.
type Errors []Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
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

// ParseFile parses src read from path; the flow is named after the file.
func Parse(path string, src []byte) (*Flow, error) {
	p := &parser{file: path}
	f := p.parse(string(src))
	f.Warnings = p.warns
	if len(p.errs) > 0 {
		return f, p.errs
	}
	return f, nil
}

type parser struct {
	file  string
	errs  Errors
	warns Errors
}

func (p *parser) errorf(line int, format string, args ...any) {
	p.errs = append(p.errs, Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) warnf(line int, format string, args ...any) {
	p.warns = append(p.warns, Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

var dashLine = regexp.MustCompile(`^---[ \t]*$`)

func (p *parser) parse(src string) *Flow {
	sum := sha256.Sum256([]byte(src))
	f := &Flow{
		Name: strings.TrimSuffix(filepath.Base(p.file), filepath.Ext(p.file)), Path: p.file,
		Source: src, Hash: hex.EncodeToString(sum[:]), MaxSteps: DefaultMaxSteps,
	}
	src = strings.TrimPrefix(src, "\ufeff")
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	if len(lines) == 0 || !dashLine.MatchString(lines[0]) {
		p.errorf(1, "no frontmatter: a literate flow starts with a --- line, then `literate: true`, then ---")
		return f
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if dashLine.MatchString(lines[i]) {
			end = i
			break
		}
	}
	if end < 0 {
		p.errorf(1, "the frontmatter is not closed by a --- line")
		return f
	}
	p.frontmatter(f, strings.Join(lines[1:end], "\n"), 2)
	p.body(f, lines, end+1)
	p.check(f)
	return f
}

func (p *parser) frontmatter(f *Flow, text string, first int) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		p.yamlError(err, first)
		return
	}
	literate := false
	if len(doc.Content) == 0 {
		p.errorf(first, "the frontmatter needs `literate: true`")
		return
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		p.errorf(first+m.Line-1, "the frontmatter must be a mapping of keys")
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		line := first + k.Line - 1
		switch k.Value {
		case "literate":
			literate = v.Kind == yaml.ScalarNode && v.Tag == "!!bool" && v.Value == "true"
		case "description":
			f.Description = p.str(v, first, "description")
		case "agent":
			f.Agent = p.str(v, first, "agent")
		case "args":
			switch v.Kind {
			case yaml.SequenceNode:
				for _, a := range v.Content {
					f.Args = append(f.Args, p.str(a, first, "args"))
				}
			case yaml.ScalarNode:
				f.Args = strings.Fields(v.Value)
			default:
				p.errorf(line, "args must be a list of names")
			}
			for _, a := range f.Args {
				if !identRE.MatchString(a) {
					p.errorf(line, "args: %q is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", a)
				}
			}
		case "max_steps":
			n, err := strconv.Atoi(v.Value)
			if err != nil || n <= 0 {
				p.errorf(line, "max_steps must be a positive number, not %q", v.Value)
			} else {
				f.MaxSteps = n
			}
		case "model", "subtask":
			// opencode command keys: meaningful to opencode, ignored here.
		default:
			p.errorf(line, "unknown frontmatter key %q (known: literate, description, agent, args, max_steps)", k.Value)
		}
	}
	if !literate {
		p.errorf(first, "the frontmatter needs `literate: true`")
	}
}

func (p *parser) str(v *yaml.Node, first int, key string) string {
	if v.Kind != yaml.ScalarNode {
		p.errorf(first+v.Line-1, "%s must be a string", key)
		return ""
	}
	return v.Value
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func (p *parser) yamlError(err error, first int) {
	for _, msg := range strings.Split(err.Error(), "\n") {
		msg = strings.TrimSpace(strings.TrimPrefix(msg, "yaml: unmarshal errors:"))
		if msg == "" {
			continue
		}
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			p.errorf(first+n-1, "bad YAML: %s", m[2])
			continue
		}
		p.errorf(first, "bad YAML: %s", strings.TrimPrefix(msg, "yaml: "))
	}
}

// fence is an open ``` or ~~~ block.
type fence struct {
	char  byte
	count int
	info  string
	line  int // 1-based line of the opening fence
	body  []string
}

func openFence(line string) *fence {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return nil
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return nil
	}
	info := strings.TrimSpace(t[n:])
	if t[0] == '`' && strings.Contains(info, "`") {
		return nil
	}
	return &fence{char: t[0], count: n, info: info}
}

func (fe *fence) closes(line string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	n := 0
	for n < len(t) && t[n] == fe.char {
		n++
	}
	return n >= fe.count && strings.TrimSpace(t[n:]) == ""
}

// body splits the lines after the frontmatter into steps.
func (p *parser) body(f *Flow, lines []string, from int) {
	start := from
	var open *fence
	for i := from; i <= len(lines); i++ {
		if i < len(lines) {
			l := lines[i]
			if open != nil {
				if open.closes(l) {
					open = nil
				}
				continue
			}
			if fe := openFence(l); fe != nil {
				open = fe
				continue
			}
			if !dashLine.MatchString(l) {
				continue
			}
		}
		if open != nil && i == len(lines) {
			p.errorf(open.line, "code block is not closed")
		}
		p.step(f, lines[start:i], start+1)
		start = i + 1
	}
}

var (
	configInfo = regexp.MustCompile(`^(yaml|yml)\s*\{\s*config\s*\}$`)
	attrInfo   = regexp.MustCompile(`^([^\s{]*)\s*\{(.*)\}$`)
	identRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// step parses one section; first is the 1-based line of its first line.
func (p *parser) step(f *Flow, lines []string, first int) {
	blank := true
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			blank = false
			break
		}
	}
	if blank {
		return
	}
	s := &Step{Index: len(f.Steps), Line: first}
	for s.Line-first < len(lines) && strings.TrimSpace(lines[s.Line-first]) == "" {
		s.Line++
	}
	var text []string
	flushText := func() {
		if len(text) > 0 {
			s.Body = append(s.Body, Segment{Text: strings.Join(text, "\n")})
			text = nil
		}
	}
	config := false
	for i := 0; i < len(lines); i++ {
		fe := openFence(lines[i])
		if fe == nil {
			text = append(text, lines[i])
			continue
		}
		fe.line = first + i
		j := i + 1
		for j < len(lines) && !fe.closes(lines[j]) {
			j++
		}
		fe.body = lines[i+1 : min(j, len(lines))]
		switch {
		case configInfo.MatchString(fe.info):
			if config {
				p.errorf(fe.line, "a second {config} block in step %d (one per step)", s.Index+1)
			}
			config = true
			p.config(s, strings.Join(fe.body, "\n"), fe.line+1)
		case isExec(fe.info):
			flushText()
			if ex := p.exec(fe); ex != nil {
				ex.Index = len(s.Execs())
				s.Body = append(s.Body, Segment{Exec: ex})
			}
		default:
			text = append(text, lines[i:min(j+1, len(lines))]...)
		}
		i = j
	}
	flushText()
	if s.Name == "" {
		s.Name = fmt.Sprintf("step-%d", s.Index+1)
	}
	f.Steps = append(f.Steps, s)
}

func isExec(info string) bool {
	m := attrInfo.FindStringSubmatch(info)
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
	m := attrInfo.FindStringSubmatch(fe.info)
	ex := &Exec{Line: fe.line, Lang: m[1], Mode: "stdout", Code: strings.Join(fe.body, "\n")}
	words, err := splitWords(m[2])
	if err != nil {
		p.errorf(fe.line, "exec block: %v", err)
		return nil
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
					p.errorf(fe.line, "exec=%q: %v", val, err)
					return nil
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
				p.errorf(fe.line, "exec= names no program")
				return nil
			}
		case "mode":
			switch val {
			case "stdout", "store", "none":
				ex.Mode = val
			default:
				p.errorf(fe.line, "unknown exec mode %q (use stdout, store or none)", val)
			}
		default:
			p.errorf(fe.line, "unknown exec attribute %q (known: exec, exec=PROGRAM, mode=stdout|store|none)", w.text)
		}
	}
	lang := strings.ToLower(ex.Lang)
	known, langKnown := interpreters[lang]
	switch {
	case len(program) == 0 && !langKnown:
		if ex.Lang == "" {
			p.errorf(fe.line, "exec block names no language; write ```sh {exec} or {exec=PROGRAM}")
		} else {
			p.errorf(fe.line, "unknown interpreter %q (known: sh, bash, zsh, python3, node, ruby, perl; or name one with exec=PROGRAM)", ex.Lang)
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

// config parses a step's {config} block; first is the file line of its
// first line.
func (p *parser) config(s *Step, text string, first int) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		p.yamlError(err, first)
		return
	}
	if len(doc.Content) == 0 {
		return
	}
	m := doc.Content[0]
	at := func(n *yaml.Node) int { return first + n.Line - 1 }
	if m.Kind != yaml.MappingNode {
		p.errorf(at(m), "a {config} block must be a mapping of keys")
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch k.Value {
		case "step":
			s.Name = strings.TrimSpace(p.str(v, first, "step"))
			if s.Name == "" {
				p.errorf(at(k), "step: the name is empty")
			}
		case "parse":
			p.parseVars(s, v, at)
		case "next":
			p.next(s, v, at)
		case "stop":
			switch {
			case v.Kind == yaml.ScalarNode && v.Tag == "!!str" && v.Value == "refused":
				s.Stop, s.Refused = true, true
			case v.Kind != yaml.ScalarNode || v.Tag != "!!bool":
				p.errorf(at(v), "stop must be true, false or refused, not %q", v.Value)
			default:
				s.Stop = v.Value == "true"
			}
		case "idempotent":
			s.Idempotent = p.boolean(v, at, "idempotent")
		case "agent":
			s.Agent = strings.TrimSpace(p.str(v, first, "agent"))
		case "decision":
			s.Decision = p.decision(v, at)
		case "set":
			if v.Kind != yaml.MappingNode {
				p.errorf(at(v), "set must map variable names to expressions")
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				name, ex := v.Content[j], v.Content[j+1]
				if !identRE.MatchString(name.Value) {
					p.errorf(at(name), "set: %q is not a variable name", name.Value)
				}
				if _, err := cond.Compile(ex.Value); err != nil {
					p.errorf(at(ex), "set %s: expression %q: %v", name.Value, ex.Value, err)
				}
				s.Set = append(s.Set, Assign{Name: name.Value, Expr: ex.Value, Line: at(name)})
			}
		case "timeout":
			s.Timeout = p.duration(v, at, "timeout")
		case "limits":
			p.limits(s, v, at)
		default:
			p.errorf(at(k), "unknown config key %q (known: step, parse, next, stop, agent, decision, set, timeout, limits, idempotent)", k.Value)
		}
	}
}

func (p *parser) boolean(v *yaml.Node, at func(*yaml.Node) int, key string) bool {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
		p.errorf(at(v), "%s must be true or false, not %q", key, v.Value)
		return false
	}
	return v.Value == "true"
}

func (p *parser) duration(v *yaml.Node, at func(*yaml.Node) int, key string) time.Duration {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!int" {
		n, _ := strconv.Atoi(v.Value)
		return time.Duration(n) * time.Second
	}
	d, err := time.ParseDuration(v.Value)
	if err != nil || d < 0 {
		p.errorf(at(v), "%s: %q is not a duration (like 90s or 10m)", key, v.Value)
	}
	return d
}

var enumRE = regexp.MustCompile(`^enum\s*\((.*)\)$`)

// ParseType reads a parse type: string, number, bool, json, array or
// enum(a,b,c). A value that is not a single word (literate-commands lets a
// question stand there) is a string described by that text.
func ParseType(name, t string) (Var, error) {
	v := Var{Name: name}
	t = strings.TrimSpace(t)
	if m := enumRE.FindStringSubmatch(t); m != nil {
		for _, o := range strings.Split(m[1], ",") {
			if o = strings.Trim(strings.TrimSpace(o), `"'`); o != "" {
				v.Enum = append(v.Enum, o)
			}
		}
		if len(v.Enum) == 0 {
			return v, fmt.Errorf("enum() lists no values")
		}
		v.Type = "enum"
		return v, nil
	}
	switch strings.ToLower(t) {
	case "string", "str", "text", "":
		v.Type = "string"
	case "number", "int", "integer", "float":
		v.Type = "number"
	case "bool", "boolean":
		v.Type = "bool"
	case "json", "object", "any":
		v.Type = "json"
	case "array", "list":
		v.Type = "array"
	default:
		if identRE.MatchString(t) {
			return v, fmt.Errorf("unknown type %q (use string, number, bool, json, array or enum(a,b))", t)
		}
		v.Type, v.Description = "string", t
	}
	return v, nil
}

func (p *parser) parseVars(s *Step, v *yaml.Node, at func(*yaml.Node) int) {
	if v.Kind != yaml.MappingNode {
		p.errorf(at(v), "parse must map variable names to types")
		return
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		name, typ := v.Content[j], v.Content[j+1]
		if !identRE.MatchString(name.Value) {
			p.errorf(at(name), "parse: %q is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", name.Value)
			continue
		}
		if typ.Kind != yaml.ScalarNode {
			p.errorf(at(typ), "parse %s: the type must be a word like string or enum(a,b)", name.Value)
			continue
		}
		pv, err := ParseType(name.Value, typ.Value)
		if err != nil {
			p.errorf(at(typ), "parse %s: %v", name.Value, err)
			continue
		}
		s.Parse = append(s.Parse, pv)
	}
}

func (p *parser) next(s *Step, v *yaml.Node, at func(*yaml.Node) int) {
	switch v.Kind {
	case yaml.ScalarNode:
		s.Next = &Next{Target: strings.TrimSpace(v.Value), Routes: nil}
		s.Next.Routes = []Route{{Cond: "_", Target: s.Next.Target, Line: at(v)}}
	case yaml.MappingNode:
		s.Next = &Next{}
		for j := 0; j+1 < len(v.Content); j += 2 {
			c, t := v.Content[j], v.Content[j+1]
			r := Route{Cond: c.Value, Target: strings.TrimSpace(t.Value), Line: at(c)}
			if t.Kind != yaml.ScalarNode {
				p.errorf(at(t), "next: the target of %q must be a step name", c.Value)
				continue
			}
			if r.Cond != "_" {
				prog, err := cond.Compile(r.Cond)
				if err != nil {
					p.errorf(at(c), "next: condition %q: %v", r.Cond, err)
					continue
				}
				r.Program = prog
			}
			s.Next.Routes = append(s.Next.Routes, r)
		}
	default:
		p.errorf(at(v), "next must be a step name or a map of condition: step")
	}
}

func (p *parser) decision(v *yaml.Node, at func(*yaml.Node) int) *Decision {
	d := &Decision{Line: at(v)}
	if v.Kind == yaml.ScalarNode && v.Tag == "!!bool" {
		if v.Value != "true" {
			return nil
		}
		return d
	}
	if v.Kind == yaml.ScalarNode {
		d.Prompt = v.Value
		return d
	}
	if v.Kind != yaml.MappingNode {
		p.errorf(at(v), "decision must be a mapping {prompt, options, timeout, fallback}")
		return d
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		k, x := v.Content[j], v.Content[j+1]
		switch k.Value {
		case "prompt":
			d.Prompt = x.Value
		case "timeout":
			d.Timeout = p.duration(x, at, "decision timeout")
		case "fallback":
			d.Fallback = strings.TrimSpace(x.Value)
		case "options":
			if x.Kind != yaml.SequenceNode {
				p.errorf(at(x), "decision options must be a list")
				continue
			}
			for _, o := range x.Content {
				opt := p.option(o, at)
				if opt.ID == "" {
					p.errorf(at(o), "a decision option needs an id")
					continue
				}
				if slices.ContainsFunc(d.Options, func(prev Option) bool { return prev.ID == opt.ID }) {
					p.errorf(at(o), "duplicate decision option %q", opt.ID)
				}
				d.Options = append(d.Options, opt)
			}
		default:
			p.errorf(at(k), "unknown decision key %q (known: prompt, options, timeout, fallback)", k.Value)
		}
	}
	if d.Fallback != "" && len(d.Options) > 0 {
		if !slices.ContainsFunc(d.Options, func(o Option) bool { return o.ID == d.Fallback }) {
			p.errorf(d.Line, "decision fallback %q is not one of its options", d.Fallback)
		}
	}
	return d
}

// option reads one decision option: an id, or a mapping {id, description}.
func (p *parser) option(o *yaml.Node, at func(*yaml.Node) int) Option {
	var opt Option
	switch o.Kind {
	case yaml.ScalarNode:
		opt.ID = o.Value
	case yaml.MappingNode:
		for q := 0; q+1 < len(o.Content); q += 2 {
			k, v := o.Content[q], o.Content[q+1]
			switch k.Value {
			case "id":
				opt.ID = v.Value
			case "description":
				opt.Description = v.Value
			default:
				p.errorf(at(k), "unknown option key %q (known: id, description)", k.Value)
			}
		}
	}
	return opt
}

func (p *parser) limits(s *Step, v *yaml.Node, at func(*yaml.Node) int) {
	if v.Kind != yaml.MappingNode {
		p.errorf(at(v), "limits must be a mapping {memory, pids, cpu, network}")
		return
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		k, x := v.Content[j], v.Content[j+1]
		switch k.Value {
		case "memory":
			n, err := config.ParseBytes(x.Value)
			if err != nil {
				p.errorf(at(x), "limits memory %q: %v", x.Value, err)
			}
			s.Limits.MemoryBytes = n
		case "pids":
			n, err := strconv.Atoi(x.Value)
			if err != nil || n < 0 {
				p.errorf(at(x), "limits pids: %q is not a count", x.Value)
			}
			s.Limits.Pids = n
		case "cpu":
			f, err := strconv.ParseFloat(x.Value, 64)
			if err != nil || f < 0 {
				p.errorf(at(x), "limits cpu: %q is not a number of cores", x.Value)
			}
			s.Limits.CPU = f
		case "network":
			s.Limits.NoNetwork = !p.boolean(x, at, "limits network")
		default:
			p.errorf(at(k), "unknown limit %q (known: memory, pids, cpu, network)", k.Value)
		}
	}
}

// check looks across steps: names, next targets, fallbacks.
func (p *parser) check(f *Flow) {
	if len(f.Steps) == 0 && len(p.errs) == 0 {
		p.errorf(1, "the flow has no steps")
	}
	seen := map[string]*Step{}
	for _, s := range f.Steps {
		if prev, ok := seen[s.Name]; ok {
			p.errorf(s.Line, "duplicate step name %q (first at line %d)", s.Name, prev.Line)
			continue
		}
		seen[s.Name] = s
	}
	for _, s := range f.Steps {
		if s.Next == nil {
			continue
		}
		for _, r := range s.Next.Routes {
			if _, ok := seen[r.Target]; !ok {
				p.warnf(r.Line, "step %q: next target %q is not a step of this flow; the following step runs instead (an error with --strict)", s.Name, r.Target)
			}
		}
	}
}

// Step returns the step named name, or nil.
func (f *Flow) Step(name string) *Step {
	for _, s := range f.Steps {
		if s.Name == name {
			return s
		}
	}
	return nil
}
