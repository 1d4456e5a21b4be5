package lean

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		args string
		kind answerKind
		dir  string
		ok   bool
	}{
		{"flow status", statusText, "", true},
		{"--json flow status", statusJSON, "", true},
		{"flow --json status", statusJSON, "", true},
		{"flow status --json --dir /p", statusJSON, "/p", true},
		{"--dir=/p flow status", statusText, "/p", true},
		{"hud", hudText, "", true},
		{"hud --format text", hudText, "", true},
		{"hud --format=", hudText, "", true},
		{"hud --format markdown --dir /p", hudMarkdown, "/p", true},
		{"hud --hook claude", hudHook, "", true},
		{"--json hud --hook=claude --format yaml", hudHook, "", true}, // the hook prints text whatever they say
		// Left to flowdeck-cli:
		{"", 0, "", false},
		{"flow", 0, "", false},
		{"status", 0, "", false},
		{"flow status --full", 0, "", false},
		{"flow status extra", 0, "", false},
		{"flow status --format markdown", 0, "", false},
		{"flow status --hook claude", 0, "", false},
		{"flow status --json=true", 0, "", false},
		{"flow status --dir", 0, "", false},
		{"flow status --dir=", 0, "", false},
		{"flow status -- x", 0, "", false},
		{"hud --json", 0, "", false},
		{"hud --format json", 0, "", false},
		{"hud --format yaml", 0, "", false},
		{"hud --hook cursor", 0, "", false},
		{"hud --actor me", 0, "", false},
		{"--dir flow status", 0, "", false}, // --dir takes "flow": that is `flowdeck status`
		{"runs", 0, "", false},
	}
	for _, c := range cases {
		req, ok := parse(strings.Fields(c.args))
		if ok != c.ok || ok && (req.kind != c.kind || req.dir != c.dir) {
			t.Errorf("parse(%q) = %+v, %v; want kind %d dir %q, %v", c.args, req, ok, c.kind, c.dir, c.ok)
		}
	}
}

// FuzzParse: arguments come from agents; parse never panics and answers
// only the two commands.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"flow status", "hud --hook claude", "--dir x hud --format", "flow status --dir"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, " ")
		if _, ok := parse(args); ok && !strings.Contains(s, "status") && !strings.Contains(s, "hud") {
			t.Fatalf("answered %q", args)
		}
	})
}
