package ui

import (
	"strings"
	"testing"
)

// A table too wide for the pane becomes a list; one that fits stays.
func TestNarrowTables(t *testing.T) {
	md := "intro\n\n| Seq | At | Scope | Status | Source | Command |\n|---|---|---|---|---|---|\n| 12 | 09:26 | targeted | passed | observed | go test \\| tee |\n\nafter"
	got := narrowTables(md, 60)
	if !strings.Contains(got, "- 12 · 09:26 · targeted · passed · observed · go test \\| tee") || strings.Contains(got, "|---") {
		t.Fatalf("narrow:\n%s", got)
	}
	if !strings.HasPrefix(got, "intro\n\n") || !strings.HasSuffix(got, "\n\nafter") {
		t.Fatalf("text around the table changed:\n%s", got)
	}
	if wide := narrowTables(md, 200); wide != md {
		t.Fatalf("a table that fits changed:\n%s", wide)
	}
	if got := dropRelativeLinks("[s](../index.md): goal, [web](https://x.dev)"); got != "s: goal, [web](https://x.dev)" {
		t.Fatalf("links: %q", got)
	}
}
