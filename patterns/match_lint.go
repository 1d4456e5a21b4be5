package patterns

import (
	"bytes"
	"sort"
	"strings"
	"time"

	"github.com/flowdeck/flowdeck/internal/lazyre"
)

// maxFilesTracked bounds the set of distinct file names a linter matcher
// remembers; past it files are no longer told apart.
const maxFilesTracked = 4096

type fileSet map[string]struct{}

func (f fileSet) add(name string) {
	if len(f) < maxFilesTracked {
		f[name] = struct{}{}
	}
}

// eslint reads the stylish formatter: file headers, "  3:9  error  msg
// rule" lines and the closing "✖ 5 problems (3 errors, 2 warnings)".
type eslint struct {
	errors, warnings int // from the closing line
	problems         bool
	lineErrors       int // counted from issue lines, when there is no closing line
	lineWarnings     int
	files            int
	pendingFile      bool
	fixable          int
}

func newESLint(*Set) matcher { return &eslint{} }

var eslintIssue = lazyre.New(`^\s+\d+:\d+\s+(error|warning)\s`)

func (e *eslint) line(l []byte) {
	if len(l) == 0 {
		return
	}
	if l[0] != ' ' {
		if rest, ok := cut(l, "✖ "); ok {
			// "✖ 5 problems (3 errors, 2 warnings)"
			if i := bytes.IndexByte(rest, '('); i >= 0 {
				if m, ok := countItems(bytes.TrimSuffix(rest[i+1:], []byte(")")), ","); ok {
					e.errors = m["errors"] + m["error"]
					e.warnings = m["warnings"] + m["warning"]
					e.problems = true
				}
			}
			return
		}
		e.pendingFile = true // a file header, if issue lines follow
		return
	}
	if m := eslintIssue().FindSubmatch(l); m != nil {
		if e.pendingFile {
			e.files++
			e.pendingFile = false
		}
		if m[1][0] == 'e' {
			e.lineErrors++
		} else {
			e.lineWarnings++
		}
		return
	}
	t := trimSpace(l)
	if i := bytes.Index(t, []byte(" potentially fixable with the `--fix` option")); i > 0 {
		// "3 errors and 1 warning potentially fixable ..."
		for _, part := range bytes.Split(t[:i], []byte(" and ")) {
			if f := bytes.Fields(part); len(f) == 2 {
				if n := atoi(f[0]); n > 0 {
					e.fixable += n
				}
			}
		}
	}
}

func (e *eslint) result(exitCode int, _ time.Duration) (outcome, bool) {
	errs, warns := e.errors, e.warnings
	if !e.problems {
		errs, warns = e.lineErrors, e.lineWarnings
	}
	if !e.problems && errs+warns == 0 && exitCode != 0 {
		return outcome{}, false // a crash or a config error: show the output
	}
	counts := map[string]int{"errors": errs, "warnings": warns, "files": e.files}
	if e.fixable > 0 {
		counts["fixable"] = e.fixable
	}
	s := plural(errs, "error") + ", " + plural(warns, "warning")
	if e.files > 0 {
		s += " in " + plural(e.files, "file")
	}
	if e.fixable > 0 {
		s += " (" + itoa(e.fixable) + " fixable)"
	}
	return outcome{summary: s, counts: counts}, true
}

// tsc reads "Found 3 errors in 2 files." and counts the
// "file.ts:5:7 - error TS2322:" (or "file.ts(5,7): error TS2322:") lines.
type tsc struct {
	found      bool
	errors     int
	files      int
	lineErrors int
	fileSet    fileSet
}

func newTSC(*Set) matcher { return &tsc{fileSet: fileSet{}} }

var (
	tscPretty = lazyre.New(`^(.+?):\d+:\d+ - error TS\d+:`)
	tscPlain  = lazyre.New(`^(.+?)\(\d+,\d+\): error TS\d+:`)
)

func (t *tsc) line(l []byte) {
	if rest, ok := cut(l, "Found "); ok {
		// "Found 3 errors in 2 files." "Found 1 error in src/a.ts:5" "Found 2 errors."
		f := bytes.Fields(rest)
		if len(f) >= 2 && bytes.HasPrefix(f[1], []byte("error")) {
			if n := atoi(f[0]); n >= 0 {
				t.found, t.errors, t.files = true, n, 0
				if n > 0 {
					t.files = 1
				}
				if len(f) >= 5 && string(f[2]) == "in" && bytes.HasPrefix(f[4], []byte("file")) {
					t.files = atoi(f[3])
				}
			}
		}
		return
	}
	if !bytes.Contains(l, []byte("error TS")) {
		return
	}
	m := tscPretty().FindSubmatch(l)
	if m == nil {
		m = tscPlain().FindSubmatch(l)
	}
	if m != nil {
		t.lineErrors++
		t.fileSet.add(string(m[1]))
	}
}

func (t *tsc) result(exitCode int, _ time.Duration) (outcome, bool) {
	errs, files := t.errors, t.files
	if !t.found {
		errs, files = t.lineErrors, len(t.fileSet)
	}
	if !t.found && errs == 0 && exitCode != 0 {
		return outcome{}, false
	}
	s := plural(errs, "error")
	if files > 0 {
		s += " in " + plural(files, "file")
	}
	return outcome{summary: s, counts: map[string]int{"errors": errs, "files": files}}, true
}

// ruff reads `ruff check` ("Found 3 errors.", "Found 4 errors (3 fixed,
// 1 remaining).", "All checks passed!", "[*] 2 fixable with the `--fix`
// option.") and `ruff format` ("2 files would be reformatted, 5 files
// already formatted").
type ruff struct {
	found, passed          bool
	errors, fixed, fixable int
	format                 []formatCount
}

type formatCount struct {
	what string // "would be reformatted", "already formatted", ...
	n    int
}

func newRuff(*Set) matcher { return &ruff{} }

func (r *ruff) line(l []byte) {
	t := trimSpace(l)
	switch {
	case bytes.Equal(t, []byte("All checks passed!")):
		r.passed = true
	case bytes.HasPrefix(t, []byte("Found ")):
		f := bytes.Fields(t[len("Found "):])
		if len(f) >= 2 && bytes.HasPrefix(f[1], []byte("error")) {
			if n := atoi(f[0]); n >= 0 {
				r.found, r.errors = true, n
				// "(3 fixed, 1 remaining)."
				if i := bytes.IndexByte(t, '('); i >= 0 {
					if m, ok := countItems(bytes.TrimRight(t[i+1:], ")."), ","); ok {
						r.fixed = m["fixed"]
						if rem, ok := m["remaining"]; ok {
							r.errors = rem
						}
					}
				}
			}
		}
	case bytes.HasPrefix(t, []byte("[*] ")):
		if f := bytes.Fields(t[4:]); len(f) > 1 && string(f[1]) == "fixable" {
			r.fixable = atoi(f[0])
		}
	case bytes.Contains(t, []byte(" reformatted")) || bytes.Contains(t, []byte(" already formatted")) || bytes.Contains(t, []byte(" left unchanged")):
		// "1 file would be reformatted, 3 files already formatted"
		var fc []formatCount
		for _, part := range bytes.Split(t, []byte(",")) {
			f := bytes.Fields(part)
			if len(f) < 3 {
				return
			}
			n := atoi(f[0])
			if n < 0 {
				return
			}
			fc = append(fc, formatCount{string(bytes.Join(f[2:], []byte(" "))), n})
		}
		r.format = fc
	}
}

func (r *ruff) result(exitCode int, _ time.Duration) (outcome, bool) {
	switch {
	case r.format != nil:
		counts := map[string]int{}
		var parts []string
		for _, fc := range r.format {
			parts = append(parts, plural(fc.n, "file")+" "+fc.what)
			counts[strings.ReplaceAll(fc.what, " ", "_")] = fc.n
		}
		return outcome{summary: strings.Join(parts, ", "), counts: counts}, true
	case r.found:
		counts := map[string]int{"errors": r.errors}
		s := plural(r.errors, "error")
		if r.fixed > 0 {
			counts["fixed"] = r.fixed
			s += ", " + itoa(r.fixed) + " fixed"
		}
		if r.fixable > 0 {
			counts["fixable"] = r.fixable
			s += " (" + itoa(r.fixable) + " fixable)"
		}
		return outcome{summary: s, counts: counts}, true
	case r.passed:
		return outcome{summary: "0 errors", counts: map[string]int{"errors": 0}}, true
	}
	return outcome{}, false
}

// mypy reads "Found 3 errors in 1 file (checked 4 source files)" or
// "Success: no issues found in 4 source files".
type mypy struct {
	done                   bool
	errors, files, checked int
	lineErrors             int
	fileSet                fileSet
}

func newMypy(*Set) matcher { return &mypy{fileSet: fileSet{}} }

func (m *mypy) line(l []byte) {
	if rest, ok := cut(l, "Found "); ok {
		// "3 errors in 1 file (checked 1 source file)"
		f := bytes.Fields(rest)
		if len(f) >= 5 && bytes.HasPrefix(f[1], []byte("error")) && string(f[2]) == "in" {
			m.done = true
			m.errors, m.files = atoi(f[0]), atoi(f[3])
			if i := bytes.Index(rest, []byte("(checked ")); i >= 0 {
				if g := bytes.Fields(rest[i+len("(checked "):]); len(g) > 0 {
					m.checked = atoi(g[0])
				}
			}
		}
		return
	}
	if rest, ok := cut(l, "Success: no issues found in "); ok {
		m.done = true
		if f := bytes.Fields(rest); len(f) > 0 {
			m.checked = atoi(f[0])
		}
		return
	}
	if i := bytes.Index(l, []byte(": error: ")); i > 0 {
		m.lineErrors++
		if j := bytes.IndexByte(l[:i], ':'); j > 0 {
			m.fileSet.add(string(l[:j]))
		}
	}
}

func (m *mypy) result(exitCode int, _ time.Duration) (outcome, bool) {
	errs, files := m.errors, m.files
	if !m.done {
		if m.lineErrors == 0 {
			return outcome{}, false
		}
		errs, files = m.lineErrors, len(m.fileSet)
	}
	counts := map[string]int{"errors": errs}
	s := plural(errs, "error")
	if files > 0 {
		counts["files"] = files
		s += " in " + plural(files, "file")
	}
	if m.checked > 0 {
		counts["checked"] = m.checked
		s += ", " + plural(m.checked, "file") + " checked"
	}
	return outcome{summary: s, counts: counts}, true
}

// golangciLint reads "4 issues:" followed by "* linter: N" lines, or
// "0 issues."; older versions print only the issue lines, which are
// counted by the linter named at their end.
type golangciLint struct {
	total     int
	haveTotal bool
	byLinter  map[string]int
	counted   map[string]int // from issue lines
}

func newGolangciLint(*Set) matcher {
	return &golangciLint{byLinter: map[string]int{}, counted: map[string]int{}}
}

var golangciIssue = lazyre.New(`^\S+\.go:\d+(?::\d+)?: .* \(([\w-]+)\)$`)

func (g *golangciLint) line(l []byte) {
	t := trimSpace(l)
	if f := bytes.Fields(t); len(f) == 2 && (bytes.Equal(f[1], []byte("issues:")) || bytes.Equal(f[1], []byte("issues.")) || bytes.Equal(f[1], []byte("issue:")) || bytes.Equal(f[1], []byte("issue."))) {
		if n := atoi(f[0]); n >= 0 {
			g.total, g.haveTotal = n, true
			return
		}
	}
	if rest, ok := cut(t, "* "); ok && g.haveTotal {
		if name, num, found := bytes.Cut(rest, []byte(": ")); found {
			if n := atoi(num); n >= 0 {
				g.byLinter[string(name)] = n
			}
		}
		return
	}
	if bytes.Contains(l, []byte(".go:")) {
		if m := golangciIssue().FindSubmatch(l); m != nil {
			g.counted[string(m[1])]++
		}
	}
}

func (g *golangciLint) result(exitCode int, _ time.Duration) (outcome, bool) {
	total, by := g.total, g.byLinter
	if !g.haveTotal {
		total = 0
		for _, n := range g.counted {
			total += n
		}
		by = g.counted
		if total == 0 && exitCode != 0 {
			return outcome{}, false
		}
	}
	names := make([]string, 0, len(by))
	for k := range by {
		names = append(names, k)
	}
	// Most frequent first, then by name.
	sort.Slice(names, func(i, j int) bool {
		if by[names[i]] != by[names[j]] {
			return by[names[i]] > by[names[j]]
		}
		return names[i] < names[j]
	})
	counts := map[string]int{"issues": total}
	var parts []string
	for _, k := range names {
		counts[k] = by[k]
		parts = append(parts, k+" "+itoa(by[k]))
	}
	s := plural(total, "issue")
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return outcome{summary: s, counts: counts}, true
}
