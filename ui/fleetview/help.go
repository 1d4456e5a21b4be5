package fleetview

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// The full help (?): bubbles/help's full view of the keys that work where
// it was opened (the focused box, or the top dialog) and everywhere, from
// the same key maps that dispatch, in a box over the fleet.

// note is the line above the key bar: information, a success, an error.
type note struct {
	kind  noteKind
	lines []string
}

type noteKind int

const (
	noteInfo noteKind = iota
	noteOK
	noteErr
)

func infoNote(s string) note { return note{kind: noteInfo, lines: []string{s}} }
func okNote(s string) note   { return note{kind: noteOK, lines: []string{"✓ " + s}} }
func errNote(s string) note  { return note{kind: noteErr, lines: []string{s}} }

func (m *Model) openHelp() { m.helpOpen, m.helpOff = true, 0 }

// helpKeyMap is what the keys do in the help.
func (m *Model) helpKeyMap() keyMap {
	k := m.keyMapOf([]keys.Action{keys.Down, keys.Up, keys.Back}, keys.Up, keys.Down, keys.PageDown, keys.PageUp, keys.Top, keys.Back, keys.Help, keys.Quit)
	k.desc = map[keys.Action]string{keys.Back: "close", keys.Down: "scroll down", keys.Up: "scroll up", keys.Help: "close"}
	return k
}

func (m *Model) helpKey(k tea.KeyPressMsg) tea.Cmd {
	a, ok := m.keys.Which(k, m.helpKeyMap().actions()...)
	if !ok {
		return nil
	}
	switch a {
	case keys.Quit:
		return m.quit()
	case keys.Back, keys.Help:
		m.helpOpen = false
		return m.highlightSoon()
	case keys.Down:
		m.helpOff++
	case keys.Up:
		m.helpOff--
	case keys.PageDown:
		m.helpOff += 10
	case keys.PageUp:
		m.helpOff -= 10
	case keys.Top:
		m.helpOff = 0
	}
	m.helpOff = max(0, m.helpOff)
	return nil
}

// helpGroups are the columns of the full help: here, then everywhere.
func (m *Model) helpGroups() ([][]key.Binding, string) {
	here, where := m.boxKeyMap(), "projects"
	if m.focus == focusQueue {
		where = "queue"
	}
	if d := m.top(); d != nil {
		here, where = d.keyMap(m), "dialog"
	}
	return [][]key.Binding{here.bindings(here.actions()), m.keyMapOf(globalKeys).bindings(globalKeys)}, where
}

// helpBox draws the full help in h rows.
func (m *Model) helpBox(h int) []string {
	groups, where := m.helpGroups()
	hm := m.help
	hm.SetWidth(m.w - 4)
	lines := strings.Split(hm.FullHelpView(groups), "\n")
	body := make([]string, 0, len(lines))
	for _, l := range lines {
		body = append(body, " "+l)
	}
	room := max(1, h-2)
	m.helpOff = min(m.helpOff, max(0, len(body)-room))
	body = body[m.helpOff:]
	footer := ""
	if len(lines) > room {
		footer = m.th.Dim.Render(" ↓ more ")
	}
	return layout.Box(m.th, m.th.TitleFocused.Render(" Keys: "+where+" and everywhere "), footer, body, m.w, h, true)
}
