package patterns

import (
	"bytes"
	"strings"
	"time"
)

// maxSubRuns bounds how many inner commands a wrapper tracks.
const maxSubRuns = 16

// subRun is a command a wrapper (npm, make) was seen to run, with the
// matcher of the pattern that recognises it.
type subRun struct {
	name string
	m    matcher
}

// wrapper follows the commands run by npm/pnpm/yarn scripts or make: when
// the wrapper echoes a command line that a pattern of the Set recognises,
// the following lines go to that pattern's matcher. The summary is the
// last recognised tool's, prefixed by its name ("jest: 4 passed, ...").
type wrapper struct {
	set  *Set
	subs []subRun
	cur  *subRun
}

// start begins a sub-run for a command line echoed by the wrapper; it
// reports whether a pattern recognised it.
func (w *wrapper) start(cmd string) bool {
	line, _ := commandLine(strings.Fields(cmd))
	p := w.set.match(line)
	if p == nil || len(w.subs) >= maxSubRuns {
		w.cur = nil // an unknown command runs: stop feeding the previous tool
		return false
	}
	w.subs = append(w.subs, subRun{name: p.name, m: p.newMatcher(w.set)})
	w.cur = &w.subs[len(w.subs)-1]
	return true
}

// subResult is the last sub-run that recognised its output. Only the last
// sub-run sees the wrapper's failing exit code: it is the one that failed.
func (w *wrapper) subResult(exitCode int) (string, outcome, bool) {
	for i := len(w.subs) - 1; i >= 0; i-- {
		code := 0
		if i == len(w.subs)-1 {
			code = exitCode
		}
		if out, ok := w.subs[i].m.result(code, 0); ok {
			return w.subs[i].name, out, true
		}
	}
	return "", outcome{}, false
}

func (w *wrapper) detail(l []byte) ([]byte, action) {
	if w.cur != nil {
		if d, ok := w.cur.m.(detailer); ok {
			return d.detail(l)
		}
	}
	return l, keep
}

// scriptRunner: npm, pnpm, yarn and bun running a package.json script.
// npm and pnpm echo "> pkg@1.0.0 test" then "> jest"; yarn and bun echo
// "$ jest".
type scriptRunner struct{ wrapper }

func newScriptRunner(s *Set) matcher { return &scriptRunner{wrapper{set: s}} }

func (r *scriptRunner) line(l []byte) {
	if cmd, ok := cut(l, "> "); ok && len(cmd) > 0 {
		if !isPkgHeader(cmd) {
			r.start(string(cmd))
		}
		return
	}
	if cmd, ok := cut(l, "$ "); ok && len(cmd) > 0 {
		r.start(string(cmd))
		return
	}
	if r.cur != nil {
		r.cur.m.line(l)
	}
}

// isPkgHeader recognises npm's "pkg@1.0.0 test /path" script header.
func isPkgHeader(b []byte) bool {
	f := bytes.Fields(b)
	return len(f) >= 2 && bytes.IndexByte(f[0][1:], '@') >= 0
}

func (r *scriptRunner) result(exitCode int, _ time.Duration) (outcome, bool) {
	name, out, ok := r.subResult(exitCode)
	if !ok {
		return outcome{}, false
	}
	out.summary = name + ": " + out.summary
	return out, true
}

// makeRunner: make echoes each recipe line before running it. Besides the
// tools it runs, it counts compiler diagnostics (file:line:col: error:)
// and the targets that failed.
type makeRunner struct {
	wrapper
	errors, warnings int
	failed           nameList
	nothing          bool
}

func newMake(s *Set) matcher { return &makeRunner{wrapper: wrapper{set: s}} }

// recipeTools are the first words of echoed recipe lines worth matching
// against the Set; other lines skip the regexes.
var recipeTools = map[string]bool{
	"go": true, "cargo": true, "pytest": true, "py.test": true, "python": true, "python3": true,
	"jest": true, "vitest": true, "mocha": true, "node": true, "npm": true, "pnpm": true, "yarn": true, "bun": true,
	"npx": true, "eslint": true, "tsc": true, "ruff": true, "mypy": true, "golangci-lint": true,
	"make": true, "gmake": true, "uv": true, "poetry": true, "env": true, "time": true,
}

func (m *makeRunner) line(l []byte) {
	if bytes.HasPrefix(l, []byte("make: ")) || bytes.HasPrefix(l, []byte("make[")) || bytes.HasPrefix(l, []byte("gmake: ")) {
		m.makeLine(l)
		return
	}
	if cmd, ok := recipeCommand(l); ok && m.start(cmd) {
		return
	}
	if bytes.Contains(l, []byte(": error: ")) || bytes.Contains(l, []byte(": fatal error: ")) {
		m.errors++
	} else if bytes.Contains(l, []byte(": warning: ")) {
		m.warnings++
	}
	if m.cur != nil {
		m.cur.m.line(l)
	}
}

// recipeCommand returns the command of an echoed recipe line whose first
// word names a known tool, after "cd DIR &&" prefixes. It allocates only
// for such lines.
func recipeCommand(l []byte) (string, bool) {
	for {
		l = bytes.TrimLeft(l, " \t")
		w := l
		if i := bytes.IndexByte(l, ' '); i >= 0 {
			w = l[:i]
		}
		if string(w) == "cd" {
			j := bytes.Index(l, []byte("&&"))
			if j < 0 {
				return "", false
			}
			l = l[j+2:]
			continue
		}
		if i := bytes.LastIndexByte(w, '/'); i >= 0 {
			w = w[i+1:]
		}
		if recipeTools[string(w)] || bytes.IndexByte(w, '=') > 0 && isAssignment(string(w)) {
			return string(l), true
		}
		return "", false
	}
}

func (m *makeRunner) makeLine(l []byte) {
	s := string(l)
	if i := strings.Index(s, "*** ["); i >= 0 {
		// "make: *** [Makefile:9: bad] Error 1": the target is after the last ": ".
		t := s[i+len("*** ["):]
		if j := strings.IndexByte(t, ']'); j >= 0 {
			t = t[:j]
		}
		if k := strings.LastIndex(t, ": "); k >= 0 {
			t = t[k+2:]
		}
		m.failed.add(t)
		return
	}
	if strings.Contains(s, "Nothing to be done") || strings.Contains(s, "is up to date") {
		m.nothing = true
	}
}

func quoteNames(nl *nameList) string {
	q := nameList{n: nl.n}
	for _, s := range nl.names {
		q.names = append(q.names, "'"+s+"'")
	}
	return q.String()
}

func (m *makeRunner) result(exitCode int, _ time.Duration) (outcome, bool) {
	targets := ""
	if m.failed.n > 0 {
		targets = "target " + quoteNames(&m.failed) + " failed"
	}
	if name, out, ok := m.subResult(exitCode); ok {
		out.summary = name + ": " + out.summary
		if exitCode != 0 && targets != "" {
			out.summary += "; " + targets
		}
		return out, true
	}
	counts := map[string]int{"errors": m.errors, "warnings": m.warnings}
	switch {
	case m.errors+m.warnings > 0:
		s := plural(m.errors, "error") + ", " + plural(m.warnings, "warning")
		if targets != "" {
			s += "; " + targets
		}
		return outcome{summary: s, counts: counts}, true
	case targets != "":
		return outcome{summary: targets, counts: counts}, true
	case m.nothing:
		return outcome{summary: "nothing to be done", counts: counts}, true
	}
	return outcome{}, false
}
