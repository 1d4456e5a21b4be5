package keys

import (
	"os"
	"regexp"
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

// The README's key table is the key map: every row names an action and its
// default keys exactly, and every action has a row.
func TestREADMEKeyTable(t *testing.T) {
	raw, err := os.ReadFile("../../docs/cockpit.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	start := strings.Index(text, "### Keys")
	if start < 0 {
		t.Fatal("docs/cockpit.md has no ### Keys section")
	}
	text = text[start:]
	if end := strings.Index(text[1:], "\n#"); end >= 0 {
		text = text[:end+1]
	}
	tick := regexp.MustCompile("`([^`]+)`")
	m := Default()
	seen := map[Action]bool{}
	for _, line := range strings.Split(text, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.Contains(cells[2], "`") {
			continue
		}
		var ks []string
		for _, k := range tick.FindAllStringSubmatch(cells[1], -1) {
			ks = append(ks, k[1])
		}
		name := tick.FindStringSubmatch(cells[2])[1]
		a := Action(name)
		b := m.Get(a)
		if len(b.Keys()) == 0 {
			t.Errorf("README row %q: no action %q in the key map", strings.TrimSpace(line), name)
			continue
		}
		if strings.Join(ks, " ") != strings.Join(b.Keys(), " ") {
			t.Errorf("README says %s is %v; the key map binds %v", name, ks, b.Keys())
		}
		seen[a] = true
	}
	for _, d := range defaults {
		if !seen[d.action] {
			t.Errorf("the README's key table has no row for %s (%v)", d.action, d.keys)
		}
	}
}
