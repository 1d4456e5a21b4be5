package model

import (
	"regexp"
	"testing"
)

// agentNameRE is the rule ValidAgentName implements as a loop.
var agentNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// FuzzValidAgentName: the loop agrees with the regular expression it
// replaced, on any input.
func FuzzValidAgentName(f *testing.F) {
	for _, s := range []string{"", "a", "claude", "agent-1", "a.b_c-d", "-a", ".a", "_a", "a b", "a\n", "é", "A9", "a/b",
		"0123456789012345678901234567890123456789012345678901234567890123", "01234567890123456789012345678901234567890123456789012345678901234"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		want := len(name) <= MaxAgentNameLen && agentNameRE.MatchString(name)
		if got := ValidAgentName(name); got != want {
			t.Fatalf("ValidAgentName(%q) = %v, want %v", name, got, want)
		}
	})
}
