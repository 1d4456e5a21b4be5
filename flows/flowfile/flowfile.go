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
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/flowdeck/flowdeck/flows/cond"
	"github.com/flowdeck/flowdeck/internal/lazyre"
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
	// OnError names the step that runs when the step's agent fails (gives
	// no usable answer, or crashes) instead of failing the run; $agent_error
	// says what happened.
	OnError     string    `json:"on_error,omitempty"`
	OnErrorLine int       `json:"-"`
	Body        []Segment `json:"body"`
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

var dashLine = lazyre.New(`^---[ \t]*$`)

func (p *parser) parse(src string) *Flow {
	sum := sha256.Sum256([]byte(src))
	f := &Flow{
		Name: strings.TrimSuffix(filepath.Base(p.file), filepath.Ext(p.file)), Path: p.file,
		Source: src, Hash: hex.EncodeToString(sum[:]), MaxSteps: DefaultMaxSteps,
	}
	src = strings.TrimPrefix(src, "\ufeff")
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	if len(lines) == 0 || !dashLine().MatchString(lines[0]) {
		p.errorf(1, "no frontmatter: a literate flow starts with a --- line, then `literate: true`, then ---")
		return f
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if dashLine().MatchString(lines[i]) {
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
		if s.OnError != "" && seen[s.OnError] == nil {
			p.errorf(s.OnErrorLine, "step %q: on_error target %q is not a step of this flow", s.Name, s.OnError)
		}
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
