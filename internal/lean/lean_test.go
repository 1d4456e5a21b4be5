package lean

import (
	"bytes"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/internal/digest"
	"github.com/flowdeck/flowdeck/internal/digest/digesttest"
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
		{"flow status --format text", 0, "", false}, // an unknown flag to flow status, however harmless its value
		{"flow status --format=text", 0, "", false},
		{"flow status --hook=", 0, "", false},
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
		req, ok := parse(args)
		if ok && !strings.Contains(s, "status") && !strings.Contains(s, "hud") {
			t.Fatalf("answered %q", args)
		}
		// hud's flags are usage errors to flow status: never answered.
		if ok && (req.kind == statusText || req.kind == statusJSON) &&
			(strings.Contains(s, "--format") || strings.Contains(s, "--hook")) {
			t.Fatalf("answered flow status with a hud flag: %q", args)
		}
	})
}

// plant writes a database whose digest is d, as an agent with write access
// to the project could.
func plant(t *testing.T, d digest.Digest) string {
	return digesttest.Project(t, "1", d.Changes, digest.Encode(d))
}

// TestPlantedDigestIsNotPrinted: a digest written by someone other than
// flowdeck (the file is in the project, where an agent can write) is
// printed only when it is inert text, as flowdeck writes it; one holding an
// escape sequence (a clipboard write, a colour), a C0 or C1 control, a
// bidi control or broken UTF-8 is not answered here, and flowdeck-cli
// prints the state sanitised instead.
func TestPlantedDigestIsNotPrinted(t *testing.T) {
	for _, evil := range []string{"\x1b]52;c;ZXZpbA==\x07", "\x1b[31mred", "a\rb", "\u202e", "\u009b2J", "\xff", "\x7f"} {
		root := plant(t, digest.Digest{
			StatusText: []byte("Session s\n" + evil + "\n"),
			StatusJSON: []byte("{\"goal\": \"" + evil + "\"}\n"),
			HUDText:    digest.Stamped{Out: []byte("flowdeck (2000-01-01 00:00:00 UTC): " + evil + "\n"), At: 10},
			HUDHook:    digest.Stamped{Out: []byte("{\"a\": \"2000-01-01 00:00:00 UTC " + evil + "\"}\n"), At: 7},
		})
		for _, kind := range []answerKind{statusText, statusJSON, hudText, hudHook} {
			var out bytes.Buffer
			if _, ok := answer(request{kind: kind, dir: root}, root, &out); ok || out.Len() > 0 {
				t.Errorf("%q, kind %d: answered %q", evil, kind, out.String())
			}
		}
	}
	clean := "Session s\n  goal:     \\e]52;c;ZXZpbA== shown, tab\there, ünïcödé\n"
	root := plant(t, digest.Digest{StatusText: []byte(clean)})
	var out bytes.Buffer
	if _, ok := answer(request{kind: statusText, dir: root}, root, &out); !ok || out.String() != clean {
		t.Fatalf("inert text: %v %q", ok, out.String())
	}
}

func TestJSONRequested(t *testing.T) {
	for args, want := range map[string]bool{
		"--json runs": true, "runs --json=true": true, "runs --json=false": false,
		"run -- echo --json": false, "runs": false,
	} {
		if got := JSONRequested(strings.Fields(args)); got != want {
			t.Errorf("JSONRequested(%q) = %v", args, got)
		}
	}
}
