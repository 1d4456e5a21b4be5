package ui

import (
	"fmt"

	"flowdeck/ui/cmdline"
	"flowdeck/ui/keys"
	"flowdeck/ui/layout"
)

// helpView is the full help, grouped by pane, generated from the key map so
// it always shows the user's own bindings.
func (m *Model) helpView(w, h int) []string {
	th := m.th
	var lines []string
	colW := 0
	for _, g := range keys.Groups {
		for _, b := range m.keys.Bindings(g.Actions...) {
			colW = max(colW, layout.Width(b.Help().Key))
		}
	}
	for _, g := range keys.Groups {
		lines = append(lines, " "+th.Bold.Render(g.Title))
		for _, b := range m.keys.Bindings(g.Actions...) {
			hp := b.Help()
			lines = append(lines, fmt.Sprintf("   %s  %s", th.KeyHint.Render(layout.Fit(hp.Key, colW)), hp.Desc))
		}
		lines = append(lines, "")
	}
	lines = append(lines, " "+th.Bold.Render("Command line (:)"))
	for _, sp := range cmdline.Specs {
		lines = append(lines, "   "+sp.Usage)
	}
	// The decision prompt's keys are fixed: it holds text inputs, where
	// letters must reach the text.
	lines = append(lines, "", " "+th.Bold.Render("Decision prompt"))
	for _, kd := range [][2]string{
		{"1–9", "choose an option"},
		{"tab", "next field or the note"},
		{"←/→", "pick a value of a choice field"},
		{"pgdn/pgup", "scroll a long question"},
		{"enter", "send (with options: on to them)"},
		{"esc", "later (" + m.keyName(keys.Open) + " in the flow pane reopens it)"},
	} {
		lines = append(lines, fmt.Sprintf("   %s  %s", th.KeyHint.Render(layout.Fit(kd[0], colW)), kd[1]))
	}
	source := " rebind keys in $XDG_CONFIG_HOME/flowdeck/config.toml, e.g. [keys] approve = [\"a\"]"
	if m.cfg.Path != "" {
		source = " keys from " + m.cfg.Path + " [keys]"
	}
	inner := h - 2
	// Two columns when the screen is wide enough and one would scroll.
	if len(lines) > inner && w >= 110 {
		half := (len(lines) + 1) / 2
		for half < len(lines) && lines[half-1] != "" {
			half++
		}
		colw := (w - 2) / 2
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
		lines = merged
	}
	lines = append(lines, "", th.Dim.Render(source))
	lines = lines[min(m.helpOff, max(0, len(lines)-inner)):]
	return layout.Box(th, th.TitleFocus.Render(" Help ")+th.Dim.Render(" esc closes "), "", lines, w, h, true)
}
