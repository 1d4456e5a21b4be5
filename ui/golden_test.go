package ui

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestGoldenFrames pins whole frames at 80x24 and 160x48 for each state of a
// session. Colours are stripped (NO_COLOR theme, then SGR removed), the clock
// is fixed, so ids and timestamps are stable. Update with -update.
func TestGoldenFrames(t *testing.T) {
	cases := []struct {
		name, scenario string
		keys           []string
	}{
		{"empty", "empty", nil},
		{"planning", "planning", nil},
		{"running", "running", nil},
		{"awaiting-review", "review", nil},
		{"blocked", "blocked", nil},
		{"completed", "completed", nil},
		{"help", "running", []string{"?"}},
		{"graph-focused", "running", []string{"2", "j"}},
		{"command-line", "running", []string{":", "/", "f", "l", "o", "w", "-", "r", "tab"}},
		{"reset-confirm", "running", []string{"g", "r"}},
		{"recall", "running", []string{"ctrl+f", "f", "a", "i", "l"}},
		{"output", "running", []string{"5"}},
	}
	for _, c := range cases {
		for _, size := range [][2]int{{80, 24}, {160, 48}} {
			t.Run(fmt.Sprintf("%s-%dx%d", c.name, size[0], size[1]), func(t *testing.T) {
				st := newStore(t)
				scenario(t, st, c.scenario)
				h := newHarness(t, st, size[0], size[1], zeroConfig())
				h.key(c.keys...)
				golden.RequireEqual(t, h.screen())
			})
		}
	}
}
