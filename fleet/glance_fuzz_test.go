package fleet

import (
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/ops"
)

// FuzzParseGlance: whatever a remote answers to fleet_glance, the fleet
// either refuses it with a safe one-line reason or keeps a glance whose
// every string is one safe bounded line and whose lists are bounded.
func FuzzParseGlance(f *testing.F) {
	f.Add(`{"ok":true,"api":1,"root":"/srv/app","seq":3,"goal":"g","status":"running","done":1,"total":2,`+
		`"active":[{"feature":"a","agent":"w","state":"in_progress"}],`+
		`"waits":[{"kind":"decision","key":"k","label":"decision d1","decision":"d1","reason":"Ship?","options":[{"id":"yes"}]}]}`, false)
	f.Add(`{"ok":true,"api":1,"goal":"\u001b]0;pwned\u0007\u001b[2J\u202e","waits":[{"label":"a\nb\rc\u009b31m"}]}`, false)
	f.Add(`{"ok":true,"api":2}`, false)
	f.Add(`{"ok":false,"api":1,"error":{"code":"x\u001b[31m","message":"m\n"}}`, true)
	f.Add(`{"ok":true,"api":1,"done":-5,"total":-1}`, false)
	f.Add(`not json`, false)
	f.Add(`{"ok":true,"api":1,"waits":[`+strings.Repeat(`{"kind":"review","options":[{"id":"\u001b"}]},`, 3)+`{}]}`, false)
	f.Fuzz(func(t *testing.T, text string, isError bool) {
		g, fail := parseGlance(text, isError, "v\x1b[1m1")
		if fail != nil {
			safeLine(t, "a refusal's reason", fail.msg)
			return
		}
		if isError {
			t.Fatalf("an answer flagged as an error was kept: %q", text)
		}
		if g.Done < 0 || g.Total < 0 || len(g.Active) > MaxActive || len(g.Waits) > MaxWaits {
			t.Fatalf("unbounded glance: done %d total %d active %d waits %d", g.Done, g.Total, len(g.Active), len(g.Waits))
		}
		for _, s := range glanceStrings(t, g) {
			safeLine(t, "a glance's string", s)
		}
	})
}

// glanceStrings are every string of g; a list over its bound fails t.
func glanceStrings(t *testing.T, g *ops.FleetGlance) []string {
	out := []string{g.Root, g.Session, g.Goal, g.Status, g.NextCommand}
	for _, a := range g.Active {
		out = append(out, a.Feature, a.Title, a.Agent, a.State)
	}
	for _, w := range g.Waits {
		out = append(out, w.Kind, w.Key, w.Label, w.Feature, w.Decision, w.Reason)
		if len(w.Options) > MaxOptions {
			t.Fatalf("%d options kept", len(w.Options))
		}
		for _, o := range w.Options {
			out = append(out, o.ID, o.Label)
		}
	}
	return out
}
