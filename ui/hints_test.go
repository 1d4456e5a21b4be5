package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// The hint bar (bubbles/help) never runs past its width, whatever the width,
// and ends at a whole hint.
func TestBindingHintsFit(t *testing.T) {
	st := newStore(t)
	h := newHarness(t, st, 80, 24, zeroConfig())
	bs := h.m.keys.Bindings(keys.NextPane, keys.Start, keys.Verify, keys.Approve, keys.NeedsFix, keys.Block, keys.Help, keys.Quit)
	for w := 0; w <= 120; w++ {
		got := h.m.bindingHints(w, bs...)
		if layout.Width(got) > w {
			t.Fatalf("w=%d: %q is %d wide", w, got, layout.Width(got))
		}
		if got != "" && strings.HasSuffix(got, " ") {
			t.Fatalf("w=%d: %q ends in a space", w, got)
		}
	}
	if all := ansi.Strip(h.m.bindingHints(200, bs...)); !strings.Contains(all, "q quit") || !strings.Contains(all, "tab next pane") {
		t.Fatalf("wide: %q", all)
	}
}
