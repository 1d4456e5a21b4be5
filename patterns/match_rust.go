package patterns

import (
	"bytes"
	"fmt"
	"time"
)

// cargoDiag counts rustc diagnostics as cargo prints them.
type cargoDiag struct {
	errors, warnings int
	compiled         int
	couldNot         nameList // crates that did not compile
	finished         bool
	dur              toolDur
}

// diagLine counts one line if it is a cargo or rustc status line.
func (c *cargoDiag) diagLine(l []byte) {
	t := bytes.TrimLeft(l, " ")
	switch {
	case bytes.HasPrefix(t, []byte("Compiling ")):
		c.compiled++
	case bytes.HasPrefix(t, []byte("Finished ")):
		c.finished = true
		if i := bytes.LastIndex(t, []byte(" in ")); i >= 0 {
			if d, ok := parseToolDur(string(t[i+4:])); ok {
				c.dur = d
			}
		}
	case bytes.HasPrefix(l, []byte("error: could not compile `")):
		rest := l[len("error: could not compile `"):]
		if i := bytes.IndexByte(rest, '`'); i > 0 {
			c.couldNot.add(string(rest[:i]))
		}
	case bytes.HasPrefix(l, []byte("error[")) || bytes.HasPrefix(l, []byte("error: ")):
		if !bytes.HasPrefix(l, []byte("error: aborting")) && !bytes.HasPrefix(l, []byte("error: test failed")) {
			c.errors++
		}
	case bytes.HasPrefix(l, []byte("warning: ")) || bytes.HasPrefix(l, []byte("warning[")):
		// "warning: `x` (lib) generated 2 warnings" repeats the count.
		if !bytes.Contains(l, []byte(" generated ")) {
			c.warnings++
		}
	}
}

// cargoBuild: cargo build, check, clippy.
type cargoBuild struct{ cargoDiag }

func newCargoBuild(*Set) matcher { return &cargoBuild{} }

func (c *cargoBuild) line(l []byte) { c.diagLine(l) }

func (c *cargoBuild) result(exitCode int, elapsed time.Duration) (outcome, bool) {
	if !c.finished && c.compiled == 0 && c.errors == 0 && c.warnings == 0 {
		return outcome{}, false
	}
	counts := map[string]int{"errors": c.errors, "warnings": c.warnings, "compiled": c.compiled}
	if exitCode != 0 || c.errors > 0 {
		s := plural(c.errors, "error")
		if c.warnings > 0 {
			s += ", " + plural(c.warnings, "warning")
		}
		if c.couldNot.n > 0 {
			s += " (could not compile " + quoteNames(&c.couldNot) + ")"
		}
		return outcome{summary: s, counts: counts}, true
	}
	dur, durText := c.dur.show(elapsed)
	setDuration(counts, dur)
	s := joinNonEmpty(", ", plural(c.compiled, "crate")+" compiled", plural(c.warnings, "warning"), durText)
	return outcome{summary: s, counts: counts}, true
}

// cargoTest sums the "test result:" line of every test binary.
type cargoTest struct {
	cargoDiag
	passed, failed, ignored, measured, filtered int
	suites                                      int
	testDur                                     toolDur
	names                                       nameList
	inReport                                    bool
}

func newCargoTest(*Set) matcher { return &cargoTest{} }

func (c *cargoTest) line(l []byte) {
	if rest, ok := cut(l, "test result: "); ok {
		// "ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s"
		if i := bytes.IndexByte(rest, '.'); i >= 0 {
			rest = rest[i+1:]
		}
		for _, part := range bytes.Split(rest, []byte(";")) {
			f := bytes.Fields(part)
			if len(f) >= 3 && string(f[0]) == "finished" && string(f[1]) == "in" {
				if d, ok := parseToolDur(string(f[2])); ok {
					c.testDur.add(d)
				}
				continue
			}
			if len(f) < 2 {
				continue
			}
			n := atoi(f[0])
			switch string(f[1]) {
			case "passed":
				c.passed += n
			case "failed":
				c.failed += n
			case "ignored":
				c.ignored += n
			case "measured":
				c.measured += n
			case "filtered":
				c.filtered += n
			}
		}
		c.suites++
		return
	}
	if rest, ok := cut(l, "test "); ok && bytes.HasSuffix(rest, []byte(" ... FAILED")) {
		c.names.add(string(rest[:len(rest)-len(" ... FAILED")]))
		return
	}
	c.diagLine(l)
}

func (c *cargoTest) result(exitCode int, elapsed time.Duration) (outcome, bool) {
	if c.suites == 0 {
		if c.errors > 0 || c.couldNot.n > 0 {
			s := "build failed: " + plural(c.errors, "error")
			return outcome{summary: s, counts: map[string]int{"errors": c.errors}}, true
		}
		return outcome{}, false
	}
	counts := map[string]int{"passed": c.passed, "failed": c.failed, "ignored": c.ignored, "suites": c.suites}
	if c.measured > 0 {
		counts["measured"] = c.measured
	}
	if c.filtered > 0 {
		counts["filtered"] = c.filtered
	}
	dur, durText := c.testDur.show(elapsed)
	setDuration(counts, dur)
	if c.passed+c.failed+c.measured == 0 && exitCode == 0 {
		return ranNone(counts, joinItems(item{c.ignored, "ignored", false}, item{c.filtered, "filtered out", false})), true
	}
	if c.failed > 0 || exitCode != 0 {
		rest := joinItems(item{c.passed, "passed", true}, item{c.ignored, "ignored", false})
		return outcome{summary: failText(fmt.Sprintf("%d failed", c.failed), &c.names, rest), counts: counts}, true
	}
	s := joinNonEmpty(", ", joinItems(item{c.passed, "passed", true}, item{c.failed, "failed", true}, item{c.ignored, "ignored", false}, item{c.filtered, "filtered out", false}), plural(c.suites, "suite"), durText)
	return outcome{summary: s, counts: counts}, true
}

// detail drops per-test "ok" lines and cargo progress; panics, assertion
// output and compiler errors stay.
func (c *cargoTest) detail(l []byte) ([]byte, action) {
	if bytes.HasPrefix(l, []byte("test ")) && (bytes.HasSuffix(l, []byte(" ... ok")) || bytes.HasSuffix(l, []byte(" ... ignored"))) {
		return nil, drop
	}
	if bytes.Equal(l, []byte("failures:")) && !c.inReport {
		// The first "failures:" starts the report of a failing binary.
		c.inReport = true
		return l, restart
	}
	t := bytes.TrimLeft(l, " ")
	for _, p := range cargoProgress {
		if bytes.HasPrefix(t, p) {
			return nil, drop
		}
	}
	return l, keep
}

var cargoProgress = [][]byte{[]byte("Compiling "), []byte("Building "), []byte("Running "), []byte("Finished "), []byte("Doc-tests ")}
