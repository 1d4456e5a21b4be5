package patterns

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// mocha reads the spec reporter's closing counters ("3 passing (12ms)",
// "1 pending", "2 failing") and the failure report that follows them,
// where each failure is numbered and its title path is printed one
// segment a line, the last ending with ':' ("1) sum" / "adds 1 + 2:").
type mocha struct {
	passed, pending, failed int
	seen, noneFound         bool
	dur                     toolDur
	names                   nameList
	inReport                bool
	title                   []string // the failure title being read
}

func newMocha(*Set) matcher { return &mocha{} }

func (m *mocha) line(l []byte) {
	t := trimSpace(l)
	if bytes.HasPrefix(t, []byte("Error: No test files found")) {
		m.noneFound = true
		return
	}
	if f := bytes.Fields(t); len(f) >= 2 && len(f) <= 3 {
		n := atoi(f[0])
		switch word := string(f[1]); {
		case n < 0:
		case word == "passing":
			m.passed, m.seen = n, true
			if len(f) == 3 {
				if d, ok := parseToolDur(strings.Trim(string(f[2]), "()")); ok {
					m.dur = d
				}
			}
			return
		case word == "pending" && len(f) == 2:
			m.pending = n
			return
		case word == "failing" && len(f) == 2:
			m.failed, m.inReport = n, true
			return
		}
	}
	if m.inReport {
		m.reportLine(t)
	}
}

// reportLine collects the title paths of the numbered failures.
func (m *mocha) reportLine(t []byte) {
	if i := bytes.Index(t, []byte(") ")); i > 0 && atoi(t[:i]) > 0 {
		m.title = append(m.title[:0], string(t[i+2:]))
	} else if len(m.title) > 0 && len(t) > 0 {
		m.title = append(m.title, string(t))
	} else {
		return
	}
	if last := m.title[len(m.title)-1]; strings.HasSuffix(last, ":") {
		m.title[len(m.title)-1] = strings.TrimSuffix(last, ":")
		m.names.add(strings.Join(m.title, " "))
		m.title = m.title[:0]
	}
}

func (m *mocha) result(exitCode int, elapsed time.Duration) (outcome, bool) {
	if m.noneFound && !m.seen {
		return ranNone(map[string]int{"passed": 0, "failed": 0}, "no test files found"), true
	}
	if !m.seen {
		return outcome{}, false
	}
	counts := map[string]int{"passed": m.passed, "failed": m.failed, "skipped": m.pending}
	dur, durText := m.dur.show(elapsed)
	setDuration(counts, dur)
	if m.passed+m.failed == 0 && exitCode == 0 {
		return ranNone(counts, joinItems(item{m.pending, "pending", false})), true
	}
	if m.failed > 0 || exitCode != 0 {
		rest := joinItems(item{m.passed, "passed", true}, item{m.pending, "pending", false})
		return outcome{summary: failText(fmt.Sprintf("%d failed", m.failed), &m.names, rest), counts: counts}, true
	}
	s := joinNonEmpty(", ", joinItems(item{m.passed, "passed", true}, item{0, "failed", true}, item{m.pending, "pending", false}), durText)
	return outcome{summary: s, counts: counts}, true
}

// detail starts at the "N failing" line: the report of every failure
// follows it.
func (m *mocha) detail(l []byte) ([]byte, action) {
	if f := bytes.Fields(l); len(f) == 2 && string(f[1]) == "failing" && atoi(f[0]) > 0 {
		return l, restart
	}
	return l, keep
}
