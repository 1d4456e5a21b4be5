package diffview

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/flowdeck/flowdeck/ui/styles"
)

// FuzzParse feeds the parser hostile diffs, then draws them: nothing may
// panic, every line's text must lie in the input, counts must match the
// lines, and every frame must be its size with no escape but our SGR.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		fixture,
		hostile,
		many(3, 4),
		"",
		"\n\n\n",
		"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n--- a/x\n+++ b/y\n keep\n",
		"--- a.txt\t2024-01-01\n+++ a.txt\t2024-01-02\n@@ -1 +1 @@\n-x\n+y\n--- b.txt\n+++ b.txt\n@@ -0,0 +1 @@\n+z\n",
		"diff --git \"a/caf\\303\\251 \\\"q\\\".txt\" \"b/caf\\303\\251 \\\"q\\\".txt\"\nold mode 100644\nnew mode 100755\n",
		"diff --git a/x b/y.bin b/x b/y.bin\nindex 1..2 100644\nBinary files a/x b/y.bin and b/x b/y.bin differ\n",
		"diff --git a/b b/b\nnew file mode 100644\nGIT binary patch\nliteral 5\nMcmZ?wbN{sZ0\n\nliteral 0\n\n",
		"diff --git a/o b/n\nsimilarity index 90%\nrename from o\nrename to n\n--- a/o\n+++ b/n\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n",
		"diff --git a/o b/n\ncopy from \"o\\t\"\ncopy to \"n\\\"\n",
		"@@ -99999999999999999999,1 +2147483647,4294967296 @@\n+x\n",
		"diff --git a/f b/f\n@@ -2147483647,3 +2147483647,3 @@\n a\n b\n c\n",
		"diff --git \"a/unterminated b/x\n@@ -1 +1 @@\n-\xff\xfe\n+\x1b]8;;http://x\x07link\x1b]8;;\x07\n",
		"diff --cc f\nindex 1,2..3\n@@@ -1,1 -1,1 +1,2 @@@\n- a\n +b\n++c\n",
		"diff --git a/f b/f\r\n--- a/f\r\n+++ b/f\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := Parse(data)
		added, removed := 0, 0
		for i := range d.Files {
			fl := &d.Files[i]
			a, r := 0, 0
			for _, l := range fl.Lines {
				b := d.Bytes(l)
				if len(b) > 0 && !inside(b, data) {
					t.Fatalf("line text %q is not in the input", b)
				}
				switch l.Kind {
				case Add:
					a++
				case Del:
					r++
				}
				if l.Old < 0 || l.New < 0 {
					t.Fatalf("negative line number %+v", l)
				}
			}
			if a != fl.Added || r != fl.Removed {
				t.Fatalf("file %d counts +%d -%d, lines +%d -%d", i, fl.Added, fl.Removed, a, r)
			}
			added, removed = added+a, removed+r
		}
		if added != d.Added || removed != d.Removed {
			t.Fatalf("totals +%d -%d, lines +%d -%d", d.Added, d.Removed, added, removed)
		}

		for _, th := range []*styles.Styles{plainStyles, darkStyles} {
			m := New(th)
			m.SetSize(37, 7)
			m.SetDiff(d)
			for _, step := range []func(){m.NextFile, m.ShowAll, func() { m.ScrollX(5) }, m.NextFile, m.Bottom, m.OpenSelected, func() { m.Move(-3) }, func() { m.Highlight() }, func() { m.SetDiff(Parse(data)) }, m.PrevFile, func() { m.Back() }} {
				step()
				m.FirstChangedLine()
				rows := m.View()
				if len(rows) != 7 {
					t.Fatalf("%d rows", len(rows))
				}
				for _, r := range rows {
					if w := ansi.StringWidth(r); w != 37 {
						t.Fatalf("row of %d cells: %q", w, r)
					}
					if rest := sgr.ReplaceAllString(r, ""); strings.ContainsAny(rest, "\x1b\x07\r\n\u009b") || !utf8.ValidString(rest) {
						t.Fatalf("unsafe row %q", r)
					}
				}
			}
		}
	})
}

// inside reports whether b is a slice of data's array.
func inside(b, data []byte) bool {
	if len(data) == 0 {
		return false
	}
	start := cap(data) - cap(b)
	return start >= 0 && start+len(b) <= len(data) && &data[start] == &b[0]
}
