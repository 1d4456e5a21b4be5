package model

import "testing"

// A run's command as a person reads it: the agent's own command, not the
// engine's stdin wrapper, and a sandbox said in a word, not its binds.
func TestCommandLine(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"go", "test", "./..."}, "go test ./..."},
		{[]string{"sh", "-c", PromptStdin, "agent", "claude", "-p"}, "claude -p < prompt"},
		{[]string{"/usr/bin/bwrap", "--ro-bind", "/", "/", "--chdir", "/w", "--", "sh", "-c", PromptStdin, "agent", "claude", "-p"},
			"[sandbox] claude -p < prompt"},
	} {
		if got := CommandLine(c.argv); got != c.want {
			t.Errorf("CommandLine(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
}
