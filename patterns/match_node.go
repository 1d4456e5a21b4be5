package patterns

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// jest reads its closing block ("Tests: 2 failed, 1 skipped, 4 passed,
// 7 total", "Test Suites: ...", "Time: 1.2 s") and the "● describe › test"
// headers of failures.
type jest struct {
	tests, suites map[string]int
	dur           toolDur
	names         nameList
	suiteErrors   int
	failedSuites  nameList
	noneFound     bool // "No tests found, exiting with code 1"
}

func newJest(*Set) matcher { return &jest{} }

func (j *jest) line(l []byte) {
	t := trimSpace(l)
	switch {
	case bytes.HasPrefix(t, []byte("Tests:")):
		if m, ok := countItems(t[len("Tests:"):], ","); ok {
			j.tests = m
		}
	case bytes.HasPrefix(t, []byte("Test Suites:")):
		if m, ok := countItems(t[len("Test Suites:"):], ","); ok {
			j.suites = m
		}
	case bytes.HasPrefix(t, []byte("Time:")):
		v := string(trimSpace(t[len("Time:"):]))
		if i := strings.IndexByte(v, ','); i >= 0 {
			v = v[:i] // "0.24 s, estimated 1 s"
		}
		if d, ok := parseToolDur(v); ok {
			j.dur = d
		}
	case bytes.Contains(t, []byte("No tests found, exiting")):
		j.noneFound = true
	case bytes.HasPrefix(t, []byte("FAIL ")):
		j.failedSuites.add(string(trimSpace(t[len("FAIL "):])))
	case bytes.HasPrefix(t, []byte("● ")):
		name := string(t[len("● "):])
		switch {
		case name == "Console":
		case strings.HasPrefix(name, "Test suite failed to run"):
			j.suiteErrors++
		default:
			j.names.add(name)
		}
	}
}

func (j *jest) result(exitCode int, elapsed time.Duration) (outcome, bool) {
	if j.tests == nil && j.noneFound {
		return ranNone(map[string]int{"passed": 0, "failed": 0}, "none found"), true
	}
	if j.tests == nil {
		if j.suites != nil && j.suites["failed"] > 0 {
			s := plural(j.suites["failed"], "suite") + " failed to run"
			return outcome{summary: s, counts: map[string]int{"suites_failed": j.suites["failed"]}}, true
		}
		return outcome{}, false
	}
	t := j.tests
	counts := reported(t)
	if j.suites != nil {
		counts["suites"] = j.suites["total"]
		if j.suites["failed"] > 0 {
			counts["suites_failed"] = j.suites["failed"]
		}
	}
	dur, durText := j.dur.show(elapsed)
	setDuration(counts, dur)
	if t["passed"]+t["failed"] == 0 && counts["suites_failed"] == 0 && (exitCode == 0 || j.noneFound) {
		return ranNone(counts, joinItems(item{t["skipped"], "skipped", false}, item{t["todo"], "todo", false})), true
	}
	if t["failed"] > 0 || exitCode != 0 {
		rest := joinItems(item{t["passed"], "passed", true}, item{t["skipped"], "skipped", false}, item{t["todo"], "todo", false})
		if t["failed"] == 0 && j.suites != nil && j.suites["failed"] > 0 {
			// A suite that failed to run (syntax error) has no failing test.
			lead := plural(j.suites["failed"], "suite") + " failed"
			return outcome{summary: failText(lead, &j.failedSuites, rest), counts: counts}, true
		}
		return outcome{summary: failText(fmt.Sprintf("%d failed", t["failed"]), &j.names, rest), counts: counts}, true
	}
	s := joinNonEmpty(", ", joinItems(item{t["passed"], "passed", true}, item{0, "failed", true}, item{t["skipped"], "skipped", false}, item{t["todo"], "todo", false}),
		plural(counts["suites"], "suite"), durText)
	return outcome{summary: s, counts: counts}, true
}

// reported copies the counters a tool printed; passed and failed are
// always present (a tool omits them when they are 0).
func reported(m map[string]int) map[string]int {
	out := map[string]int{"passed": 0, "failed": 0}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// vitest reads "Tests  2 failed | 4 passed | 1 skipped (7)", "Test Files
// ...", "Duration 1.2s (...)" — the last block wins, since a terminal run
// redraws it while tests run — and the "FAIL file > suite > test" lines.
type vitest struct {
	tests, files map[string]int
	dur          toolDur
	names        nameList
	inReport     bool
	noneFound    bool // "No test files found, exiting with code 1"
}

func newVitest(*Set) matcher { return &vitest{} }

// vitestCounts parses "2 failed | 4 passed (6)".
func vitestCounts(b []byte) (map[string]int, bool) {
	b = trimSpace(b)
	if i := bytes.LastIndexByte(b, '('); i >= 0 {
		total := atoi(bytes.TrimSuffix(b[i+1:], []byte(")")))
		b = b[:i]
		m, ok := countItems(b, "|")
		if ok && total >= 0 {
			m["total"] = total
		}
		return m, ok
	}
	return countItems(b, "|")
}

func (v *vitest) line(l []byte) {
	t := trimSpace(l)
	switch {
	case bytes.HasPrefix(t, []byte("Tests ")):
		if m, ok := vitestCounts(t[len("Tests "):]); ok {
			v.tests = m
		}
	case bytes.HasPrefix(t, []byte("Test Files ")):
		if m, ok := vitestCounts(t[len("Test Files "):]); ok {
			v.files = m
		}
	case bytes.Contains(t, []byte("No test files found, exiting")):
		v.noneFound = true
	case bytes.HasPrefix(t, []byte("Duration ")):
		if f := bytes.Fields(t[len("Duration "):]); len(f) > 0 {
			if d, ok := parseToolDur(string(f[0])); ok {
				v.dur = d
			}
		}
	case bytes.HasPrefix(t, []byte("FAIL ")):
		name := string(trimSpace(t[len("FAIL "):]))
		if strings.Contains(name, " > ") {
			v.names.add(name)
		}
	}
}

func (v *vitest) result(exitCode int, elapsed time.Duration) (outcome, bool) {
	if v.tests == nil && v.noneFound {
		return ranNone(map[string]int{"passed": 0, "failed": 0}, "no test files found"), true
	}
	if v.tests == nil {
		return outcome{}, false
	}
	t := v.tests
	counts := reported(t)
	if v.files != nil {
		counts["files"] = v.files["total"]
	}
	dur, durText := v.dur.show(elapsed)
	setDuration(counts, dur)
	if t["passed"]+t["failed"] == 0 && exitCode == 0 {
		return ranNone(counts, joinItems(item{t["skipped"], "skipped", false}, item{t["todo"], "todo", false})), true
	}
	if t["failed"] > 0 || exitCode != 0 {
		rest := joinItems(item{t["passed"], "passed", true}, item{t["skipped"], "skipped", false}, item{t["todo"], "todo", false})
		return outcome{summary: failText(fmt.Sprintf("%d failed", t["failed"]), &v.names, rest), counts: counts}, true
	}
	s := joinNonEmpty(", ", joinItems(item{t["passed"], "passed", true}, item{0, "failed", true}, item{t["skipped"], "skipped", false}, item{t["todo"], "todo", false}),
		plural(counts["files"], "file"), durText)
	return outcome{summary: s, counts: counts}, true
}

// nodeTest reads node --test's closing counters, in the spec reporter's
// form ("ℹ pass 4") or TAP's ("# pass 4"), and the failing tests: the
// spec reporter lists them under "✖ failing tests:"; otherwise the leaf
// "✖ name" / "not ok N - name" lines are used (a parent's line follows its
// children, less indented).
type nodeTest struct {
	counts      map[string]int
	dur         toolDur
	seen        bool
	inFailing   bool
	listed      nameList // under "failing tests:"
	leaves      nameList
	lastIndent  int
	haveLastInd bool
}

func newNodeTest(*Set) matcher { return &nodeTest{counts: map[string]int{}} }

var nodeCounters = map[string]bool{"tests": true, "suites": true, "pass": true, "fail": true, "cancelled": true, "skipped": true, "todo": true}

func (n *nodeTest) line(l []byte) {
	t := trimSpace(l)
	var rest []byte
	var ok bool
	if rest, ok = cut(t, "ℹ "); !ok {
		rest, ok = cut(t, "# ")
	}
	if ok {
		f := bytes.Fields(rest)
		if len(f) == 2 {
			k := string(f[0])
			if nodeCounters[k] {
				if v := atoi(f[1]); v >= 0 {
					n.counts[k] = v
					n.seen = true
				}
			} else if k == "duration_ms" {
				if d, ok := parseToolDur(string(f[1]) + "ms"); ok {
					n.dur = d
				}
			}
		}
		return
	}
	if bytes.HasPrefix(t, []byte("✖ failing tests:")) {
		n.inFailing = true
		return
	}
	ind := indent(l)
	name := ""
	if r, ok := cut(t, "✖ "); ok {
		name = string(r)
		if i := strings.LastIndex(name, " ("); i >= 0 {
			name = name[:i]
		}
	} else if r, ok := cut(t, "not ok "); ok {
		if _, after, found := strings.Cut(string(r), " - "); found {
			name = after
			if i := strings.Index(name, " # "); i >= 0 {
				name = name[:i]
			}
		}
	} else if bytes.HasPrefix(t, []byte("✔ ")) || bytes.HasPrefix(t, []byte("ok ")) || bytes.HasPrefix(t, []byte("﹣ ")) {
		n.lastIndent, n.haveLastInd = ind, true
		return
	} else {
		return
	}
	if n.inFailing {
		n.listed.add(name)
		return
	}
	// A less indented result than the previous one closes a parent.
	if !(n.haveLastInd && ind < n.lastIndent) {
		n.leaves.add(name)
	}
	n.lastIndent, n.haveLastInd = ind, true
}

func (n *nodeTest) result(exitCode int, elapsed time.Duration) (outcome, bool) {
	if !n.seen {
		return outcome{}, false
	}
	c := n.counts
	counts := map[string]int{"passed": c["pass"], "failed": c["fail"], "skipped": c["skipped"], "todo": c["todo"], "total": c["tests"]}
	if c["cancelled"] > 0 {
		counts["cancelled"] = c["cancelled"]
	}
	if c["suites"] > 0 {
		counts["suites"] = c["suites"]
	}
	dur, durText := n.dur.show(elapsed)
	setDuration(counts, dur)
	if c["pass"]+c["fail"]+c["cancelled"] == 0 && exitCode == 0 {
		return ranNone(counts, joinItems(item{c["skipped"], "skipped", false}, item{c["todo"], "todo", false})), true
	}
	if c["fail"]+c["cancelled"] > 0 || exitCode != 0 {
		names := &n.listed
		if names.n == 0 {
			names = &n.leaves
		}
		lead := fmt.Sprintf("%d failed", c["fail"])
		if c["cancelled"] > 0 {
			lead += fmt.Sprintf(", %d cancelled", c["cancelled"])
		}
		rest := joinItems(item{c["pass"], "passed", true}, item{c["skipped"], "skipped", false}, item{c["todo"], "todo", false})
		return outcome{summary: failText(lead, names, rest), counts: counts}, true
	}
	s := joinNonEmpty(", ", joinItems(item{c["pass"], "passed", true}, item{0, "failed", true}, item{c["skipped"], "skipped", false}, item{c["todo"], "todo", false}), durText)
	return outcome{summary: s, counts: counts}, true
}

// detail drops jest's live "RUNS" lines; the closing "Summary of all
// failing tests" (several suites) replaces the inline reports.
func (j *jest) detail(l []byte) ([]byte, action) {
	t := trimSpace(l)
	if bytes.HasPrefix(t, []byte("RUNS ")) || bytes.HasPrefix(t, []byte("Determining test suites")) {
		return nil, drop
	}
	if bytes.HasPrefix(t, []byte("Summary of all failing tests")) {
		return l, restart
	}
	return l, keep
}

// detail starts at vitest's "Failed Tests N" report and drops the live
// progress lines.
func (v *vitest) detail(l []byte) ([]byte, action) {
	if !v.inReport && bytes.Contains(l, []byte(" Failed Tests ")) {
		v.inReport = true
		return l, restart
	}
	if bytes.HasSuffix(l, []byte("[queued]")) {
		return nil, drop
	}
	return l, keep
}

// detail starts at the spec reporter's "✖ failing tests:" list, which
// repeats every failure with its error.
func (n *nodeTest) detail(l []byte) ([]byte, action) {
	if bytes.HasPrefix(trimSpace(l), []byte("✖ failing tests:")) {
		return l, restart
	}
	return l, keep
}
