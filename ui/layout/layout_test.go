package layout

import (
	"strings"
	"testing"
)

func TestComputeTilesTheBody(t *testing.T) {
	for _, c := range []struct{ w, h int }{{80, 20}, {100, 30}, {160, 44}, {300, 90}} {
		for _, lower := range []Pane{DAG, Detail, Runs, Output, Recall, Flow, Agents} {
			l := Compute(0, 2, c.w, c.h, lower, lower, 0, false)
			area := 0
			for p := Pane(0); p < NumPanes; p++ {
				r := l.Rects[p]
				if r.Empty() {
					continue
				}
				if r.X < 0 || r.Y < 2 || r.X+r.W > c.w || r.Y+r.H > 2+c.h {
					t.Fatalf("%dx%d: %s at %+v leaves the body", c.w, c.h, p.Title(), r)
				}
				area += r.W * r.H
			}
			if area != c.w*c.h {
				t.Fatalf("%dx%d lower=%s: panes cover %d cells of %d", c.w, c.h, lower.Title(), area, c.w*c.h)
			}
			if c.w < WideMin && l.Rects[lower].Empty() {
				t.Fatalf("%dx%d: the lower pane %s is not shown", c.w, c.h, lower.Title())
			}
		}
	}
}

func TestBoxIsExactSize(t *testing.T) {
	for _, w := range []int{4, 10, 80} {
		lines := Box(testTheme, "a very long title that will not fit", " footer ", []string{"x", "a line far too long for the box to hold at all"}, w, 5, true)
		if len(lines) != 5 {
			t.Fatalf("w=%d: %d lines", w, len(lines))
		}
		for _, l := range lines {
			if Width(l) != w {
				t.Fatalf("w=%d: line %q is %d wide", w, l, Width(l))
			}
		}
	}
}

func TestFitKeepsOneRow(t *testing.T) {
	got := Fit("sh -c 'a\nb'\tc", 14)
	if got != "sh -c 'a⏎b' c " {
		t.Fatalf("Fit = %q", got)
	}
	if got := Cut("x\r\ny", 10); got != "x⏎y" {
		t.Fatalf("Cut = %q", got)
	}
}

func TestWrapHangs(t *testing.T) {
	got := Wrap("no such file: /a/very/long/path/to/some/config.toml here", 20, "    ")
	for i, l := range got {
		if Width(l) > 20 {
			t.Fatalf("line %d %q is wider than 20", i, l)
		}
		if i > 0 && !strings.HasPrefix(l, "    ") {
			t.Fatalf("line %d %q does not hang", i, l)
		}
	}
	// Nothing but the spaces at the breaks is lost.
	joined := strings.ReplaceAll(strings.Join(got, ""), " ", "")
	if joined != "nosuchfile:/a/very/long/path/to/some/config.tomlhere" {
		t.Fatalf("Wrap lost text: %q", got)
	}
	got = Wrap("resets: reset-api, e2e-tests, docs", 22, "  ")
	if len(got) != 2 || got[1] != "  e2e-tests, docs" {
		t.Fatalf("Wrap broke at a hyphen: %q", got)
	}
	if got := Wrap("short", 20, "  "); len(got) != 1 || got[0] != "short" {
		t.Fatalf("Wrap(short) = %q", got)
	}
}
