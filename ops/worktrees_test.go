package ops

import "testing"

// A plan title reaches git log through the merge message: terminal controls
// and bidi overrides are dropped, the rest kept.
func TestPrintableTitle(t *testing.T) {
	if got := printable("Fix \x1b]0;pwned\x07 the\u202e api\n"); got != "Fix ]0;pwned the api" {
		t.Fatalf("printable = %q", got)
	}
}
