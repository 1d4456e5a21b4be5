package fleetview

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
)

// TestGoldenFrames pins the fleet view's frames on the test fleet (alpha
// with a review waiting, beta with a question, gamma connecting): colours
// stripped (the NO_COLOR styles, SGR removed), the clocks fixed, the
// projects under a home shown as ~. Update with -update.
func TestGoldenFrames(t *testing.T) {
	cases := []struct {
		name string
		keys []string
	}{
		{"fleet", nil},
		{"queue", []string{"tab", "j"}},
		{"review", []string{"tab", "enter"}},
		{"help", []string{"?"}},
	}
	w := newWorld(t, time.Hour)
	for _, c := range cases {
		for _, size := range [][2]int{{80, 24}, {40, 12}, {120, 40}} {
			if c.name != "fleet" && size[0] == 120 {
				continue
			}
			t.Run(fmt.Sprintf("%s-%dx%d", c.name, size[0], size[1]), func(t *testing.T) {
				h := w.view(t, size[0], size[1], testConfig())
				h.ready()
				h.key(c.keys...)
				if c.name == "review" {
					h.pump(time.Minute, "the change", func() bool { return !strings.Contains(h.screen(), "reading the change") })
				}
				golden.RequireEqual(t, h.screen())
			})
		}
	}
}

// The frame docs/fleet.md shows is the fleet view's own: a copy of a
// golden frame, so the docs and the screen cannot drift apart.
func TestDocsFrameIsAGoldenFrame(t *testing.T) {
	doc, err := os.ReadFile("../../docs/fleet.md")
	if err != nil {
		t.Fatal(err)
	}
	const intro = "The fleet view at 80x24, on three projects"
	at := strings.Index(string(doc), intro)
	if at < 0 {
		t.Fatal("docs/fleet.md no longer shows the fleet view's frame")
	}
	rest := string(doc[at:])
	start := strings.Index(rest, "```\n") + 4
	end := strings.Index(rest[start:], "\n```")
	want, err := os.ReadFile("testdata/TestGoldenFrames/fleet-80x24.golden")
	if err != nil {
		t.Fatal(err)
	}
	if got := rest[start : start+end]; got != strings.TrimRight(string(want), "\n") {
		t.Fatalf("docs/fleet.md's frame differs from the golden frame; copy it from ui/fleetview/testdata/TestGoldenFrames/fleet-80x24.golden\n--- docs\n%s\n--- golden\n%s", got, want)
	}
}
