package keys

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func press(s string) tea.KeyPressMsg { return tea.KeyPressMsg{Code: rune(s[0]), Text: s} }

func TestDefaultsAvoidMultiplexerKeys(t *testing.T) {
	m := Default()
	for _, d := range defaults {
		for _, k := range m.Get(d.action).Keys() {
			switch k {
			case "ctrl+s", "ctrl+q", "ctrl+b", "ctrl+p":
				t.Errorf("%s is bound to %s, which terminals and multiplexers take", d.action, k)
			}
		}
	}
}

func TestRebind(t *testing.T) {
	m, errs := Default().Rebind(map[string][]string{"approve": {"A"}, "verify": {}, "nope": {"z"}})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `unknown action "nope"`) {
		t.Fatalf("errs = %v", errs)
	}
	if !m.Matches(press("A"), Approve) || m.Matches(press("a"), Approve) {
		t.Fatal("approve not moved to A")
	}
	if m.Get(Approve).Help().Key != "A" {
		t.Fatalf("help shows %q", m.Get(Approve).Help().Key)
	}
	if m.Matches(press("v"), Verify) || len(m.Bindings(Verify)) != 0 {
		t.Fatal("an empty list did not unbind verify")
	}
	if !Default().Matches(press("a"), Approve) {
		t.Fatal("Rebind changed the map it was called on")
	}
}
