package diffview

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/charmbracelet/x/ansi"

	"github.com/flowdeck/flowdeck/ui/styles"
)

// fixture is a small diff of three files, as git writes it.
const fixture = `diff --git a/main.go b/main.go
index 1111111..2222222 100644
--- a/main.go
+++ b/main.go
@@ -1,3 +1,5 @@ package main
 package main
 
-func main() {}
+func main() {
+	println("hi")
+}
diff --git a/docs/new.md b/docs/new.md
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/docs/new.md
@@ -0,0 +1,2 @@
+# Title
+text
diff --git a/old.txt b/old.txt
deleted file mode 100644
index 4444444..0000000
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
`

var (
	plainStyles = styles.New(true, false) // NO_COLOR
	darkStyles  = styles.New(true, true)
	lightStyles = styles.New(false, true)
)

// view makes a viewer of text at w×h. Its frames have all the time they
// need: what tests see never depends on the machine's speed.
func view(th *styles.Styles, text string, w, h int) *Model {
	m := New(th)
	m.hl.frameTime = time.Hour
	m.SetSize(w, h)
	m.SetDiff(Parse([]byte(text)))
	return m
}

// screen is View without SGR and trailing blanks, after checking its size:
// h rows of w cells.
func screen(t *testing.T, m *Model) []string {
	t.Helper()
	rows := m.View()
	checkSize(t, m, rows)
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.TrimRight(ansi.Strip(r), " ")
	}
	return out
}

func checkSize(t *testing.T, m *Model, rows []string) {
	t.Helper()
	if len(rows) != m.h {
		t.Fatalf("%d rows, want %d", len(rows), m.h)
	}
	for i, r := range rows {
		if w := ansi.StringWidth(r); w != m.w {
			t.Fatalf("%dx%d: row %d is %d cells: %q", m.w, m.h, i, w, r)
		}
	}
}

func wantScreen(t *testing.T, m *Model, want ...string) {
	t.Helper()
	got := screen(t, m)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("screen:\n%s\nwant:\n%s", strings.Join(got, "|\n")+"|", strings.Join(want, "|\n")+"|")
	}
}

func TestFileList(t *testing.T) {
	t.Parallel()
	m := view(plainStyles, fixture, 40, 6)
	wantScreen(t, m,
		" 3 files changed  +5 -2",
		" M main.go                         +3 -1",
		" A docs/new.md                     +2 -0",
		" D old.txt                         +0 -1",
		"",
		" main.go               file 1 of 3  end",
	)
	// the selected row is drawn reversed, the others are not
	rows := m.View()
	sel := plainStyles.Selected.Render("x")
	open, _, _ := strings.Cut(sel, "x")
	if !strings.HasPrefix(rows[1], open) || strings.HasPrefix(rows[2], open) {
		t.Errorf("selection: %q / %q", rows[1], rows[2])
	}
	m.Move(1)
	if rows = m.View(); !strings.HasPrefix(rows[2], open) {
		t.Errorf("selection did not move: %q", rows[2])
	}
}

func TestDiffAll(t *testing.T) {
	t.Parallel()
	m := view(plainStyles, fixture, 40, 12)
	m.ShowAll()
	wantScreen(t, m,
		" M main.go  +3 -1",
		"@@ -1,3 +1,5 @@ package main",
		"  1   1  package main",
		"  2   2",
		"  3     -func main() {}",
		"      3 +func main() {",
		"      4 +    println(\"hi\")", // the tab expanded to the next stop
		"      5 +}",
		" A docs/new.md  +2 -0",
		"@@ -0,0 +1,2 @@",
		"      1 +# Title",
		" M main.go (1/3)   rows 1-11/15  ↓ more",
	)
	m.Bottom()
	wantScreen(t, m,
		"  3     -func main() {}",
		"      3 +func main() {",
		"      4 +    println(\"hi\")",
		"      5 +}",
		" A docs/new.md  +2 -0",
		"@@ -0,0 +1,2 @@",
		"      1 +# Title",
		"      2 +text",
		" D old.txt  +0 -1",
		"@@ -1 +0,0 @@",
		"  1     -bye",
		" M main.go (1/3)      rows 5-15/15  end",
	)
}

func TestDiffOneFile(t *testing.T) {
	t.Parallel()
	m := view(plainStyles, fixture, 40, 6)
	m.Move(1)
	m.OpenSelected()
	if m.Mode() != ModeFile {
		t.Fatalf("mode %v", m.Mode())
	}
	wantScreen(t, m,
		" A docs/new.md  +2 -0",
		"@@ -0,0 +1,2 @@",
		"      1 +# Title",
		"      2 +text",
		"",
		" A docs/new.md          rows 1-4/4  end",
	)
	if path, line := m.FirstChangedLine(); path != "docs/new.md" || line != 1 {
		t.Errorf("FirstChangedLine = %q %d", path, line)
	}
	m.NextFile()
	if f := m.SelectedFile(); f.Path() != "old.txt" || m.top != 0 {
		t.Errorf("NextFile opened %q at %d", f.Path(), m.top)
	}
	if path, line := m.FirstChangedLine(); path != "" || line != 0 {
		t.Errorf("a deleted file has nothing to open: %q %d", path, line)
	}
	if !m.Back() || m.Mode() != ModeList || m.Selected() != 2 {
		t.Errorf("Back: mode %v, selected %d", m.Mode(), m.Selected())
	}
	if m.Back() {
		t.Error("Back in the list should report false")
	}
}

// many is a diff of n files of k added lines each.
func many(n, k int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "diff --git a/f%d.txt b/f%d.txt\n--- a/f%d.txt\n+++ b/f%d.txt\n@@ -%d,0 +%d,%d @@\n", i, i, i, i, 10, 11, k)
		for j := range k {
			fmt.Fprintf(&b, "+file %d line %d\n", i, j)
		}
	}
	return b.String()
}

func TestMovement(t *testing.T) {
	t.Parallel()
	// 5 files of 10 lines: each takes 12 rows (header, hunk, lines).
	m := view(plainStyles, many(5, 10), 50, 9) // 8 rows of diff, 1 status
	m.ShowAll()
	at := func(want int, what string) {
		t.Helper()
		if m.top != want {
			t.Errorf("%s: top %d, want %d", what, m.top, want)
		}
	}
	m.Move(3)
	at(3, "Move(3)")
	m.Page(1)
	at(7, "Page (half of 8)")
	m.FullPage(1)
	at(15, "FullPage")
	m.FullPage(-1)
	at(7, "FullPage back")
	m.NextFile()
	at(12, "NextFile from file 0")
	if m.Selected() != 1 {
		t.Errorf("selected %d", m.Selected())
	}
	m.Move(2)
	m.PrevFile()
	at(12, "PrevFile inside a file: its header")
	m.PrevFile()
	at(0, "PrevFile at a header: the previous file")
	m.PrevFile()
	at(0, "PrevFile at the first file")
	for range 10 {
		m.NextFile()
	}
	at(48, "NextFile to the last file brings its header to the top")
	if m.Selected() != 4 {
		t.Errorf("selected %d", m.Selected())
	}
	m.Move(100)
	at(52, "Move past the end")
	m.Bottom()
	at(52, "Bottom: the last screenful (60 rows - 8)")
	m.Top()
	at(0, "Top")
	m.Move(-5)
	at(0, "Move before the start")
	if path, line := m.FirstChangedLine(); path != "f0.txt" || line != 11 {
		t.Errorf("FirstChangedLine = %q %d", path, line)
	}

	// Back selects the file on screen; the list moves and pages.
	m.NextFile()
	m.NextFile()
	m.Back()
	if m.Selected() != 2 {
		t.Errorf("Back selected %d", m.Selected())
	}
	m.Bottom()
	m.Move(-1)
	m.PrevFile()
	if m.Selected() != 2 {
		t.Errorf("list: selected %d", m.Selected())
	}
	m.Top()
	m.FullPage(1) // 7 list rows under the totals, 5 files
	if m.Selected() != 4 {
		t.Errorf("list FullPage: selected %d", m.Selected())
	}
	// ShowAll starts at the selected file; OpenSelected from there keeps
	// the row on screen.
	m.ShowAll()
	at(48, "ShowAll")
	m.Move(3)
	m.OpenSelected()
	if m.Mode() != ModeFile || m.file != 4 || m.top != 3 {
		t.Errorf("OpenSelected: mode %v file %d top %d", m.Mode(), m.file, m.top)
	}
}

// sgr is an escape sequence this package may write: SGR only.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// hostile is a diff an agent could write: escape sequences in a path and in
// code, a C1 control, a bidi override, a carriage return.
const hostile = "diff --git \"a/x\\033]0;pwned\\007.go\" \"b/x\\033]0;pwned\\007.go\"\n" +
	"--- \"a/x\\033]0;pwned\\007.go\"\n+++ \"b/x\\033]0;pwned\\007.go\"\n" +
	"@@ -1,2 +1,3 @@ \x1b[2J\n" +
	" clear\x1b[2J\x1b[H screen\n" +
	"-\x1b]52;c;SGVsbG8=\x07copied\n" +
	"+red \x1b[31mtext\x1b[0m and \xc2\x9b31m c1\n" +
	"+bidi \u202eevil\u202c and cr\rhidden\n"

func TestHostileTextNeverReachesTheTerminal(t *testing.T) {
	t.Parallel()
	for _, th := range []*styles.Styles{plainStyles, darkStyles, lightStyles} {
		m := view(th, hostile, 60, 9)
		for _, mode := range []func(){func() {}, m.ShowAll, m.OpenSelected} {
			mode()
			for m.Highlight() {
			}
			rows := m.View()
			checkSize(t, m, rows)
			all := strings.Join(rows, "\n")
			if rest := sgr.ReplaceAllString(all, ""); strings.ContainsAny(rest, "\x1b\x07\r\u009b\u202e") {
				t.Fatalf("color=%v mode %v: a control got through: %q", th.Color, m.Mode(), rest)
			}
			plain := ansi.Strip(all)
			if m.Mode() != ModeList && !strings.Contains(plain, `\e]52;c;SGVsbG8…copied`) {
				t.Errorf("the clipboard write is not shown for what it was:\n%s", plain)
			}
			if !strings.Contains(plain, `x\e]0;pwned…`) {
				t.Errorf("the retitling path is not shown for what it was:\n%s", plain)
			}
		}
	}
}

// Every size, every mode, horizontal scroll, wide and tabbed text: h rows
// of w cells, always.
func TestViewIsExactlyTheSize(t *testing.T) {
	t.Parallel()
	text := fixture + "diff --git a/wide.go b/wide.go\n--- a/wide.go\n+++ b/wide.go\n@@ -1 +1,2 @@\n-\t日本語のテキスト\tと\t絵文字 👩‍💻 x\n+" + strings.Repeat("長い行 ", 40) + "\n+\ttab\t\tstops\n" +
		// characters that join their neighbours into one cluster: a spacing
		// mark first, a prepended mark last, a letter and its mark that a
		// lexer may colour apart, in a path and in code
		"diff --git \"a/\\330\\200\" \"b/\\330\\200\"\n--- \"a/\\330\\200\"\n+++ \"b/\\330\\200\"\n@@ -1 +1,3 @@ \u093f\u0600\n-\u093fstart\n+end\u0600\n+var कि = \"कि\" // कि\u0600\n+\u0600\n"
	for _, th := range []*styles.Styles{plainStyles, darkStyles} {
		m := view(th, text, 1, 1)
		for w := 0; w <= 70; w += 1 + w/10 {
			for h := 0; h <= 8; h++ {
				m.SetSize(w, h)
				for _, x := range []int{0, 1, 3, 17} {
					m.ScrollX(x - m.x)
					for _, mode := range []func(){func() { m.Back() }, m.ShowAll, m.OpenSelected} {
						mode()
						m.Bottom()
						m.Highlight()
						checkSize(t, m, m.View())
						m.Top()
						checkSize(t, m, m.View())
					}
				}
			}
		}
	}
}

// An added Go line is tinted and its keyword coloured, once highlighted;
// NO_COLOR highlights nothing and marks lines with + and - alone.
func TestHighlight(t *testing.T) {
	t.Parallel()
	open := func(s styles.Style) string { o, _, _ := strings.Cut(s.Render("x"), "x"); return o }
	for _, th := range []*styles.Styles{darkStyles, lightStyles} {
		m := view(th, fixture, 40, 12)
		m.ShowAll()
		for m.Highlight() {
		}
		rows := m.View()
		add := rows[5] // "+func main() {"
		if !strings.Contains(add, open(th.SynKeyword.On(th.DiffAddLine))+"func") {
			t.Errorf("dark=%v: keyword not highlighted on the added tint: %q", th.Dark, add)
		}
		if !strings.Contains(rows[4], open(th.DiffDelLine)) {
			t.Errorf("removed line not tinted: %q", rows[4])
		}
		if !strings.Contains(rows[6], open(th.SynString.On(th.DiffAddLine))+`"hi"`) {
			t.Errorf("string not highlighted: %q", rows[6])
		}
		// docs/new.md: markdown has a lexer too; old.txt has none and is plain
		if m.Pending() {
			t.Error("still pending after Highlight")
		}
	}
	m := view(plainStyles, fixture, 40, 12)
	m.ShowAll()
	if m.View(); m.Pending() {
		t.Error("NO_COLOR has nothing to highlight")
	}
	if l := m.hl.lexers[0]; l != nil {
		t.Errorf("NO_COLOR looked up a lexer: %v", l)
	}
}

// View highlights a bounded amount; Highlight finishes the rest, and what
// is highlighted once is not lexed again.
func TestHighlightIsLazyAndBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("diff --git a/big.go b/big.go\n--- a/big.go\n+++ b/big.go\n@@ -1,0 +1,20000 @@\n")
	for i := range 20000 {
		fmt.Fprintf(&b, "+\tif err := call%d(ctx, \"arg\"); err != nil { return fmt.Errorf(\"step %%d: %%w\", %d, err) }\n", i, i)
	}
	m := view(darkStyles, b.String(), 160, 48)
	if len(m.hl.cache.cur) != 0 {
		t.Fatal("SetDiff drew lines")
	}
	m.ShowAll()
	m.View()
	if n := len(m.hl.cache.cur); n != 45 { // 47 rows; the header and hunk rows are not code
		t.Fatalf("View drew %d lines, want the 45 on screen", n)
	}
	if !m.Pending() {
		t.Fatal("a screen of ~90-byte lines fits no frame budget; some should wait")
	}
	hl := 0
	for _, v := range m.hl.cache.cur {
		if v.hl {
			hl++
		}
	}
	if hl == 0 || hl > frameBudget/80+1 {
		t.Errorf("View highlighted %d lines", hl)
	}
	rounds := 0
	for m.Highlight() {
		rounds++
	}
	if rounds == 0 || rounds > 45 {
		t.Errorf("%d rounds of Highlight", rounds)
	}
	first := m.View()
	m.hl.lexers[0] = nil // were anything lexed again, it would come out plain
	if again := m.View(); strings.Join(again, "\n") != strings.Join(first, "\n") {
		t.Error("a highlighted line was drawn again")
	}
	// bounded: scrolling through everything keeps at most two generations
	for range 20000 / 47 {
		m.FullPage(1)
		m.View()
	}
	if n := len(m.hl.cache.cur) + len(m.hl.cache.old); n > 2*cacheLines {
		t.Errorf("%d lines cached", n)
	}
}

func TestEmpty(t *testing.T) {
	t.Parallel()
	m := view(plainStyles, "", 30, 3)
	wantScreen(t, m, " no changes", "", "")
	m.ShowAll()
	m.OpenSelected()
	m.NextFile()
	m.Bottom()
	if p, l := m.FirstChangedLine(); p != "" || l != 0 || m.SelectedFile() != nil {
		t.Errorf("%q %d", p, l)
	}
	wantScreen(t, m, " no changes", "", "")
}

func TestHorizontalScroll(t *testing.T) {
	t.Parallel()
	text := "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-0123456789abcdefghijklmnopqrstuvwxyz\n+short\n"
	m := view(plainStyles, text, 30, 5)
	m.ShowAll()
	m.ScrollX(10)
	wantScreen(t, m,
		" M a.txt  +1 -1",
		"@@ -1 +1 @@",
		"  1     -abcdefghijklmnopqrst›",
		"      1 +",
		" M …  col 11  rows 1-4/4  end",
	)
}

// Out of time, code is drawn whole and plain, and waits for Highlight.
func TestHighlightOutOfTime(t *testing.T) {
	t.Parallel()
	m := view(darkStyles, fixture, 40, 12)
	m.hl.frameTime = -1
	m.ShowAll()
	rows := m.View()
	if !strings.Contains(rows[5], "func main() {") || strings.Contains(rows[5], "\x1b[38;5;176mfunc") {
		t.Errorf("row %q", rows[5])
	}
	if !m.Pending() || !m.Highlight() {
		t.Error("nothing pending")
	}
	m.hl.frameTime = time.Hour
	if m.Highlight() {
		t.Error("Highlight with time left did not finish")
	}
	// a line whose lexing runs out of time mid-way keeps all its text
	st := &m.hl.tok[1]
	lx := m.hl.lexer(0, "main.go")
	if got := ansi.Strip(paint(lx, `x := "a" + 1 // c`, st, time.Now().Add(-time.Second))); got != `x := "a" + 1 // c` {
		t.Errorf("paint out of time: %q", got)
	}
}

// The remembered lookup answers what lexers.Match answers, for names that
// share extensions with names of their own (CMakeLists.txt, Makefile.am),
// backups and templates, in either order.
func TestLexerFinderAgreesWithMatch(t *testing.T) {
	t.Parallel()
	names := []string{
		"notes.txt", "CMakeLists.txt", "meson_options.txt", "a/b/x.go", "main.go", "x.go.orig", "y.go.orig",
		"x.py.orig", "x.go~", "x.py~", "Makefile", "Makefile.am", "x.am", "Dockerfile", "Dockerfile.dev",
		"x.dev", "page.php5", "x.php", "man.1", "x.1", "x.rs.in", "y.rs.in", "z.c.in", "x.go.tmpl", "y.tmpl",
		"BUILD.bazel", "x.bazel", ".bashrc", ".bash_profile", "x.profile", "README", "x.md", "a.b.c.d",
		"weird\x1b[31m.go", "..", "", ".", "x.", "noext",
	}
	for _, order := range [][]string{names, reversed(names)} {
		f := newLexerFinder()
		for _, n := range order {
			want, got := lexers.Match(filepath.Base(n)), f.match(n)
			if want != got {
				t.Errorf("%q: %v, lexers.Match says %v", n, name(got), name(want))
			}
		}
	}
}

func reversed(s []string) []string {
	r := make([]string, len(s))
	for i, v := range s {
		r[len(s)-1-i] = v
	}
	return r
}

func name(l chroma.Lexer) string {
	if l == nil {
		return "none"
	}
	return l.Config().Name
}

// A reloaded diff keeps the place when the file is still there.
func TestSetDiffKeepsThePlace(t *testing.T) {
	t.Parallel()
	m := view(plainStyles, many(5, 10), 50, 9)
	m.ShowAll()
	m.NextFile()
	m.NextFile()
	m.Move(3)
	m.SetDiff(Parse([]byte(many(6, 10))))
	if m.Mode() != ModeAll || m.Selected() != 2 || m.top != 27 {
		t.Errorf("ModeAll: mode %v selected %d top %d", m.Mode(), m.Selected(), m.top)
	}
	m.OpenSelected()
	m.SetDiff(Parse([]byte(many(6, 10))))
	if m.Mode() != ModeFile || m.Selected() != 2 || m.top != 3 {
		t.Errorf("ModeFile: mode %v selected %d top %d", m.Mode(), m.Selected(), m.top)
	}
	m.Back()
	m.SetDiff(Parse([]byte(many(6, 10))))
	if m.Mode() != ModeList || m.Selected() != 2 {
		t.Errorf("ModeList: mode %v selected %d", m.Mode(), m.Selected())
	}
	// the file is gone: the top of the list
	m.ShowAll()
	m.SetDiff(Parse([]byte(many(2, 10))))
	if m.Mode() != ModeList || m.Selected() != 0 || m.top != 0 {
		t.Errorf("gone: mode %v selected %d top %d", m.Mode(), m.Selected(), m.top)
	}
}

// Without the status line every row is content and Footer carries the
// position for a frame's edge.
func TestNoStatusLine(t *testing.T) {
	t.Parallel()
	m := view(plainStyles, fixture, 40, 5)
	if m.Footer() != "" {
		t.Errorf("Footer with a status line: %q", m.Footer())
	}
	m.SetStatusLine(false)
	m.ShowAll()
	wantScreen(t, m,
		" M main.go  +3 -1",
		"@@ -1,3 +1,5 @@ package main",
		"  1   1  package main",
		"  2   2",
		"  3     -func main() {}",
	)
	if got := m.Footer(); got != " 33% " {
		t.Errorf("Footer = %q", got)
	}
	m.Back()
	if got := m.Footer(); got != " 1/3 " {
		t.Errorf("list Footer = %q", got)
	}
}
