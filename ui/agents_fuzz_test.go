package ui

import (
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/termtext"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// FuzzLastOutputLine: whatever an agent printed, the line the agents pane
// shows is one line of safe text, at most 400 cells.
func FuzzLastOutputLine(f *testing.F) {
	for _, s := range []string{
		"", "\n\n", "ok\n", "compiling 40%\rcompiling 80%",
		"a\n\x1b]0;pwned\x07b\x1b[31mred\x1b[0m\n",
		"x\x1b[2J\x1b[?1049hy\n", "\u202eevil\u202c\n", strings.Repeat("wide 界", 200),
		"partial line\nlast\r\n", "\x9b31mC1\n", "\x1bP1$qm\x1b\\\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, cut bool) {
		got := lastOutputLine(data, cut)
		if strings.ContainsAny(got, "\n\r") || !termtext.Safe(got) {
			t.Fatalf("unsafe line %q from %q", got, data)
		}
		if layout.Width(got) > 400 {
			t.Fatalf("line of %d cells", layout.Width(got))
		}
	})
}
