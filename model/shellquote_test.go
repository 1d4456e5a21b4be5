package model

import (
	"os/exec"
	"strings"
	"testing"
)

// TestShellQuoteControls: an argument holding controls, C1 or bidi
// characters is shown as $'…' with every such character escaped, and bash
// reads it back as the same bytes.
func TestShellQuoteControls(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not on PATH")
	}
	for _, s := range []string{
		"Goal \x1b]52;c;SGVsbG8=\x07", "a'b\\c\x1b[31m", "\u009b31m\u202eevil", "tab\tnl\ncr\r", "bad \xff byte", "plain words", "it's",
	} {
		q := ShellQuote(s)
		if strings.ContainsAny(q, "\x1b\x07\n\r\t") || strings.ContainsRune(q, 0x9b) || strings.ContainsRune(q, 0x202e) {
			t.Errorf("%q quoted raw: %q", s, q)
		}
		out, err := exec.Command(bash, "-c", "printf %s "+q).Output()
		if err != nil || string(out) != s {
			t.Errorf("bash read %q back as %q (%v)", q, out, err)
		}
	}
}
