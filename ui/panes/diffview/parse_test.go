package diffview

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// git runs real git in dir, with no user or system config (so no pager,
// colour, prefix or hook settings of the machine leak in).
func git(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "core.hooksPath=/dev/null", "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return out
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// escName is a file name holding an escape sequence, as an agent could
// commit one.
const escName = "esc\x1b[31mred.txt"

// gitDiff builds a repository with one commit, changes it in every way the
// parser cares about, and returns `git diff --cached` of the change.
func gitDiff(t *testing.T, quotePath bool) []byte {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	long := strings.Repeat("a line that stays the same in the renamed file\n", 10)
	write(t, dir, "mod.go", "package x\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() {}\n")
	write(t, dir, "del.txt", "gone\ngone too\n")
	write(t, dir, "old name.txt", long)
	write(t, dir, "nonl.txt", "one\ntwo\n")
	write(t, dir, "bin.dat", "\x00\x01\x02binary")
	write(t, dir, "dir/with space.txt", "x\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")

	write(t, dir, "mod.go", "package x\n\nfunc A() int {\n\treturn 2\n}\n\nfunc B() {}\n\nfunc C() {}\n")
	if err := os.Remove(filepath.Join(dir, "del.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "old name.txt")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "new name.txt", long+"one more\n")
	write(t, dir, "nonl.txt", "one\ntwo\nthree")
	write(t, dir, "bin.dat", "\x00\x01\x02binary, changed")
	write(t, dir, "dir/with space.txt", "y\n")
	write(t, dir, escName, "hi\n")
	write(t, dir, "café.txt", "\x1b]52;c;SGVsbG8=\x07clipboard\n")
	git(t, dir, "add", "-A")
	q := "core.quotePath=false"
	if quotePath {
		q = "core.quotePath=true"
	}
	return git(t, dir, "-c", q, "diff", "--cached", "--no-color", "-M")
}

func TestParseGitDiff(t *testing.T) {
	t.Parallel()
	for _, quote := range []bool{false, true} {
		t.Run(map[bool]string{false: "quotePath=false", true: "quotePath=true"}[quote], func(t *testing.T) {
			t.Parallel()
			raw := gitDiff(t, quote)
			d := Parse(raw)
			type want struct {
				old, new       string
				st             Status
				bin            bool
				added, removed int
			}
			wants := []want{
				{"bin.dat", "bin.dat", Modified, true, 0, 0},
				{"", "café.txt", Added, false, 1, 0},
				{"del.txt", "", Deleted, false, 0, 2},
				{"dir/with space.txt", "dir/with space.txt", Modified, false, 1, 1},
				{"", escName, Added, false, 1, 0},
				{"mod.go", "mod.go", Modified, false, 3, 1},
				{"old name.txt", "new name.txt", Renamed, false, 1, 0},
				{"nonl.txt", "nonl.txt", Modified, false, 1, 0},
			}
			if len(d.Files) != len(wants) {
				for _, f := range d.Files {
					t.Logf("%+v", f)
				}
				t.Fatalf("%d files, want %d:\n%s", len(d.Files), len(wants), raw)
			}
			for i, w := range wants {
				f := d.Files[i]
				got := want{f.OldPath, f.NewPath, f.Status, f.Binary, f.Added, f.Removed}
				if got != w {
					t.Errorf("file %d = %+v, want %+v", i, got, w)
				}
			}
			if d.Added != 8 || d.Removed != 4 {
				t.Errorf("totals +%d -%d, want +8 -4", d.Added, d.Removed)
			}

			// mod.go: one hunk; "return 1" -> "return 2", and func C added.
			mod := d.Files[5]
			var got []string
			for _, l := range mod.Lines {
				got = append(got, string("HCA-\\"[l.Kind])+" "+itoa(l.Old)+" "+itoa(l.New)+" "+d.Text(l))
			}
			wantLines := []string{
				"H 1 1 @@ -1,7 +1,9 @@",
				"C 1 1 package x",
				"C 2 2 ",
				"C 3 3 func A() int {",
				"- 4 4 \treturn 1",
				"A 0 4 \treturn 2",
				"C 5 5 }",
				"C 6 6 ",
				"C 7 7 func B() {}",
				"A 0 8 ",
				"A 0 9 func C() {}",
			}
			if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
				t.Errorf("mod.go lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
			}

			// nonl.txt: the old last line gains a newline (-two +two), a
			// line without one is added, and git says so.
			nonl := d.Files[7]
			last := nonl.Lines[len(nonl.Lines)-1]
			if last.Kind != NoNewline || d.Text(last) != " No newline at end of file" {
				t.Errorf("nonl.txt ends with %v %q", last.Kind, d.Text(last))
			}
			if nonl.Added != 1 || nonl.Removed != 0 {
				// git shows "-two" "+two" only when the old file lacked the
				// newline; here only "three" is new
				t.Errorf("nonl.txt +%d -%d", nonl.Added, nonl.Removed)
			}
			// the ESC stays in the parsed path (it is the file's name); it
			// is the view's job to make it safe
			if !strings.Contains(d.Files[4].NewPath, "\x1b") {
				t.Errorf("escape lost from %q", d.Files[4].NewPath)
			}
		})
	}
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }

func TestParseHandWritten(t *testing.T) {
	t.Parallel()
	// A removed line reading "--- a/x" and an added "+++ b/y" stay lines:
	// the hunk's counts say where it ends.
	in := "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n--- a/x\n+++ b/y\n keep\n"
	d := Parse([]byte(in))
	if len(d.Files) != 1 || d.Files[0].Added != 1 || d.Files[0].Removed != 1 {
		t.Fatalf("%+v", d.Files)
	}
	if got := d.Text(d.Files[0].Lines[1]); got != "-- a/x" {
		t.Errorf("removed line %q", got)
	}

	// A plain diff -u of two files, with dates after tabs.
	in = "--- a.txt\t2024-01-01\n+++ a.txt\t2024-01-02\n@@ -1 +1 @@\n-x\n+y\n--- b.txt\n+++ b.txt\n@@ -0,0 +1 @@\n+z\n"
	d = Parse([]byte(in))
	if len(d.Files) != 2 || d.Files[0].Path() != "a.txt" || d.Files[1].Path() != "b.txt" || d.Added != 2 || d.Removed != 1 {
		t.Fatalf("%+v", d.Files)
	}
	if l := d.Files[1].Lines[1]; l.New != 1 {
		t.Errorf("line after -0,0 +1 is new line %d", l.New)
	}

	// Quoted header paths with octal escapes, no ---/+++ (a mode change).
	in = "diff --git \"a/caf\\303\\251 \\\"q\\\".txt\" \"b/caf\\303\\251 \\\"q\\\".txt\"\nold mode 100644\nnew mode 100755\n"
	d = Parse([]byte(in))
	if len(d.Files) != 1 || d.Files[0].Path() != `café "q".txt` {
		t.Fatalf("%+v", d.Files)
	}

	// Unquoted paths with spaces and no ---/+++: the symmetric split.
	in = "diff --git a/x b/y.bin b/x b/y.bin\nindex 1..2 100644\nBinary files a/x b/y.bin and b/x b/y.bin differ\n"
	d = Parse([]byte(in))
	if len(d.Files) != 1 || d.Files[0].Path() != "x b/y.bin" || !d.Files[0].Binary {
		t.Fatalf("%+v", d.Files)
	}

	// Garbage, a hunk header that lies and a truncated hunk never panic
	// and keep what they can.
	in = "commit abc\n\ndiff --git a/f b/f\n@@ -1,5 +1,5 @@\n x\n-y\ndiff --git a/g b/g\n@@ junk @@\n+z\n"
	d = Parse([]byte(in))
	if len(d.Files) != 2 || d.Files[0].Removed != 1 || len(d.Files[1].Lines) != 1 {
		t.Fatalf("%+v", d.Files)
	}
}
