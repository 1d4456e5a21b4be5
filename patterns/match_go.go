package patterns

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// goTest reads `go test` output in its three shapes: plain, -v and -json.
//
// Tests are counted as leaves: a test whose subtests reported is counted
// by its subtests (TestMul with three subtests is three tests), the way
// pytest counts parametrised cases. Plain output prints only failures, so
// there the number passed is unknown and the summary counts packages.
type goTest struct {
	passed, failed, skipped int
	verbose, json           bool
	pkgOK, pkgFail, noTests int
	noRun                   int // "ok pkg [no tests to run]": a filter matched nothing
	buildFailed             nameList
	names                   nameList
	maxPkg                  toolDur
	panicked                bool
	// text: the last result at each indentation depth, to find parents.
	stack []goResult
	// json: tests known to have subtests, by "package test".
	parents map[string]bool
}

type goResult struct {
	name    []byte // reused between lines: no allocation per test
	status  byte   // 'P', 'F', 'S'
	counted bool
}

func newGoTest(*Set) matcher { return &goTest{} }

func (g *goTest) line(l []byte) {
	if len(l) > 1 && l[0] == '{' && l[1] == '"' {
		if g.jsonLine(l) {
			return
		}
	}
	t := l
	depth := 0
	if len(t) > 0 && t[0] == ' ' {
		n := indent(t)
		t = t[n:]
		depth = n / 4
	}
	if len(t) > 4 && t[0] == '-' && t[1] == '-' && t[2] == '-' && t[3] == ' ' {
		var st byte
		var rest []byte
		var ok bool
		if rest, ok = cut(t, "--- PASS: "); ok {
			st = 'P'
		} else if rest, ok = cut(t, "--- FAIL: "); ok {
			st = 'F'
		} else if rest, ok = cut(t, "--- SKIP: "); ok {
			st = 'S'
		} else {
			return
		}
		if i := bytes.Index(rest, []byte(" (")); i >= 0 {
			rest = rest[:i]
		}
		g.textResult(depth, rest, st)
		return
	}
	if depth > 0 {
		return
	}
	switch {
	case bytes.HasPrefix(l, []byte("=== RUN")):
		g.verbose = true
	case bytes.HasPrefix(l, []byte("ok  \t")) || bytes.HasPrefix(l, []byte("ok \t")):
		g.pkgOK++
		if bytes.HasSuffix(l, []byte("[no tests to run]")) {
			g.noRun++
		}
		g.pkgTime(l)
		g.stack = g.stack[:0]
	case bytes.HasPrefix(l, []byte("FAIL\t")):
		g.pkgFail++
		f := strings.Fields(string(l))
		if len(f) >= 2 && (strings.Contains(string(l), "[build failed]") || strings.Contains(string(l), "[setup failed]")) {
			g.buildFailed.add(f[1])
		}
		g.pkgTime(l)
		g.stack = g.stack[:0]
	case bytes.HasPrefix(l, []byte("?   \t")):
		g.noTests++
	case bytes.HasPrefix(l, []byte("panic: ")):
		g.panicked = true
	}
}

func (g *goTest) pkgTime(l []byte) {
	f := bytes.Fields(l)
	if len(f) >= 3 {
		if d, ok := parseToolDur(string(f[2])); ok && d.d > g.maxPkg.d {
			g.maxPkg = d
		}
	}
}

func (g *goTest) count(st byte, name []byte, delta int) {
	switch st {
	case 'P':
		g.passed += delta
	case 'F':
		g.failed += delta
		if delta > 0 {
			g.names.add(string(name))
		} else {
			g.names.remove(string(name))
		}
	case 'S':
		g.skipped += delta
	}
}

// textResult counts a "--- X: name" line. Subtests are printed indented
// right after their parent, so the parent is uncounted when its first
// subtest appears.
func (g *goTest) textResult(depth int, name []byte, st byte) {
	if depth > 0 && depth <= len(g.stack) {
		p := &g.stack[depth-1]
		if p.counted && len(name) > len(p.name) && name[len(p.name)] == '/' && bytes.HasPrefix(name, p.name) {
			g.count(p.status, p.name, -1)
			p.counted = false
		}
	}
	g.count(st, name, 1)
	if depth > len(g.stack) {
		depth = len(g.stack)
	}
	if depth < cap(g.stack) {
		g.stack = g.stack[:depth+1]
	} else {
		g.stack = append(g.stack, goResult{})
	}
	r := &g.stack[depth]
	r.name = append(r.name[:0], name...)
	r.status, r.counted = st, true
}

// stripTestVariant turns "pkg [pkg.test]" into "pkg".
func stripTestVariant(s string) string {
	if i := strings.Index(s, " ["); i > 0 {
		return s[:i]
	}
	return s
}

type goEvent struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	FailedBuild string
	ImportPath  string
}

// jsonAction extracts the Action of a test2json line without decoding it:
// most lines are "output" events, which the counters ignore.
func jsonAction(l []byte) string {
	i := bytes.Index(l, []byte(`"Action":"`))
	if i < 0 {
		return ""
	}
	rest := l[i+10:]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// jsonLine handles a go test -json event; false if l is not one.
func (g *goTest) jsonLine(l []byte) bool {
	act := jsonAction(l)
	switch act {
	case "":
		return false
	case "pass", "fail", "skip", "build-fail":
	case "output":
		// The package's closing line is only in an output event.
		g.json = true
		if bytes.Contains(l, []byte(`[no tests to run]\n"`)) && bytes.Contains(l, []byte(`"Output":"ok  `)) {
			g.noRun++
		}
		return true
	default:
		g.json = true
		return true
	}
	var ev goEvent
	if err := json.Unmarshal(l, &ev); err != nil {
		return false
	}
	g.json = true
	if act == "build-fail" {
		g.buildFailed.add(stripTestVariant(ev.ImportPath))
		return true
	}
	if ev.Test == "" {
		switch act {
		case "pass":
			g.pkgOK++
		case "fail":
			g.pkgFail++
			if ev.FailedBuild != "" {
				g.buildFailed.add(stripTestVariant(ev.FailedBuild))
			}
		case "skip":
			g.noTests++
		}
		if d, ok := parseToolDur(strconv.FormatFloat(ev.Elapsed, 'f', -1, 64)); ok && d.d > g.maxPkg.d {
			g.maxPkg = d
		}
		return true
	}
	// A subtest ends before its parent: mark the parents, and skip a
	// parent's own result when it arrives.
	key := ev.Package + " " + ev.Test
	if g.parents[key] {
		delete(g.parents, key)
		return true
	}
	if g.parents == nil {
		g.parents = map[string]bool{}
	}
	for name := ev.Test; ; {
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			break
		}
		name = name[:i]
		g.parents[ev.Package+" "+name] = true
	}
	st := byte('P')
	switch act {
	case "fail":
		st = 'F'
	case "skip":
		st = 'S'
	}
	g.count(st, []byte(ev.Test), 1)
	return true
}

// detail keeps what explains a failure: test logs, FAIL lines, compiler
// errors, panics; it drops run/pass/skip chatter and passing packages.
// -json output events are unwrapped to their text.
func (g *goTest) detail(l []byte) ([]byte, action) {
	if len(l) > 1 && l[0] == '{' && l[1] == '"' {
		switch jsonAction(l) {
		case "output", "build-output":
			var ev goEvent
			if json.Unmarshal(l, &ev) != nil {
				return nil, drop
			}
			l = []byte(strings.TrimRight(ev.Output, "\n"))
		case "":
		default:
			return nil, drop
		}
	}
	t := bytes.TrimLeft(l, " \t")
	for _, p := range goNoise {
		if bytes.HasPrefix(t, p) {
			return nil, drop
		}
	}
	if bytes.Equal(t, []byte("PASS")) || bytes.HasPrefix(l, []byte("ok  ")) || bytes.HasPrefix(l, []byte("?   \t")) {
		return nil, drop
	}
	return l, keep
}

var goNoise = [][]byte{[]byte("=== RUN"), []byte("=== PAUSE"), []byte("=== CONT"), []byte("=== NAME"), []byte("--- PASS: "), []byte("--- SKIP: ")}

func (g *goTest) result(exitCode int, elapsed time.Duration) (outcome, bool) {
	pkgs := g.pkgOK + g.pkgFail
	if pkgs+g.noTests+g.passed+g.failed+g.skipped+g.buildFailed.n == 0 {
		return outcome{}, false
	}
	// flowdeck's clock when it has one: the slowest package is not the run.
	dur, d := elapsed, FormatDuration(elapsed)
	if dur <= 0 {
		dur, d = g.maxPkg.show(0)
	}
	counts := map[string]int{"failed": g.failed, "packages": pkgs}
	knowPassed := g.verbose || g.json
	if knowPassed {
		counts["passed"] = g.passed
		counts["skipped"] = g.skipped
	}
	if g.pkgFail > 0 {
		counts["packages_failed"] = g.pkgFail
	}
	if g.noTests > 0 {
		counts["no_test_files"] = g.noTests
	}
	setDuration(counts, dur)
	if g.ranNone(exitCode) {
		return ranNone(counts, matchedNone(g.noRun), noTestText(g.noTests), joinItems(item{g.skipped, "skipped", false})), true
	}
	var s string
	switch {
	case g.failed > 0:
		rest := ""
		if knowPassed {
			rest = joinNonEmpty(", ", joinItems(item{g.passed, "passed", true}, item{g.skipped, "skipped", false}), plural(pkgs, "package"))
		} else {
			rest = joinNonEmpty(", ", plural(g.pkgFail, "package")+" failed", plural(g.pkgOK, "package")+" ok")
		}
		if g.panicked {
			rest = "panic, " + rest
		}
		s = failText(fmt.Sprintf("%d failed", g.failed), &g.names, rest)
	case g.buildFailed.n > 0:
		s = failText("build failed", &g.buildFailed, "")
	case g.pkgFail > 0 || exitCode != 0:
		lead := plural(g.pkgFail, "package") + " failed"
		if g.panicked {
			lead += " (panic)"
		}
		s = joinNonEmpty(", ", lead, plural(g.pkgOK, "package")+" ok")
	case knowPassed:
		s = joinNonEmpty(", ", joinItems(item{g.passed, "passed", true}, item{0, "failed", true}, item{g.skipped, "skipped", false}), plural(pkgs, "package"), d)
	default:
		s = joinNonEmpty(", ", plural(g.pkgOK, "package")+" ok", noTestText(g.noTests), d)
	}
	return outcome{summary: s, counts: counts}, true
}

// ranNone reports whether the run succeeded without running a test:
// every package either has no test files or ran none ("[no tests to
// run]"), or, where results are listed (-v, -json), none passed or failed.
func (g *goTest) ranNone(exitCode int) bool {
	if exitCode != 0 || g.failed > 0 || g.pkgFail > 0 || g.buildFailed.n > 0 || g.panicked || g.pkgOK+g.noTests == 0 {
		return false
	}
	if g.verbose || g.json {
		return g.passed == 0
	}
	return g.pkgOK == g.noRun
}

func matchedNone(n int) string {
	if n == 0 {
		return ""
	}
	return plural(n, "package") + " matched no test"
}

func noTestText(n int) string {
	if n == 0 {
		return ""
	}
	return plural(n, "package") + " without tests"
}

// goDiag counts compiler and vet diagnostics ("file.go:3:7: msg") and the
// "# package" headers that group them.
type goDiag struct {
	vet        bool
	diags      int
	pkgs       int
	firstError string
}

func newGoBuild(*Set) matcher { return &goDiag{} }
func newGoVet(*Set) matcher   { return &goDiag{vet: true} }

func (g *goDiag) line(l []byte) {
	if bytes.HasPrefix(l, []byte("# ")) {
		if !bytes.HasPrefix(l, []byte("# [")) { // vet repeats "# [pkg]" for the same package
			g.pkgs++
		}
		return
	}
	t := l
	if v, ok := cut(t, "vet: "); ok {
		t = v
	}
	if i := bytes.Index(t, []byte(".go:")); i > 0 && bytes.Contains(t[i:], []byte(": ")) && !bytes.HasPrefix(t, []byte(" ")) {
		g.diags++
		if g.firstError == "" {
			g.firstError = string(t)
		}
	}
}

func (g *goDiag) result(exitCode int, _ time.Duration) (outcome, bool) {
	word := "error"
	if g.vet {
		word = "issue"
	}
	counts := map[string]int{word + "s": g.diags}
	if g.pkgs > 0 {
		counts["packages"] = g.pkgs
	}
	if g.diags == 0 && exitCode != 0 {
		return outcome{}, false
	}
	s := plural(g.diags, word)
	if g.pkgs > 1 {
		s += " in " + plural(g.pkgs, "package")
	}
	return outcome{summary: s, counts: counts}, true
}
