package diffview

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/ui/layout"
)

// largeDiff builds a diff of about n lines of real Go code (this module's
// own sources): some files new, most modified, every seventh line of a
// hunk changed.
func largeDiff(tb testing.TB, n int) []byte {
	tb.Helper()
	var srcs [][]string
	total := 0
	err := filepath.WalkDir("../../..", func(p string, e fs.DirEntry, err error) error {
		if err != nil || total >= n {
			return fs.SkipDir
		}
		if e.IsDir() && (e.Name() == "testdata" || strings.HasPrefix(e.Name(), ".")) && p != "../../.." {
			return fs.SkipDir
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		lines = lines[:min(len(lines), 240)]
		srcs = append(srcs, lines)
		total += len(lines) + len(lines)/7 + 2
		return nil
	})
	if err != nil || total < n {
		tb.Fatalf("%d lines of Go found: %v", total, err)
	}
	var b bytes.Buffer
	for i, lines := range srcs {
		name := fmt.Sprintf("pkg%d/file%d.go", i/10, i)
		if i%5 == 0 {
			fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", name, name, name, len(lines))
			for _, l := range lines {
				b.WriteString("+" + l + "\n")
			}
			continue
		}
		changed := len(lines) / 7
		fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n@@ -1,%d +1,%d @@ package x\n", name, name, name, name, len(lines), len(lines)+changed)
		for j, l := range lines {
			if j%7 == 3 {
				b.WriteString("-" + l + "\n+" + l + " // changed\n+" + strings.Repeat("\t", 1) + "_ = 0\n")
				continue
			}
			b.WriteString(" " + l + "\n")
		}
	}
	return b.Bytes()
}

// BenchmarkViewLargeDiff measures a frame of a 20,000-line Go diff at
// 160×48 while paging through it: every frame shows lines not drawn
// before (the cache is far smaller than the diff, so the pages after the
// end come round again uncached). baseline draws the same 48 lines raw
// (no sanitising, numbers or highlighting), cut and padded: the ratio of
// the others to it is what the viewer costs.
func BenchmarkViewLargeDiff(b *testing.B) {
	data := largeDiff(b, 20000)
	d := Parse(data)
	rows := 0
	for _, f := range d.Files {
		rows += len(f.Lines)
	}
	b.Logf("%d files, %d lines, %d KiB", len(d.Files), rows, len(data)/1024)

	b.Run("parse", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			Parse(data)
		}
	})
	paging := func(b *testing.B, m *Model, finish bool) {
		m.SetSize(160, 48)
		m.SetDiff(d)
		m.ShowAll()
		for b.Loop() {
			m.FullPage(1)
			if m.top == m.maxTop() {
				m.Top()
			}
			if finish {
				for m.Highlight() {
				}
			}
			m.View()
		}
	}
	// what a key press costs: View highlights within its budget
	b.Run("view", func(b *testing.B) { paging(b, New(darkStyles), false) })
	// the whole page highlighted before it is drawn: what the caller's
	// Highlight ticks add up to for one fresh page
	b.Run("view+highlight-all", func(b *testing.B) { paging(b, New(darkStyles), true) })
	b.Run("view-nocolor", func(b *testing.B) { paging(b, New(plainStyles), false) })
	// the same page again: everything from the cache
	b.Run("redraw", func(b *testing.B) {
		m := New(darkStyles)
		m.SetSize(160, 48)
		m.SetDiff(d)
		m.ShowAll()
		m.FullPage(1)
		for m.Highlight() {
		}
		for b.Loop() {
			m.View()
		}
	})
	b.Run("baseline", func(b *testing.B) {
		off := 0
		page := make([]string, 48)
		for b.Loop() {
			off += 47
			if off+48 > len(d.lines) {
				off = 0
			}
			for i := range page {
				page[i] = d.Text(d.lines[off+i])
			}
			layout.PadLines(page, 160, 48)
		}
	})
}
