package fleetview

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/ui/keys"
)

// keyMap is one context's bindings (a box, a dialog, the help) as
// bubbles/help.KeyMap, resolved in the person's key map (ui/keys, the
// config's [keys]): the same list drives the dispatch, the hint bar and
// the full help, as in the cockpit, so a rebound key changes all three.
type keyMap struct {
	km    keys.Map
	short []keys.Action
	full  []keys.Action
	// desc says what a key does here when the action's name does not
	// (enter "open the project"); label, which of its keys do ("1–3").
	desc, label map[keys.Action]string
}

func (k keyMap) ShortHelp() []key.Binding { return k.bindings(k.short) }

func (k keyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.bindings(k.actions())} }

func (k keyMap) bindings(acts []keys.Action) []key.Binding {
	out := make([]key.Binding, 0, len(acts))
	for _, a := range acts {
		bs := k.km.Bindings(a)
		if len(bs) == 0 {
			continue
		}
		b := bs[0]
		if d, ok := k.desc[a]; ok {
			b.SetHelp(b.Help().Key, d)
		}
		if l, ok := k.label[a]; ok {
			b.SetHelp(l, b.Help().Desc)
		}
		out = append(out, b)
	}
	return out
}

// actions is every action of the map, for dispatch.
func (k keyMap) actions() []keys.Action {
	if len(k.full) == 0 {
		return k.short
	}
	return k.full
}

func (m *Model) keyMapOf(short []keys.Action, full ...keys.Action) keyMap {
	return keyMap{km: m.keys, short: short, full: full}
}

// moveKeys move in a list or a change.
var moveKeys = []keys.Action{keys.Up, keys.Down, keys.Top, keys.Bottom, keys.PageDown, keys.PageUp}

// globalKeys work wherever no text field has the keys.
var globalKeys = []keys.Action{keys.Help, keys.Quit}

// boxKeyMap is what the keys do in the focused box: the projects (enter
// opens the project's cockpit) or the queue (enter answers the item; a, x,
// b and d as on a feature in one project's cockpit).
func (m *Model) boxKeyMap() keyMap {
	if m.focus == focusRows {
		k := m.keyMapOf([]keys.Action{keys.Down, keys.Open, keys.NextPane},
			append(append([]keys.Action{keys.Open, keys.NextPane, keys.PrevPane, keys.Pane1, keys.Pane2}, moveKeys...), keys.Back)...)
		k.desc = map[keys.Action]string{keys.Open: "open the project", keys.NextPane: "the queue",
			keys.PrevPane: "the queue", keys.Pane1: "projects", keys.Pane2: "queue"}
		return k
	}
	short := []keys.Action{keys.Open}
	desc := map[keys.Action]string{keys.Open: "answer", keys.NextPane: "the projects",
		keys.PrevPane: "the projects", keys.Pane1: "projects", keys.Pane2: "queue"}
	if it, ok := m.selectedItem(); ok {
		switch {
		case isReview(it):
			short = append(short, keys.Approve, keys.NeedsFix, keys.ShowDiff)
			desc[keys.Open] = "review"
		case isDecision(it):
			desc[keys.Open] = "decide"
		default:
			desc[keys.Open] = "open the project"
		}
	}
	short = append(short, keys.NextPane)
	full := append([]keys.Action{keys.Open, keys.Approve, keys.NeedsFix, keys.Block, keys.ShowDiff,
		keys.NextPane, keys.PrevPane, keys.Pane1, keys.Pane2}, moveKeys...)
	k := m.keyMapOf(short, append(full, keys.Back)...)
	k.desc = desc
	return k
}

// printable reports whether k types text (a text field takes it).
func printable(k tea.KeyPressMsg) bool {
	return k.Text != "" && k.Mod&^tea.ModShift == 0
}

// keyName is the first key bound to a, for messages.
func (m *Model) keyName(a keys.Action) string {
	ks := m.keys.Get(a).Keys()
	if len(ks) == 0 || !m.keys.Get(a).Enabled() {
		return "(" + string(a) + " is unbound)"
	}
	return keys.Label(ks[:1])
}
