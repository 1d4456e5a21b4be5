package patterns

import (
	"bytes"
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func run(argv []string, out string, exit int) Result {
	return runOpts(Builtin(), argv, out, exit, Options{})
}

func runOpts(s *Set, argv []string, out string, exit int, opts Options) Result {
	c := s.Classifier(argv, opts)
	c.Write([]byte(out))
	return c.Finish(exit, 0)
}

// numbered returns n lines "line 1".."line n", each ended by \n.
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestDecisionRules(t *testing.T) {
	big := numbered(2000) // ~19 KiB: over the small-output threshold
	for _, tc := range []struct {
		name     string
		argv     []string
		out      string
		exit     int
		class    Class
		category Category
	}{
		{"failure beats everything", []string{"cat", "x"}, "oops\n", 1, Failure, Content},
		{"small success passes through", []string{"mytool"}, "hello\n", 0, Passthrough, Unknown},
		{"empty success passes through", []string{"mkdir", "x"}, "", 0, Passthrough, Status},
		{"status command is quiet", []string{"git", "push"}, big, 0, Quiet, Status},
		{"git with options", []string{"git", "-C", "repo", "--no-pager", "commit", "-m", "x"}, big, 0, Quiet, Status},
		{"cp is quiet", []string{"cp", "-rv", "a", "b"}, big, 0, Quiet, Status},
		{"content command passes through", []string{"cat", "big.txt"}, big, 0, Passthrough, Content},
		{"git diff is content", []string{"git", "diff"}, big, 0, Passthrough, Content},
		{"data command is indexed", []string{"ls", "-la"}, big, 0, Indexed, Data},
		{"git log is data", []string{"git", "log"}, big, 0, Indexed, Data},
		{"rg is data", []string{"rg", "TODO"}, big, 0, Indexed, Data},
		{"unknown large is indexed", []string{"./build.sh"}, big, 0, Indexed, Unknown},
		{"pattern without summary falls back to category", []string{"go", "test", "./..."}, big, 0, Indexed, Unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(tc.argv, tc.out, tc.exit)
			if r.Class != tc.class || r.Category != tc.category {
				t.Errorf("got %s/%s, want %s/%s", r.Class, r.Category, tc.class, tc.category)
			}
		})
	}
}

func TestSmallOutputThreshold(t *testing.T) {
	exact := strings.Repeat("x", DefaultSmallOutput-1) + "\n" // 4096 bytes
	if r := run([]string{"tool"}, exact, 0); r.Class != Passthrough || r.Detail != exact {
		t.Errorf("4096 bytes: %s, detail %d bytes", r.Class, len(r.Detail))
	}
	if r := run([]string{"tool"}, exact+"y", 0); r.Class != Indexed || r.Detail != "" {
		t.Errorf("4097 bytes: %s", r.Class)
	}
	// The threshold counts text, not escape sequences.
	colored := "\x1b[32m" + strings.Repeat("x", 4000) + "\x1b[0m\n"
	if r := run([]string{"tool"}, colored, 0); r.Class != Passthrough || strings.Contains(r.Detail, "\x1b") {
		t.Errorf("coloured 4001 bytes: %s", r.Class)
	}
	if r := runOpts(Builtin(), []string{"tool"}, "hi\nthere\n", 0, Options{SmallOutput: 4}); r.Class != Indexed {
		t.Errorf("SmallOutput 4: %s", r.Class)
	}
	if r := runOpts(Builtin(), []string{"tool"}, "", 0, Options{SmallOutput: -1}); r.Class != Indexed {
		t.Errorf("SmallOutput -1 (off): %s", r.Class)
	}
	// No trailing newline: the detail is the output exactly.
	if r := run([]string{"tool"}, "a\nb", 0); r.Detail != "a\nb" {
		t.Errorf("detail %q", r.Detail)
	}
}

func TestIndexedAndQuietSummaries(t *testing.T) {
	out := numbered(1000)
	r := run([]string{"find", "."}, out, 0)
	want := fmt.Sprintf("%s indexed, 1000 lines", HumanBytes(int64(len(out))))
	if r.Summary != want || r.Lines != 1000 || r.Bytes != int64(len(out)) {
		t.Errorf("summary %q lines %d bytes %d; want %q", r.Summary, r.Lines, r.Bytes, want)
	}
	if r := run([]string{"rm", "-rv", "dir"}, out, 0); r.Summary != "" || r.Detail != "" {
		t.Errorf("quiet: %q %q", r.Summary, r.Detail)
	}
}

func TestFailureWithoutPatternSmartTruncation(t *testing.T) {
	r := run([]string{"./deploy.sh"}, numbered(1000), 3)
	if r.Class != Failure || r.Summary != "exit status 3" || r.Pattern != "" {
		t.Fatalf("%s %q %q", r.Class, r.Summary, r.Pattern)
	}
	lines := strings.Split(strings.TrimSuffix(r.Detail, "\n"), "\n")
	if len(lines) != smartHead+1+smartTail {
		t.Fatalf("%d detail lines", len(lines))
	}
	if lines[0] != "line 1" || lines[smartHead-1] != "line 40" || lines[smartHead] != "... [860 lines truncated] ..." ||
		lines[smartHead+1] != "line 901" || lines[len(lines)-1] != "line 1000" {
		t.Errorf("detail:\n%s", r.Detail)
	}
	// Short failures are shown whole, without a marker.
	if r := run([]string{"./deploy.sh"}, numbered(5), 1); r.Detail != numbered(5) {
		t.Errorf("short failure detail %q", r.Detail)
	}
}

func TestDetailBounds(t *testing.T) {
	// 140 kept lines of 1000 bytes would be 140 KB: the byte bound wins.
	var b strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "%04d %s\n", i, strings.Repeat("y", 995))
	}
	r := run([]string{"tool"}, b.String(), 1)
	if len(r.Detail) > MaxDetailBytes {
		t.Errorf("detail %d bytes > %d", len(r.Detail), MaxDetailBytes)
	}
	if !strings.Contains(r.Detail, "lines truncated] ...") || !strings.HasSuffix(r.Detail, "0999 "+strings.Repeat("y", 995)+"\n") {
		t.Errorf("detail keeps the end: ...%q", r.Detail[len(r.Detail)-60:])
	}
	// A long line is cut, and says by how much.
	long := strings.Repeat("z", 10000)
	r = run([]string{"tool"}, long+"\n", 1)
	want := strings.Repeat("z", MaxDetailLineBytes) + fmt.Sprintf(" ... [%d bytes truncated]\n", 10000-MaxDetailLineBytes)
	if r.Detail != want {
		t.Errorf("long line detail: %d bytes, tail %q", len(r.Detail), r.Detail[len(r.Detail)-40:])
	}
	// A cut never splits a UTF-8 character.
	r = run([]string{"tool"}, strings.Repeat("é", 3000)+"\n", 1)
	if !utf8.ValidString(r.Detail) {
		t.Error("cut line is not valid UTF-8")
	}
}

func TestHeadline(t *testing.T) {
	for _, tc := range []struct {
		r    Result
		want string
	}{
		{Result{Class: Success, Summary: "142 passed, 0 failed, 12 packages, 3.2s"}, "✓ go test (142 passed, 0 failed, 12 packages, 3.2s)"},
		{Result{Class: Failure, Summary: "2 failed: TestFoo, TestBar (140 passed)"}, "✗ go test — 2 failed: TestFoo, TestBar (140 passed)"},
		{Result{Class: Indexed, Summary: "2.3 MiB indexed, 41000 lines"}, "● go test (2.3 MiB indexed, 41000 lines)"},
		{Result{Class: Quiet}, "✓ go test"},
		{Result{Class: Failure}, "✗ go test"},
	} {
		if got := tc.r.Headline("go test"); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}

func TestFinishTwiceAndWriteAfter(t *testing.T) {
	c := Builtin().Classifier([]string{"tool"}, Options{})
	c.Write([]byte("a\n"))
	r1 := c.Finish(0, 0)
	if _, err := c.Write([]byte("b\n")); err != ErrFinished {
		t.Errorf("write after finish: %v", err)
	}
	if r2 := c.Finish(1, 0); r2.Class != r1.Class || r2.Detail != r1.Detail {
		t.Errorf("second Finish differs: %+v", r2)
	}
}

func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"/usr/local/go/bin/go", "test", "./..."}, "go test ./..."},
		{[]string{"env", "-u", "HOME", "GOFLAGS=-count=1", "go", "test"}, "go test"},
		{[]string{"CGO_ENABLED=0", "go", "vet", "./..."}, "go vet ./..."},
		{[]string{"sh", "-c", "cd sub && go test ./..."}, "go test ./..."},
		{[]string{"bash", "-lc", "make test"}, "make test"},
		{[]string{"npx", "--yes", "jest", "--ci"}, "jest --ci"},
		{[]string{"time", "-p", "go", "test"}, "go test"},
		{[]string{"nice", "-n", "10", "cargo", "test"}, "cargo test"},
		{[]string{"sudo", "-u", "bob", "make"}, "make"},
		{[]string{"timeout", "-s", "KILL", "60", "pytest", "-x"}, "pytest -x"},
		{[]string{"uv", "run", "pytest"}, "pytest"},
		{[]string{"pnpm", "exec", "vitest", "run"}, "vitest run"},
		{[]string{"node_modules/.bin/tsc", "-p", "."}, "tsc -p ."},
		{[]string{}, ""},
	} {
		if got, _ := commandLine(tc.argv); got != tc.want {
			t.Errorf("commandLine(%q) = %q, want %q", tc.argv, got, tc.want)
		}
	}
}

func TestBuiltinMatch(t *testing.T) {
	s := Builtin()
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"go", "test", "-json", "./..."}, "go test"},
		{[]string{"go", "install", "./cmd/x"}, "go build"},
		{[]string{"cargo", "+nightly", "test"}, "cargo test"},
		{[]string{"cargo", "clippy"}, "cargo build"},
		{[]string{"python3", "-m", "pytest", "-q"}, "pytest"},
		{[]string{"python3.11", "-m", "unittest", "discover"}, "unittest"},
		{[]string{"pytest-3"}, "pytest"},
		{[]string{"node", "--test", "test/"}, "node --test"},
		{[]string{"node", "--experimental-strip-types", "--test"}, "node --test"},
		{[]string{"yarn", "run", "lint"}, "npm script"},
		{[]string{"bun", "test"}, "npm script"},
		{[]string{"gmake", "-j4"}, "make"},
		{[]string{"python", "-m", "mypy", "src"}, "mypy"},
		{[]string{"node", "server.js"}, ""},
		{[]string{"npm", "install"}, ""},
		{[]string{"gotest"}, ""},
	} {
		info, ok := s.Match(tc.argv)
		if info.Name != tc.want || ok != (tc.want != "") {
			t.Errorf("Match(%q) = %q, %v; want %q", tc.argv, info.Name, ok, tc.want)
		}
	}
	list := s.List()
	if len(list) != len(builtinPatterns()) || list[0].Name != "go test" || list[0].Source != SourceBuiltin || list[0].CommandMatch != `^go test\b` {
		t.Errorf("List() = %+v", list[:1])
	}
}

func TestRedactedResult(t *testing.T) {
	out := "connecting with password=hunter2\nAuthorization: Bearer abcdefgh12345678\n"
	r := run([]string{"tool"}, out, 0)
	if strings.Contains(r.Detail, "hunter2") || strings.Contains(r.Detail, "abcdefgh12345678") || !strings.Contains(r.Detail, "password=[REDACTED]") {
		t.Errorf("passthrough detail not redacted: %q", r.Detail)
	}
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----\n"
	r = run([]string{"tool"}, numbered(500)+key+numbered(3), 1)
	if strings.Contains(r.Detail, "b3BlbnNzaC1rZXktdjE=") {
		t.Errorf("failure detail leaks the key:\n%s", r.Detail)
	}
	// A user redactor's rules apply too.
	red, err := NewRedactor([]string{`corp-\d{6}`})
	if err != nil {
		t.Fatal(err)
	}
	r = runOpts(Builtin(), []string{"tool"}, "id corp-123456\n", 1, Options{Redactor: red})
	if r.Detail != "id [REDACTED]\n" {
		t.Errorf("user rule: %q", r.Detail)
	}
}

// Escape sequences aimed at the viewer never reach Detail or Summary.
func TestHostileOutputClassified(t *testing.T) {
	out := "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\x1b[2J\x1b[H\x1bP+q544e\x1b\\visible\n"
	for _, exit := range []int{0, 1} {
		r := run([]string{"tool"}, out, exit)
		if r.Detail != "visible\n" {
			t.Errorf("exit %d: detail %q", exit, r.Detail)
		}
	}
}

func TestBinaryOutput(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	bin := make([]byte, 1<<20)
	rng.Read(bin)
	for _, exit := range []int{0, 1} {
		r := run([]string{"cat", "/bin/ls"}, string(bin), exit)
		if why := safeText([]byte(r.Detail)); why != "" {
			t.Errorf("exit %d: detail is not safe: %s", exit, why)
		}
		if len(r.Detail) > MaxDetailBytes {
			t.Errorf("exit %d: detail %d bytes", exit, len(r.Detail))
		}
		if r.Bytes != int64(len(bin)) {
			t.Errorf("bytes %d", r.Bytes)
		}
	}
	// Invalid UTF-8 in a small output becomes U+FFFD.
	if r := run([]string{"tool"}, "a\xffb\n", 0); r.Detail != "a\uFFFDb\n" {
		t.Errorf("%q", r.Detail)
	}
}

// allocated returns the bytes allocated while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestSingleHugeLine(t *testing.T) {
	line := bytes.Repeat([]byte("0123456789abcdef"), (50<<20)/16) // 50 MB, no newline
	var r Result
	alloc := allocated(func() {
		c := Builtin().Classifier([]string{"go", "test", "./..."}, Options{})
		for off := 0; off < len(line); off += 64 << 10 {
			c.Write(line[off:min(off+64<<10, len(line))])
		}
		r = c.Finish(1, time.Second)
	})
	if alloc > 2<<20 {
		t.Errorf("classifying a 50 MB line allocated %d bytes", alloc)
	}
	if r.Lines != 1 || r.Bytes != int64(len(line)) {
		t.Errorf("lines %d bytes %d", r.Lines, r.Bytes)
	}
	if len(r.Detail) > MaxDetailLineBytes+64 || !strings.Contains(r.Detail, fmt.Sprintf("[%d bytes truncated]", len(line)-MaxDetailLineBytes)) {
		t.Errorf("detail: %d bytes, ends %q", len(r.Detail), r.Detail[len(r.Detail)-40:])
	}
}

func TestMillionEmptyLines(t *testing.T) {
	out := bytes.Repeat([]byte("\n"), 1_000_000)
	c := Builtin().Classifier([]string{"tool"}, Options{})
	c.Write(out)
	r := c.Finish(0, 0)
	if r.Class != Indexed || r.Lines != 1_000_000 {
		t.Errorf("%s, %d lines", r.Class, r.Lines)
	}
	c = Builtin().Classifier([]string{"tool"}, Options{})
	c.Write(out)
	r = c.Finish(1, 0)
	if want := strings.Repeat("\n", smartHead) + "... [999860 lines truncated] ...\n" + strings.Repeat("\n", smartTail); r.Detail != want {
		t.Errorf("detail %q", r.Detail)
	}
}

// Memory stays flat however much is written: no buffer grows with the
// output.
func TestStreamingMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 32 MB")
	}
	chunk := goTestLog(1 << 20)
	c := Builtin().Classifier([]string{"go", "test", "-v", "./..."}, Options{})
	var before, after runtime.MemStats
	for i := 0; i < 32; i++ {
		if i == 4 {
			runtime.GC()
			runtime.ReadMemStats(&before)
		}
		c.Write(chunk)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 1<<20 {
		t.Errorf("heap grew by %d bytes over 28 MB of output", grown)
	}
	if r := c.Finish(0, 0); r.Class != Success {
		t.Errorf("%s %q", r.Class, r.Summary)
	}
}

// FuzzClassifier runs arbitrary output through every built-in pattern:
// no panic, and Detail and Summary stay safe to print and bounded.
func FuzzClassifier(f *testing.F) {
	for _, name := range []string{"gotest/fail_json", "pytest/fail", "jest/fail", "cargotest/fail", "npm/test_jest_fail", "make/test_fail"} {
		f.Add(uint8(0), readFixture(f, name).out)
	}
	f.Add(uint8(3), []byte("--- FAIL: A\n    --- FAIL: A/b\n        --- PASS: A/b/c\n"))
	f.Fuzz(func(t *testing.T, which uint8, out []byte) {
		p := builtinPatterns()[int(which)%len(builtinPatterns())]
		argv := strings.Fields(strings.NewReplacer(`^`, "", `\b`, "", `\s`, " ", `(`, "", `)`, "", `|`, " ", `?`, "", `.*`, "").Replace(p.match.String()))
		for _, exit := range []int{0, 1} {
			c := Builtin().Classifier(argv, Options{})
			half := len(out) / 2
			c.Write(out[:half])
			c.Write(out[half:])
			r := c.Finish(exit, 0)
			if why := safeText([]byte(r.Detail + r.Summary)); why != "" {
				t.Fatalf("%s: unsafe result (%s): %q %q", p.name, why, r.Summary, r.Detail)
			}
			if len(r.Detail) > MaxDetailBytes && !(r.Class == Passthrough && len(r.Detail) <= DefaultSmallOutput) {
				t.Fatalf("%s: detail %d bytes", p.name, len(r.Detail))
			}
		}
	})
}
