package patterns

import (
	"bytes"
	"strings"
	"time"
)

// pytest reads the final "N failed, M passed, K skipped in 0.12s" line
// (with or without its ==== frame) and the FAILED/ERROR lines of the
// short test summary (or of -v output) for the names.
type pytest struct {
	counts      map[string]int
	dur         toolDur
	summary     bool
	names       nameList
	inReport    bool
	interrupted bool // a collection error stopped the run
}

func newPytest(*Set) matcher { return &pytest{} }

// pytestWords are the outcomes pytest's last line can report.
var pytestWords = map[string]string{
	"passed": "passed", "failed": "failed", "skipped": "skipped", "error": "errors", "errors": "errors",
	"xfailed": "xfailed", "xpassed": "xpassed", "warning": "warnings", "warnings": "warnings",
	"deselected": "deselected", "rerun": "rerun",
}

func (p *pytest) line(l []byte) {
	if rest, ok := cut(l, "FAILED "); ok {
		p.names.add(pytestName(rest))
		return
	}
	if rest, ok := cut(l, "ERROR "); ok {
		p.names.add(pytestName(rest))
		return
	}
	if bytes.Contains(l, []byte("::")) && (bytes.Contains(l, []byte(" FAILED")) || bytes.Contains(l, []byte(" ERROR"))) && !bytes.HasPrefix(l, []byte(" ")) {
		// -v: "test_x.py::test_y FAILED   [ 50%]"
		if f := bytes.Fields(l); len(f) >= 2 && (string(f[1]) == "FAILED" || string(f[1]) == "ERROR") {
			p.names.add(string(f[0]))
		}
		return
	}
	if bytes.HasPrefix(l, []byte("!!!")) && bytes.Contains(l, []byte("Interrupted: ")) {
		p.interrupted = true
		return
	}
	if !bytes.Contains(l, []byte(" in ")) {
		return
	}
	t := bytes.Trim(l, "= ")
	i := bytes.LastIndex(t, []byte(" in "))
	if i < 0 {
		return
	}
	head, tail := t[:i], t[i+4:]
	if f := bytes.Fields(tail); len(f) > 0 {
		tail = f[0] // "0.06s (0:00:00)"
	}
	d, ok := parseToolDur(string(tail))
	if !ok {
		return
	}
	if bytes.Equal(head, []byte("no tests ran")) {
		p.counts, p.dur, p.summary = map[string]int{}, d, true
		return
	}
	items, ok := countItems(head, ",")
	if !ok {
		return
	}
	counts := map[string]int{}
	for w, n := range items {
		k, known := pytestWords[w]
		if !known {
			return
		}
		counts[k] += n
	}
	p.counts, p.dur, p.summary = counts, d, true
}

// pytestName takes "test_x.py::test_y - assert 1 == 2" to its node id.
func pytestName(b []byte) string {
	s := string(b)
	if i := strings.Index(s, " - "); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func (p *pytest) result(exitCode int, elapsed time.Duration) (outcome, bool) {
	if !p.summary {
		return outcome{}, false
	}
	c := p.counts
	counts := map[string]int{"passed": c["passed"], "failed": c["failed"], "skipped": c["skipped"]}
	for _, k := range []string{"errors", "xfailed", "xpassed", "warnings", "deselected", "rerun"} {
		if c[k] > 0 {
			counts[k] = c[k]
		}
	}
	dur, durText := p.dur.show(elapsed)
	setDuration(counts, dur)
	// pytest exits 5 when it collected nothing.
	if c["passed"]+c["failed"]+c["errors"]+c["xfailed"]+c["xpassed"] == 0 && !p.interrupted && (exitCode == 0 || exitCode == 5) {
		return ranNone(counts, joinItems(item{c["deselected"], "deselected", false}, item{c["skipped"], "skipped", false})), true
	}
	if c["failed"]+c["errors"] > 0 || exitCode != 0 {
		lead := failLead(c["failed"], c["errors"])
		rest := joinItems(item{c["passed"], "passed", true}, item{c["skipped"], "skipped", false}, item{c["xfailed"], "xfailed", false})
		switch {
		case p.interrupted:
			rest = "interrupted"
		case c["passed"]+c["failed"]+c["errors"]+c["skipped"] == 0:
			rest = ""
			lead = "no tests ran"
		}
		return outcome{summary: failText(lead, &p.names, rest), counts: counts}, true
	}
	s := joinNonEmpty(", ", joinItems(item{c["passed"], "passed", true}, item{0, "failed", true}, item{c["skipped"], "skipped", false},
		item{c["xfailed"], "xfailed", false}, item{c["xpassed"], "xpassed", false}, item{c["deselected"], "deselected", false}, item{c["warnings"], "warnings", false}), durText)
	return outcome{summary: s, counts: counts}, true
}

// unittest reads "Ran N tests in 0.001s" and "OK (skipped=1)" or
// "FAILED (failures=1, errors=1)", and the "FAIL: name (id)" headers.
type unittest struct {
	ran      int
	dur      toolDur
	haveRan  bool
	status   map[string]int
	done     bool
	ok       bool
	names    nameList
	inReport bool
}

func newUnittest(*Set) matcher { return &unittest{} }

func (u *unittest) line(l []byte) {
	if rest, ok := cut(l, "Ran "); ok {
		f := bytes.Fields(rest)
		if len(f) >= 4 && (string(f[1]) == "tests" || string(f[1]) == "test") && string(f[2]) == "in" {
			if n := atoi(f[0]); n >= 0 {
				u.ran, u.haveRan = n, true
				u.dur, _ = parseToolDur(string(f[3]))
			}
		}
		return
	}
	for _, p := range []string{"FAIL: ", "ERROR: "} {
		if rest, ok := cut(l, p); ok {
			u.names.add(unittestName(string(rest)))
			return
		}
	}
	status := ""
	var rest []byte
	if bytes.Equal(l, []byte("NO TESTS RAN")) { // Python 3.12+, exit status 5
		u.status, u.done, u.ok = map[string]int{}, true, true
		return
	}
	if bytes.HasPrefix(l, []byte("OK")) {
		status, rest = "OK", l[2:]
	} else if bytes.HasPrefix(l, []byte("FAILED (")) {
		status, rest = "FAILED", l[6:]
	} else {
		return
	}
	rest = bytes.TrimSpace(rest)
	m := map[string]int{}
	if len(rest) > 0 {
		if rest[0] != '(' || rest[len(rest)-1] != ')' {
			return
		}
		for _, kv := range strings.Split(string(rest[1:len(rest)-1]), ",") {
			k, v, found := strings.Cut(strings.TrimSpace(kv), "=")
			n := atoi([]byte(v))
			if !found || n < 0 {
				return
			}
			m[k] = n
		}
	}
	u.status, u.done, u.ok = m, true, status == "OK"
}

// unittestName turns "test_clamp (test_unit.TestMath.test_clamp)" into
// the dotted id; Python before 3.11 prints only the class in parentheses.
func unittestName(s string) string {
	name, id, found := strings.Cut(s, " (")
	if !found {
		return strings.TrimSpace(s)
	}
	id = strings.TrimSuffix(strings.TrimSpace(id), ")")
	if strings.HasSuffix(id, "."+name) {
		return id
	}
	return id + "." + name
}

func (u *unittest) result(exitCode int, elapsed time.Duration) (outcome, bool) {
	if !u.haveRan || !u.done {
		return outcome{}, false
	}
	s := u.status
	failed := s["failures"] + s["unexpected successes"]
	skipped := s["skipped"]
	passed := u.ran - failed - s["errors"] - skipped - s["expected failures"]
	counts := map[string]int{"passed": passed, "failed": failed, "skipped": skipped}
	if s["errors"] > 0 {
		counts["errors"] = s["errors"]
	}
	dur, durText := u.dur.show(elapsed)
	setDuration(counts, dur)
	if u.ok && passed+failed+s["errors"]+s["expected failures"] == 0 && (exitCode == 0 || exitCode == 5) {
		return ranNone(counts, joinItems(item{skipped, "skipped", false})), true
	}
	if !u.ok || exitCode != 0 {
		lead := failLead(failed, s["errors"])
		return outcome{summary: failText(lead, &u.names, joinItems(item{passed, "passed", true}, item{skipped, "skipped", false})), counts: counts}, true
	}
	text := joinNonEmpty(", ", joinItems(item{passed, "passed", true}, item{0, "failed", true}, item{skipped, "skipped", false}, item{s["expected failures"], "expected failures", false}), durText)
	return outcome{summary: text, counts: counts}, true
}

// detail starts at pytest's FAILURES (or ERRORS) section: what comes
// before is the session header and progress dots.
func (p *pytest) detail(l []byte) ([]byte, action) {
	if !p.inReport && bytes.HasPrefix(l, []byte("=")) {
		t := bytes.Trim(l, "= ")
		if bytes.Equal(t, []byte("FAILURES")) || bytes.Equal(t, []byte("ERRORS")) {
			p.inReport = true
			return l, restart
		}
	}
	return l, keep
}

// detail starts at the first ===== separator of unittest's report.
func (u *unittest) detail(l []byte) ([]byte, action) {
	if !u.inReport && bytes.HasPrefix(l, []byte("==========")) {
		u.inReport = true
		return l, restart
	}
	return l, keep
}
