package patterns

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/flowdeck/flowdeck/internal/lazyre"
)

// LoadError is a problem in a user pattern file. The file is skipped; the
// other files still load.
type LoadError struct {
	Path string
	Line int // 1-based; 0 when unknown
	Msg  string
}

func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return e.Path + ": " + e.Msg
}

// Load reads the user pattern files (*.toml, in name order) of each
// directory, in the order given — pass the project's .flow/patterns first,
// then $XDG_CONFIG_HOME/flowdeck/patterns — and appends the built-ins, so
// project patterns win over user patterns, which win over built-ins. A
// missing directory is not an error. A broken file is reported (path and
// line) and skipped; everything else loads.
func Load(dirs ...string) (*Set, []error) {
	var pats []*pattern
	var errs []error
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, &LoadError{Path: dir, Msg: err.Error()})
			}
			continue
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".toml") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			data, err := os.ReadFile(path)
			if err != nil {
				errs = append(errs, &LoadError{Path: path, Msg: err.Error()})
				continue
			}
			ps, ferrs := parseFile(path, data)
			if len(ferrs) > 0 {
				for _, fe := range ferrs {
					errs = append(errs, fe)
				}
				continue
			}
			pats = append(pats, ps...)
		}
	}
	pats = append(pats, builtinPatterns()...)
	return &Set{patterns: pats}, errs
}

type patternSpec struct {
	Name         string       `toml:"name"`
	CommandMatch string       `toml:"command_match"`
	Category     string       `toml:"category"`
	Success      *successSpec `toml:"success"`
	Failure      *failureSpec `toml:"failure"`
}

type successSpec struct {
	Pattern string `toml:"pattern"`
	// Summary is required; "" is oo's quiet success: a bare ✓.
	Summary *string `toml:"summary"`
}

type failureSpec struct {
	Strategy string `toml:"strategy"`
	Lines    int    `toml:"lines"`
	Grep     string `toml:"grep"`
	Start    string `toml:"start"` // between: a plain substring, or /regex/
	End      string `toml:"end"`
	Regex    bool   `toml:"regex"` // between: start and end are regexes
}

// fileSpec accepts both shapes: [[pattern]] tables, or one pattern at the
// top level of the file (oo's shape; its name defaults to the file name).
type fileSpec struct {
	patternSpec
	Pattern []patternSpec `toml:"pattern"`
}

// parseFile parses one user pattern file; path names it in errors and in
// the patterns' Source. Any error means the file's patterns are not used.
func parseFile(path string, data []byte) ([]*pattern, []*LoadError) {
	var spec fileSpec
	md, err := toml.Decode(string(data), &spec)
	loc := newLocator(string(data))
	if err != nil {
		return nil, []*LoadError{{Path: path, Line: errorLine(err), Msg: tomlMessage(err)}}
	}
	var errs []*LoadError
	fail := func(line int, format string, a ...any) {
		errs = append(errs, &LoadError{Path: path, Line: line, Msg: fmt.Sprintf(format, a...)})
	}
	var reported []string
	for _, k := range md.Undecoded() {
		ks := k.String()
		// A misspelt table is reported once, not once more per key inside it.
		skip := false
		for _, r := range reported {
			if strings.HasPrefix(ks, r+".") {
				skip = true
			}
		}
		if skip {
			continue
		}
		reported = append(reported, ks)
		section, key := "", k[len(k)-1]
		if len(k) >= 2 && k[len(k)-2] != "pattern" {
			section = k[len(k)-2]
		}
		fail(loc.find(-1, section, key), "unknown key %q", ks)
	}
	specs := spec.Pattern
	single := spec.patternSpec != (patternSpec{})
	if single {
		if len(specs) > 0 {
			fail(loc.find(-1, "", "command_match"), "use either [[pattern]] tables or top-level keys, not both")
			return nil, errs
		}
		if spec.Name == "" {
			spec.Name = strings.TrimSuffix(filepath.Base(path), ".toml")
		}
		specs = []patternSpec{spec.patternSpec}
	}
	if len(specs) == 0 && len(errs) == 0 {
		fail(0, "no patterns: expected [[pattern]] tables with name and command_match")
	}
	var out []*pattern
	for i, ps := range specs {
		idx := i
		if single {
			idx = -1
		}
		if p := compileSpec(path, idx, ps, loc, fail); p != nil {
			out = append(out, p)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

func compileSpec(path string, idx int, ps patternSpec, loc *locator, fail func(int, string, ...any)) *pattern {
	at := func(section, key string) int { return loc.find(idx, section, key) }
	ok := true
	bad := func(line int, format string, a ...any) {
		ok = false
		fail(line, format, a...)
	}
	compile := func(section, key, expr string) *regexp.Regexp {
		if expr == "" {
			bad(at(section, ""), "%s: missing %s", sectionName(section), key)
			return nil
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			bad(at(section, key), "%s: bad regex %q: %v", key, expr, err)
			return nil
		}
		return re
	}
	name := ps.Name
	if name == "" {
		name = fmt.Sprintf("%s#%d", strings.TrimSuffix(filepath.Base(path), ".toml"), idx+1)
	}
	p := &pattern{name: name, source: path}
	if ps.CommandMatch == "" {
		bad(at("", "name"), "pattern %q: missing command_match", name)
	} else {
		p.match = compile("", "command_match", ps.CommandMatch)
	}
	switch Category(ps.Category) {
	case "", Status, Content, Data, Unknown:
		p.category = Category(ps.Category)
	default:
		bad(at("", "category"), "category %q: want status, content, data or unknown", ps.Category)
	}
	um := &userMatcher{}
	if s := ps.Success; s != nil {
		um.re = compile("success", "pattern", s.Pattern)
		if s.Summary == nil {
			bad(at("success", ""), "[success]: missing summary (summary = \"\" for a bare ✓)")
		} else if um.tmpl = *s.Summary; um.re != nil {
			for _, m := range placeholder().FindAllStringSubmatch(um.tmpl, -1) {
				if um.re.SubexpIndex(m[1]) < 0 {
					bad(at("success", "summary"), "summary: {%s} is not a named group (?P<%s>...) of the success pattern", m[1], m[1])
				}
			}
		}
	}
	if f := ps.Failure; f != nil {
		flt := &failFilter{Strategy: strategy(f.Strategy), Lines: f.Lines}
		switch flt.Strategy {
		case strategyTail, strategyHead:
			if f.Lines < 0 {
				bad(at("failure", "lines"), "lines: must be positive")
			}
		case strategyGrep:
			flt.Grep = compile("failure", "grep", f.Grep)
		case strategyBetween:
			// oo matches start and end as plain substrings ("make[");
			// regex = true or /…/ asks for a regex.
			flt.Start = compile("failure", "start", betweenExpr(f.Start, f.Regex))
			flt.End = compile("failure", "end", betweenExpr(f.End, f.Regex))
		case "":
			bad(at("failure", ""), "[failure]: missing strategy (tail, head, grep or between)")
		default:
			bad(at("failure", "strategy"), "strategy %q: want tail, head, grep or between", f.Strategy)
		}
		p.filter = flt
	}
	if !ok {
		return nil
	}
	p.newMatcher = func(*Set) matcher { return &userMatcher{re: um.re, tmpl: um.tmpl} }
	return p
}

// betweenExpr is the regex for a between marker: the text itself when
// regex is set, the inside of /…/, or else the text matched literally.
func betweenExpr(s string, regex bool) string {
	switch {
	case s == "" || regex:
		return s
	case len(s) >= 2 && s[0] == '/' && s[len(s)-1] == '/':
		return s[1 : len(s)-1]
	}
	return regexp.QuoteMeta(s)
}

func sectionName(section string) string {
	if section == "" {
		return "pattern"
	}
	return "[" + section + "]"
}

var lineInMsg = lazyre.New(`line (\d+)`)

// errorLine finds the line of a TOML error: a ParseError carries it, a
// decoding error names it in its message.
func errorLine(err error) int {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return pe.Position.Line
	}
	if m := lineInMsg().FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

func tomlMessage(err error) string {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return pe.Message
	}
	return strings.TrimPrefix(err.Error(), "toml: ")
}

// locator finds the line of a key in a pattern file. BurntSushi/toml keeps
// key positions private, so the file is scanned: table headers
// ([[pattern]], [pattern.success], [success]) and `key =` lines.
type locator struct {
	keys    []locKey
	headers []locKey // [[pattern]] and section headers
}

type locKey struct {
	idx     int // which [[pattern]] (-1 before the first)
	section string
	key     string
	line    int
}

func newLocator(data string) *locator {
	lc := &locator{}
	idx, section := -1, ""
	for n, raw := range strings.Split(data, "\n") {
		l := strings.TrimSpace(raw)
		switch {
		case strings.HasPrefix(l, "[["):
			name := strings.TrimSpace(strings.Trim(strings.SplitN(l, "]]", 2)[0], "[ "))
			if name == "pattern" {
				idx++
			}
			section = ""
			lc.headers = append(lc.headers, locKey{idx: idx, line: n + 1})
		case strings.HasPrefix(l, "["):
			name := strings.TrimSpace(strings.Trim(strings.SplitN(l, "]", 2)[0], "[ "))
			section = name[strings.LastIndexByte(name, '.')+1:]
			lc.headers = append(lc.headers, locKey{idx: idx, section: section, line: n + 1})
		default:
			k, _, found := strings.Cut(l, "=")
			if !found || strings.HasPrefix(l, "#") {
				continue
			}
			k = strings.Trim(strings.TrimSpace(k), `"'`)
			lc.keys = append(lc.keys, locKey{idx: idx, section: section, key: k, line: n + 1})
			// An inline table (success = { pattern = ... }) holds its keys.
			if strings.Contains(l, "{") {
				lc.keys = append(lc.keys, locKey{idx: idx, section: k, key: "", line: n + 1})
			}
		}
	}
	sort.SliceStable(lc.keys, func(i, j int) bool { return lc.keys[i].line < lc.keys[j].line })
	return lc
}

// find returns the line of key in section of pattern idx (-1: any), or of
// the section's header when key is "" or absent, or 0.
func (lc *locator) find(idx int, section, key string) int {
	for _, k := range lc.keys {
		if (idx < 0 || k.idx == idx) && k.section == section && k.key == key && key != "" {
			return k.line
		}
	}
	for _, h := range lc.headers {
		// key names a table: [pattern.key]
		if (idx < 0 || h.idx == idx) && key != "" && h.section == key {
			return h.line
		}
	}
	for _, k := range lc.keys {
		// "success = { ... }" inline
		if (idx < 0 || k.idx == idx) && k.section == section && k.key == "" {
			return k.line
		}
	}
	for _, h := range lc.headers {
		if (idx < 0 || h.idx == idx) && h.section == section {
			return h.line
		}
	}
	return 0
}
