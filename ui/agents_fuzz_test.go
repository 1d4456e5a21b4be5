package ui

import (
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/termtext"
)

// FuzzOutputLines: whatever an agent printed, the lines the agents pane and
// the review dialog show are each one line of safe text.
func FuzzOutputLines(f *testing.F) {
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
		for _, got := range outputLines(data, cut) {
			if strings.ContainsAny(got, "\n\r\t") || !termtext.Safe(got) || strings.TrimSpace(got) == "" {
				t.Fatalf("unsafe or blank line %q from %q", got, data)
			}
		}
	})
}
