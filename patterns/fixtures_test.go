package patterns

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// fixtureDir holds outputs captured from the real tools (see FIXTURES.md):
// <tool>/<case>.out is the raw pty output, <case>.cmd the command line,
// <case>.exit the exit code.
const fixtureDir = "../testdata/outputs"

type counts = map[string]int

// fixtureWant is what each fixture must classify as, with the default
// options. Every number was checked against the tool's own output.
var fixtureWant = []struct {
	name    string
	class   Class
	pattern string
	summary string
	counts  counts
}{
	{"cargobuild/fail", Failure, "cargo build", "1 error (could not compile 'rs')", counts{"compiled": 1, "errors": 1, "warnings": 0}},
	{"cargobuild/pass", Passthrough, "cargo build", "1 crate compiled, 0 warnings, 0.11s", counts{"compiled": 1, "duration_ms": 110, "errors": 0, "warnings": 0}},
	// slow and timed are pass with edited times: the summary carries cargo's
	// own number (3.45s, not 3.5s); a sum keeps the precision printed.
	{"cargobuild/slow", Passthrough, "cargo build", "1 crate compiled, 0 warnings, 3.45s", counts{"compiled": 1, "duration_ms": 3450, "errors": 0, "warnings": 0}},
	{"cargobuild/warnings", Passthrough, "cargo build", "1 crate compiled, 1 warning, 0.11s", counts{"compiled": 1, "duration_ms": 110, "errors": 0, "warnings": 1}},
	{"cargotest/fail", Failure, "cargo test", "2 failed: tests::adds, tests::clamps_high (1 passed, 1 ignored)", counts{"duration_ms": 70, "failed": 2, "ignored": 1, "passed": 1, "suites": 1}},
	{"cargotest/no_tests", NoTests, "cargo test", "no tests ran, 5 filtered out", counts{"failed": 0, "filtered": 5, "ignored": 0, "passed": 0, "suites": 2}},
	{"cargotest/pass", Passthrough, "cargo test", "4 passed, 0 failed, 1 ignored, 3 suites", counts{"failed": 0, "ignored": 1, "passed": 4, "suites": 3}},
	{"cargotest/timed", Passthrough, "cargo test", "4 passed, 0 failed, 1 ignored, 3 suites, 1.75s", counts{"duration_ms": 1750, "failed": 0, "ignored": 1, "passed": 4, "suites": 3}},
	{"eslint/fail", Failure, "eslint", "3 errors, 2 warnings in 2 files", counts{"errors": 3, "files": 2, "warnings": 2}},
	{"eslint/pass", Passthrough, "eslint", "0 errors, 0 warnings", counts{"errors": 0, "files": 0, "warnings": 0}},
	{"gobuild/fail", Failure, "go build", "2 errors", counts{"errors": 2, "packages": 1}},
	{"gobuild/pass", Passthrough, "go build", "0 errors", counts{"errors": 0}},
	{"golangcilint/fail", Failure, "golangci-lint", "4 issues: errcheck 2, ineffassign 1, staticcheck 1", counts{"errcheck": 2, "ineffassign": 1, "issues": 4, "staticcheck": 1}},
	{"golangcilint/pass", Passthrough, "golangci-lint", "0 issues", counts{"issues": 0}},
	{"gotest/big_plain", Passthrough, "go test", "12 packages ok, 0.007s", counts{"duration_ms": 7, "failed": 0, "packages": 12}},
	{"gotest/big_verbose", Success, "go test", "132 passed, 0 failed, 1 skipped, 12 packages, 0.010s", counts{"duration_ms": 10, "failed": 0, "packages": 12, "passed": 132, "skipped": 1}},
	{"gotest/build_failed", Failure, "go test", "build failed: example.com/demo/calc, example.com/demo/cmd/demo", counts{"failed": 0, "packages": 2, "packages_failed": 2}},
	{"gotest/build_failed_json", Failure, "go test", "build failed: example.com/demo/calc, example.com/demo/cmd/demo", counts{"failed": 0, "packages": 2, "packages_failed": 2, "passed": 0, "skipped": 0}},
	{"gotest/fail_json", Failure, "go test", "2 failed: TestClamp, TestClampTable/above (9 passed, 2 skipped, 4 packages)", counts{"duration_ms": 5, "failed": 2, "no_test_files": 1, "packages": 4, "packages_failed": 1, "passed": 9, "skipped": 2}},
	{"gotest/fail_plain", Failure, "go test", "2 failed: TestClamp, TestClampTable/above (1 package failed, 3 packages ok)", counts{"duration_ms": 4, "failed": 2, "no_test_files": 1, "packages": 4, "packages_failed": 1}},
	{"gotest/fail_verbose", Failure, "go test", "2 failed: TestClamp, TestClampTable/above (9 passed, 2 skipped, 4 packages)", counts{"duration_ms": 6, "failed": 2, "no_test_files": 1, "packages": 4, "packages_failed": 1, "passed": 9, "skipped": 2}},
	{"gotest/no_test_files", NoTests, "go test", "no tests ran, 1 package without tests", counts{"failed": 0, "no_test_files": 1, "packages": 0}},
	{"gotest/no_tests_json", NoTests, "go test", "no tests ran, 3 packages matched no test, 2 packages without tests", counts{"duration_ms": 11, "failed": 0, "no_test_files": 2, "packages": 3, "passed": 0, "skipped": 0}},
	{"gotest/no_tests_plain", NoTests, "go test", "no tests ran, 3 packages matched no test, 2 packages without tests", counts{"duration_ms": 80, "failed": 0, "no_test_files": 2, "packages": 3}},
	{"gotest/no_tests_verbose", NoTests, "go test", "no tests ran, 3 packages matched no test, 2 packages without tests", counts{"duration_ms": 16, "failed": 0, "no_test_files": 2, "packages": 3}},
	{"gotest/panic", Failure, "go test", "1 failed: TestPanics (panic, 1 package failed, 2 packages ok)", counts{"duration_ms": 5, "failed": 1, "no_test_files": 2, "packages": 3, "packages_failed": 1}},
	{"gotest/pass_json", Success, "go test", "7 passed, 0 failed, 1 skipped, 3 packages, 0.006s", counts{"duration_ms": 6, "failed": 0, "no_test_files": 2, "packages": 3, "passed": 7, "skipped": 1}},
	{"gotest/pass_plain", Passthrough, "go test", "3 packages ok, 2 packages without tests, 0.007s", counts{"duration_ms": 7, "failed": 0, "no_test_files": 2, "packages": 3}},
	{"gotest/pass_verbose", Passthrough, "go test", "7 passed, 0 failed, 1 skipped, 3 packages, 0.004s", counts{"duration_ms": 4, "failed": 0, "no_test_files": 2, "packages": 3, "passed": 7, "skipped": 1}},
	{"govet/fail", Failure, "go vet", "1 issue", counts{"issues": 1}},
	{"govet/pass", Passthrough, "go vet", "0 issues", counts{"issues": 0}},
	{"jest/fail", Failure, "jest", "2 failed: sum › adds negatives, clamp › clamps high (2 passed, 1 skipped, 1 todo)", counts{"duration_ms": 318, "failed": 2, "passed": 2, "skipped": 1, "suites": 2, "suites_failed": 1, "todo": 1, "total": 6}},
	{"jest/no_tests", NoTests, "jest", "no tests ran, none found", counts{"failed": 0, "passed": 0}},
	{"jest/no_tests_pass", NoTests, "jest", "no tests ran, none found", counts{"failed": 0, "passed": 0}},
	{"jest/pass", Passthrough, "jest", "4 passed, 0 failed, 1 skipped, 1 todo, 2 suites, 0.334s", counts{"duration_ms": 334, "failed": 0, "passed": 4, "skipped": 1, "suites": 2, "todo": 1, "total": 6}},
	{"jest/suite_error", Failure, "jest", "1 suite failed: ./broken.test.js (4 passed, 1 skipped, 1 todo)", counts{"duration_ms": 490, "failed": 0, "passed": 4, "skipped": 1, "suites": 3, "suites_failed": 1, "todo": 1, "total": 6}},
	{"make/build_fail", Failure, "make", "2 errors, 0 warnings; target 'bad' failed", counts{"errors": 2, "warnings": 0}},
	{"make/build_pass", Passthrough, "make", "0 errors, 1 warning", counts{"errors": 0, "warnings": 1}},
	{"make/test_fail", Failure, "make", "go test: 2 failed: TestClamp, TestClampTable/above (1 package failed, 3 packages ok); target 'test-fail' failed", counts{"duration_ms": 4, "failed": 2, "no_test_files": 1, "packages": 4, "packages_failed": 1}},
	{"make/test_pass", Passthrough, "make", "go test: 3 packages ok, 2 packages without tests, 0.004s", counts{"duration_ms": 4, "failed": 0, "no_test_files": 2, "packages": 3}},
	{"mocha/fail", Failure, "mocha", "2 failed: sum adds 1 + 2, clamp clamps high (1 passed, 1 pending)", counts{"duration_ms": 24, "failed": 2, "passed": 1, "skipped": 1}},
	{"mocha/no_tests", NoTests, "mocha", "no tests ran", counts{"duration_ms": 10, "failed": 0, "passed": 0, "skipped": 0}},
	{"mocha/pass", Passthrough, "mocha", "3 passed, 0 failed, 1 pending, 3ms", counts{"duration_ms": 3, "failed": 0, "passed": 3, "skipped": 1}},
	{"mypy/fail", Failure, "mypy", "3 errors in 1 file, 1 file checked", counts{"checked": 1, "errors": 3, "files": 1}},
	{"mypy/pass", Passthrough, "mypy", "0 errors, 1 file checked", counts{"checked": 1, "errors": 0}},
	{"nodetest/fail", Failure, "node --test", "2 failed: high, sum (2 passed, 1 skipped, 1 todo)", counts{"duration_ms": 123, "failed": 2, "passed": 2, "skipped": 1, "suites": 1, "todo": 1, "total": 6}},
	{"nodetest/no_tests", NoTests, "node --test", "no tests ran, 6 skipped", counts{"duration_ms": 565, "failed": 0, "passed": 0, "skipped": 6, "suites": 1, "todo": 0, "total": 6}},
	{"nodetest/pass", Passthrough, "node --test", "4 passed, 0 failed, 1 skipped, 1 todo, 97.693699ms", counts{"duration_ms": 98, "failed": 0, "passed": 4, "skipped": 1, "suites": 1, "todo": 1, "total": 6}},
	{"npm/run_tsc_fail", Failure, "npm script", "tsc: 3 errors in 2 files", counts{"errors": 3, "files": 2}},
	{"npm/run_vitest_pass", Passthrough, "npm script", "vitest: 4 passed, 0 failed, 1 skipped, 2 files, 370ms", counts{"duration_ms": 370, "failed": 0, "files": 2, "passed": 4, "skipped": 1, "total": 5}},
	{"npm/test_jest_fail", Failure, "npm script", "jest: 2 failed: sum › adds negatives, clamp › clamps high (2 passed, 1 skipped, 1 todo)", counts{"duration_ms": 240, "failed": 2, "passed": 2, "skipped": 1, "suites": 2, "suites_failed": 1, "todo": 1, "total": 6}},
	{"npm/test_jest_no_tests", NoTests, "npm script", "jest: no tests ran, none found", counts{"failed": 0, "passed": 0}},
	{"npm/test_jest_pass", Passthrough, "npm script", "jest: 4 passed, 0 failed, 1 skipped, 1 todo, 2 suites, 0.194s", counts{"duration_ms": 194, "failed": 0, "passed": 4, "skipped": 1, "suites": 2, "todo": 1, "total": 6}},
	{"npm/test_mocha_fail", Failure, "npm script", "mocha: 2 failed: sum adds 1 + 2, clamp clamps high (1 passed, 1 pending)", counts{"duration_ms": 4, "failed": 2, "passed": 1, "skipped": 1}},
	{"pnpm/test_node_fail", Failure, "npm script", "node --test: 2 failed: high, sum (2 passed, 1 skipped, 1 todo)", counts{"duration_ms": 96, "failed": 2, "passed": 2, "skipped": 1, "suites": 1, "todo": 1, "total": 6}},
	{"pnpm/test_vitest_pass", Passthrough, "npm script", "vitest: 4 passed, 0 failed, 1 skipped, 2 files, 394ms", counts{"duration_ms": 394, "failed": 0, "files": 2, "passed": 4, "skipped": 1, "total": 5}},
	{"pytest/collect_error", Failure, "pytest", "1 error: test_syntax.py (interrupted)", counts{"duration_ms": 130, "errors": 1, "failed": 0, "passed": 0, "skipped": 0}},
	{"pytest/fail", Failure, "pytest", "4 failed: test_mathx.py::test_add, test_mathx.py::test_clamp[20-11], test_unit.py::TestMath::test_clamp, test_unit.py::TestMath::test_error (5 passed, 2 skipped)", counts{"duration_ms": 60, "failed": 4, "passed": 5, "skipped": 2}},
	{"pytest/fail_quiet", Failure, "pytest", "4 failed: test_mathx.py::test_add, test_mathx.py::test_clamp[20-11], test_unit.py::TestMath::test_clamp, test_unit.py::TestMath::test_error (5 passed, 2 skipped)", counts{"duration_ms": 50, "failed": 4, "passed": 5, "skipped": 2}},
	{"pytest/no_tests_deselected", NoTests, "pytest", "no tests ran, 9 deselected", counts{"deselected": 9, "duration_ms": 30, "failed": 0, "passed": 0, "skipped": 0}},
	{"pytest/no_tests_empty", NoTests, "pytest", "no tests ran", counts{"duration_ms": 50, "failed": 0, "passed": 0, "skipped": 0}},
	{"pytest/pass", Passthrough, "pytest", "7 passed, 0 failed, 2 skipped, 0.02s", counts{"duration_ms": 20, "failed": 0, "passed": 7, "skipped": 2}},
	{"pytest/pass_verbose", Passthrough, "pytest", "7 passed, 0 failed, 2 skipped, 0.01s", counts{"duration_ms": 10, "failed": 0, "passed": 7, "skipped": 2}},
	{"ruff/fail", Failure, "ruff", "3 errors (1 fixable)", counts{"errors": 3, "fixable": 1}},
	{"ruff/fail_concise", Failure, "ruff", "3 errors (1 fixable)", counts{"errors": 3, "fixable": 1}},
	{"ruff/fix_partial", Failure, "ruff", "1 error, 3 fixed", counts{"errors": 1, "fixed": 3}},
	{"ruff/format_check", Failure, "ruff", "2 files would be reformatted, 3 files already formatted", counts{"already_formatted": 3, "would_be_reformatted": 2}},
	{"ruff/pass", Passthrough, "ruff", "0 errors", counts{"errors": 0}},
	{"tsc/fail", Failure, "tsc", "3 errors in 2 files", counts{"errors": 3, "files": 2}},
	{"tsc/pass", Passthrough, "tsc", "0 errors", counts{"errors": 0, "files": 0}},
	{"unittest/fail", Failure, "unittest", "1 failed, 1 error: test_unit.TestMath.test_error, test_unit.TestMath.test_clamp (1 passed, 1 skipped)", counts{"duration_ms": 1, "errors": 1, "failed": 1, "passed": 1, "skipped": 1}},
	{"unittest/no_tests", NoTests, "unittest", "no tests ran", counts{"failed": 0, "passed": 0, "skipped": 0}},
	{"unittest/pass", Passthrough, "unittest", "2 passed, 0 failed, 1 skipped", counts{"failed": 0, "passed": 2, "skipped": 1}},
	{"unittest/pass_verbose", Passthrough, "unittest", "2 passed, 0 failed, 1 skipped", counts{"failed": 0, "passed": 2, "skipped": 1}},
	{"vitest/fail", Failure, "vitest", "2 failed: mathx.test.js > add > adds, mathx.test.js > clamp > clamps high (2 passed, 1 skipped)", counts{"duration_ms": 396, "failed": 2, "files": 2, "passed": 2, "skipped": 1, "total": 5}},
	{"vitest/no_tests", NoTests, "vitest", "no tests ran, no test files found", counts{"failed": 0, "passed": 0}},
	{"vitest/pass", Passthrough, "vitest", "4 passed, 0 failed, 1 skipped, 2 files, 355ms", counts{"duration_ms": 355, "failed": 0, "files": 2, "passed": 4, "skipped": 1, "total": 5}},
	{"yarn/run_lint_fail", Failure, "npm script", "eslint: 3 errors, 2 warnings in 2 files", counts{"errors": 3, "files": 2, "warnings": 2}},
	{"yarn/test_jest_fail", Failure, "npm script", "jest: 2 failed: sum › adds negatives, clamp › clamps high (2 passed, 1 skipped, 1 todo)", counts{"duration_ms": 224, "failed": 2, "passed": 2, "skipped": 1, "suites": 2, "suites_failed": 1, "todo": 1, "total": 6}},
	{"yarn/test_node_pass", Passthrough, "npm script", "node --test: 4 passed, 0 failed, 1 skipped, 1 todo, 96.379349ms", counts{"duration_ms": 96, "failed": 0, "passed": 4, "skipped": 1, "suites": 1, "todo": 1, "total": 6}},
}

type fixture struct {
	argv []string
	exit int
	out  []byte
}

func readFixture(t testing.TB, name string) fixture {
	t.Helper()
	base := filepath.Join(fixtureDir, name)
	out, err := os.ReadFile(base + ".out")
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := os.ReadFile(base + ".cmd")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := os.ReadFile(base + ".exit")
	if err != nil {
		t.Fatal(err)
	}
	code, err := strconv.Atoi(strings.TrimSpace(string(ex)))
	if err != nil {
		t.Fatalf("%s.exit: %v", name, err)
	}
	return fixture{argv: strings.Fields(string(cmd)), exit: code, out: out}
}

func classify(f fixture, opts Options, chunk int) Result {
	c := Builtin().Classifier(f.argv, opts)
	if chunk <= 0 {
		chunk = len(f.out) + 1
	}
	for off := 0; off < len(f.out); off += chunk {
		c.Write(f.out[off:min(off+chunk, len(f.out))])
	}
	return c.Finish(f.exit, 0)
}

func TestFixtures(t *testing.T) {
	for _, w := range fixtureWant {
		t.Run(w.name, func(t *testing.T) {
			f := readFixture(t, w.name)
			r := classify(f, Options{}, 0)
			if r.Class != w.class || r.Pattern != w.pattern || r.Source != SourceBuiltin {
				t.Errorf("class, pattern, source = %s, %q, %q; want %s, %q, builtin", r.Class, r.Pattern, r.Source, w.class, w.pattern)
			}
			if r.Summary != w.summary {
				t.Errorf("summary\n got %q\nwant %q", r.Summary, w.summary)
			}
			if !reflect.DeepEqual(r.Counts, w.counts) {
				t.Errorf("counts\n got %v\nwant %v", r.Counts, w.counts)
			}
			if r.Bytes != int64(len(f.out)) {
				t.Errorf("bytes = %d, want %d", r.Bytes, len(f.out))
			}
			// Failures show a filtered, non-empty detail that names the
			// failing tests; the glyph is the presenter's business.
			if r.Class == Failure {
				if r.Detail == "" {
					t.Error("failure without detail")
				}
				if strings.ContainsRune(r.Detail, 0x1b) || strings.ContainsRune(r.Summary, 0x1b) {
					t.Error("escape sequence left in detail or summary")
				}
			}

			// The same output in any chunking classifies the same: the
			// runner writes whatever a pty read returns.
			for _, chunk := range []int{1, 3, 7, 4096} {
				if got := classify(f, Options{}, chunk); !reflect.DeepEqual(got, r) {
					t.Fatalf("chunk %d: got %+v\nwant %+v", chunk, got, r)
				}
			}

			// A run that ran no test stays no_tests, whatever its size.
			if w.class == NoTests {
				if got := classify(f, Options{SmallOutput: -1}, 0); got.Class != NoTests || got.Summary != w.summary {
					t.Errorf("no passthrough: %s %q", got.Class, got.Summary)
				}
				if h := r.Headline(w.pattern); !strings.HasPrefix(h, "⚠ "+w.pattern+": ") || !strings.Contains(h, "no tests ran") {
					t.Errorf("headline %q", h)
				}
				return
			}
			// Without the small-output passthrough, a recognised successful
			// run is a one-line success.
			if f.exit == 0 && w.summary != "" {
				if got := classify(f, Options{SmallOutput: -1}, 0); got.Class != Success || got.Summary != w.summary {
					t.Errorf("no passthrough: %s %q", got.Class, got.Summary)
				}
			}
		})
	}
}

// TestFixturesAllListed keeps the table and the directory in step.
func TestFixturesAllListed(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(fixtureDir, "*", "*.out"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, w := range fixtureWant {
		listed[w.name] = true
	}
	for _, f := range files {
		rel, _ := filepath.Rel(fixtureDir, strings.TrimSuffix(f, ".out"))
		if !listed[filepath.ToSlash(rel)] {
			t.Errorf("fixture %s has no expected result in fixtureWant", rel)
		}
	}
	if len(files) != len(fixtureWant) {
		t.Errorf("%d fixtures on disk, %d in the table", len(files), len(fixtureWant))
	}
}

// TestFixtureDetails checks what a few failures show.
func TestFixtureDetails(t *testing.T) {
	for _, tc := range []struct {
		name          string
		want, notWant []string
	}{
		// go test: failing tests' logs stay; passing packages and RUN lines go.
		{"gotest/fail_verbose", []string{"--- FAIL: TestClamp", "broken_test.go:13: Clamp(15,0,10) = 0, want 10", "FAIL\texample.com/demo/broken"},
			[]string{"=== RUN", "--- PASS", "ok  \texample.com/demo/calc"}},
		// -json is unwrapped to text.
		{"gotest/fail_json", []string{"broken_test.go:24: got 0, want 10", "--- FAIL: TestClampTable/above"}, []string{`"Action"`}},
		{"gotest/build_failed_json", []string{"calc/extra.go:3:37: undefined: c"}, []string{`"Action"`}},
		// pytest: the report starts at FAILURES; progress dots are gone.
		{"pytest/fail", []string{"= FAILURES =", "E       assert 5 == 6", "FAILED test_unit.py::TestMath::test_error"}, []string{"test session starts"}},
		// jest: no live RUNS lines.
		{"jest/fail", []string{"● clamp › clamps high", "Expected: 11"}, []string{"RUNS"}},
		{"vitest/fail", []string{"Failed Tests 2", "AssertionError: expected 10 to be 12"}, []string{"[queued]"}},
		// node --test: only the closing list of failures.
		{"nodetest/fail", []string{"✖ failing tests:", "5 !== 6"}, []string{"✔ low"}},
		{"cargotest/fail", []string{"assertion `left == right` failed: math is broken", "test result: FAILED"}, []string{"Compiling", "test tests::clamps_low ... ok"}},
		{"make/test_fail", []string{"--- FAIL: TestClamp", "make: *** [Makefile:15: test-fail] Error 1"}, []string{"ok  \texample.com/demo/calc"}},
		{"npm/test_jest_fail", []string{"● sum › adds negatives"}, []string{"RUNS"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := classify(readFixture(t, tc.name), Options{}, 0)
			for _, s := range tc.want {
				if !strings.Contains(r.Detail, s) {
					t.Errorf("detail lacks %q:\n%s", s, r.Detail)
				}
			}
			for _, s := range tc.notWant {
				if strings.Contains(r.Detail, s) {
					t.Errorf("detail has %q:\n%s", s, r.Detail)
				}
			}
		})
	}
}

// durations in summaries differ between captures.
// A duration that rounds to 0 is left out.
var durationRE = regexp.MustCompile(`(, )?(\b\d+(\.\d+)?(ms|s)\b|<1ms)`)

// TestLiveFixtures classifies outputs captured afresh by
// testdata/outputs/capture.sh (set FLOWDECK_LIVE_OUTPUTS to its OUTDIR):
// the patterns must read today's tools as they read the committed
// fixtures, durations aside.
func TestLiveFixtures(t *testing.T) {
	dir := os.Getenv("FLOWDECK_LIVE_OUTPUTS")
	if dir == "" {
		t.Skip("FLOWDECK_LIVE_OUTPUTS not set (see testdata/outputs/capture.sh)")
	}
	n := 0
	for _, w := range fixtureWant {
		if _, err := os.Stat(filepath.Join(dir, w.name+".out")); err != nil {
			continue
		}
		n++
		t.Run(w.name, func(t *testing.T) {
			base := filepath.Join(dir, w.name)
			out, _ := os.ReadFile(base + ".out")
			cmd, _ := os.ReadFile(base + ".cmd")
			ex, _ := os.ReadFile(base + ".exit")
			code, _ := strconv.Atoi(strings.TrimSpace(string(ex)))
			r := classify(fixture{argv: strings.Fields(string(cmd)), exit: code, out: out}, Options{}, 0)
			if r.Class != w.class || r.Pattern != w.pattern {
				t.Errorf("class, pattern = %s, %q; want %s, %q", r.Class, r.Pattern, w.class, w.pattern)
			}
			if got, want := durationRE.ReplaceAllString(r.Summary, ""), durationRE.ReplaceAllString(w.summary, ""); got != want {
				t.Errorf("summary\n got %q\nwant %q", r.Summary, w.summary)
			}
			got, want := maps.Clone(r.Counts), maps.Clone(w.counts)
			delete(got, "duration_ms")
			delete(want, "duration_ms")
			if !reflect.DeepEqual(got, want) {
				t.Errorf("counts\n got %v\nwant %v", got, want)
			}
		})
	}
	if n == 0 {
		t.Fatalf("no fixtures under %s", dir)
	}
	t.Logf("%d live fixtures checked", n)
}
