package ui

import (
	"fmt"
	"image/color"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
)

// TestColorGoldenFrames pins a few key frames with their colours, in the
// dark palette (config theme = dark) and the light one (theme = auto and a
// terminal that answers with a white background), so that a change of the
// styles shows as a diff. The other goldens are colourless.
func TestColorGoldenFrames(t *testing.T) {
	cases := []struct {
		name, scenario string
		keys           []string
	}{
		{"running", "running", nil},
		{"awaiting-review", "review", nil},
		{"help", "running", []string{"?"}},
		{"graph-focused", "blocked", []string{"2", "j"}},
	}
	for _, palette := range []string{"dark", "light"} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s-%s", palette, c.name), func(t *testing.T) {
				st := newStore(t)
				scenario(t, st, c.scenario)
				var h *harness
				if palette == "dark" {
					h = newColorHarness(t, st, 80, 24, "dark")
				} else {
					h = newColorHarness(t, st, 80, 24, "auto")
					h.send(tea.BackgroundColorMsg{Color: color.White})
				}
				h.key(c.keys...)
				golden.RequireEqual(t, h.frame())
			})
		}
	}
}
