package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/ui/panes/diffview"
)

// syntheticDiff is a unified diff of n lines of Go over files of 200
// lines each, new files and edits alternating.
func syntheticDiff(n int) string {
	var b strings.Builder
	for f := 0; b.Len() == 0 || n > 0; f++ {
		name := fmt.Sprintf("pkg%d/file%d.go", f/10, f)
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n", name, name)
		if f%2 == 0 {
			fmt.Fprintf(&b, "new file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,200 @@\n", name)
		} else {
			fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n@@ -1,200 +1,200 @@\n", name, name)
		}
		for i := range 200 {
			mark := "+"
			if f%2 == 1 {
				mark = [3]string{" ", "-", "+"}[i%3]
			}
			fmt.Fprintf(&b, "%sfunc F%d_%d(x int) string { return fmt.Sprintf(\"%%d: %s\", x) } // line %d\n", mark, f, i, name, i)
		}
		n -= 204
	}
	return b.String()
}

// BenchmarkViewReviewDialog20kDiff: the whole cockpit frame at 160×48 with
// the review dialog open on a 20,000-line change, one page further at each
// frame (each page new to the highlighter), against the same frame with no
// dialog, in the same run. The diff view's own cost is
// ui/panes/diffview's BenchmarkViewLargeDiff.
func BenchmarkViewReviewDialog20kDiff(b *testing.B) {
	s, _ := bigSession(b, 50, 10)
	patch := syntheticDiff(20000)
	b.Run("baseline-no-dialog", func(b *testing.B) {
		m := benchModel(b, s, 160, 48)
		for b.Loop() {
			_ = m.View()
		}
	})
	b.Run("review-dialog", func(b *testing.B) {
		m := benchModel(b, s, 160, 48)
		w := wait{Feature: s.Execution.ActiveFeature, Kind: waitReview, Key: "bench"}
		d := &reviewDialog{feature: w.Feature}
		d.change = m.newChange(ops.DiffRequest{Feature: w.Feature})
		m.push(d, false)
		parsed := diffview.Parse([]byte(patch))
		res := &ops.DiffResult{OK: true, Patch: patch, Added: parsed.Added, Removed: parsed.Removed}
		for _, f := range parsed.Files {
			res.Files = append(res.Files, gitwork.FileStat{Path: f.Path(), Added: f.Added, Removed: f.Removed})
		}
		d.change.loaded, d.change.res = true, res
		d.change.view.SetDiff(parsed)
		d.change.view.ShowAll()
		runAll(m, m.relayout())
		if v := m.View(); !strings.Contains(ansi.Strip(v.Content), "F0_0(x int)") {
			b.Fatalf("the diff is not on screen:\n%s", ansi.Strip(v.Content))
		}
		b.ResetTimer()
		for b.Loop() {
			d.change.view.FullPage(1)
			_ = m.View()
		}
	})
}
