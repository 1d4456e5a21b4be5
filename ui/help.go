package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/flowdeck/flowdeck/ui/cmdline"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// helpGroup is one titled section of the full help: a context and its keys.
type helpGroup struct {
	title string
	keys  keyMap
}

// helpGroups are the contexts, each from its own key map, so the help
// always shows the user's own bindings.
func (m *Model) helpGroups() []helpGroup {
	review := &reviewDialog{}
	decision := m.keyMapOf(nil, []keys.Action{keys.Choose, keys.Open, keys.NextField, keys.PrevField, keys.Left, keys.Right, keys.PageDown, keys.PageUp, keys.Back})
	decision.desc = map[keys.Action]string{keys.Open: "send (with options: on to them)", keys.Back: "later (open in the flow pane answers it)"}
	// A pane's own keys, without the moves every list pane shares.
	own := func(p layout.Pane) keyMap {
		k := m.paneKeyMap(p)
		own := m.keyMapOf(nil, k.full[1:]...)
		own.desc = k.desc
		return own
	}
	return []helpGroup{
		{"Global", m.keyMapOf(nil, globalKeys)},
		{"Move (every pane)", m.keyMapOf(nil, moveKeys)},
		{"Features · graph · detail", own(layout.Features)},
		{"Runs", own(layout.Runs)},
		{"Output", own(layout.Output)},
		{"Flow", own(layout.Flow)},
		{"Agents", own(layout.Agents)},
		{"Recall (type to search)", m.recallKeyMap()},
		{"Review dialog", review.KeyMap(m)},
		{"Confirmation", m.keyMapOf([]keys.Action{keys.Yes, keys.No, keys.Back})},
		{"Decision · form dialog", decision},
		{"Command line", m.commandKeyMap()},
	}
}

// helpLines is the full help's text, before boxing and scrolling.
func (m *Model) helpLines(w, h int) []string {
	th := m.th
	var lines []string
	colW := 0
	groups := m.helpGroups()
	flat := make([][]key.Binding, len(groups))
	for i, g := range groups {
		seen := map[string]bool{}
		for _, col := range g.keys.FullHelp() {
			for _, b := range col {
				if id := b.Help().Key + b.Help().Desc; !seen[id] {
					seen[id] = true
					flat[i] = append(flat[i], b)
					colW = max(colW, layout.Width(b.Help().Key))
				}
			}
		}
	}
	for i, g := range groups {
		lines = append(lines, " "+th.Bold.Render(g.title))
		// One column per group through bubbles/help, the keys padded to
		// one width so that every group's descriptions line up.
		col := make([]key.Binding, len(flat[i]))
		for j, b := range flat[i] {
			hp := b.Help()
			col[j] = key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(layout.Fit(hp.Key, colW), " "+hp.Desc))
		}
		for _, l := range strings.Split(m.help.FullHelpView([][]key.Binding{col}), "\n") {
			lines = append(lines, "   "+strings.TrimRight(l, " ")) // help pads to the widest
		}
		lines = append(lines, "")
	}
	lines = append(lines, " "+th.Bold.Render("Commands (:)"))
	for _, sp := range cmdline.Specs {
		lines = append(lines, "   "+sp.Usage)
	}
	lines = append(lines, "", th.Dim.Render(" in a text field every printable key is text: "+m.keyName(keys.Help)+" is typed, f1 opens this help, ctrl+c quits"))
	source := " rebind keys in $XDG_CONFIG_HOME/flowdeck/config.toml, e.g. [keys] approve = [\"a\"]"
	if m.cfg.Path != "" {
		source = " keys from " + m.cfg.Path + " [keys]"
	}
	// Two columns when the screen is wide enough and one would scroll.
	if len(lines) > h-2 && w >= 110 {
		lines = twoColumns(lines, (w-2)/2)
	}
	return append(lines, "", th.Dim.Render(source))
}

func twoColumns(lines []string, colw int) []string {
	half := (len(lines) + 1) / 2
	for half < len(lines) && lines[half-1] != "" {
		half++
	}
	left, right := lines[:half], lines[half:]
	merged := make([]string, max(len(left), len(right)))
	for i := range merged {
		var l, r string
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		merged[i] = layout.Fit(l, colw) + r
	}
	return merged
}

// helpRect is where the help is drawn.
func (m *Model) helpRect() layout.Rect {
	return layout.Rect{X: 0, Y: sessionBarH, W: m.w, H: m.h - sessionBarH - 1}
}

// helpMaxOff is the last scroll offset that still fills the box.
func (m *Model) helpMaxOff() int {
	r := m.helpRect()
	return max(0, len(m.helpLines(r.W, r.H))-(r.H-2))
}

// helpView is the full help, boxed and scrolled.
func (m *Model) helpView(w, h int) []string {
	th := m.th
	lines := m.helpLines(w, h)
	lines = lines[min(m.helpOff, max(0, len(lines)-(h-2))):]
	return layout.Box(th, th.TitleFocused.Render(" Help ")+th.Dim.Render(" esc closes "), "", lines, w, h, true)
}
