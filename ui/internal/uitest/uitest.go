// Package uitest holds what the tests of the cockpit (ui) and the fleet
// view (ui/fleetview) both need to drive a real model: key presses by name
// and a frame as plain text.
package uitest

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Key is the press of key k: a single character ("a", "G" with shift),
// or a name such as "enter", "esc", "tab", "shift+tab", "space",
// "backspace", "f1", "ctrl+c".
func Key(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "f1":
		return tea.KeyPressMsg{Code: tea.KeyF1}
	}
	if strings.HasPrefix(k, "ctrl+") {
		return tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	if r >= 'A' && r <= 'Z' {
		return tea.KeyPressMsg{Code: r + 32, ShiftedCode: r, Text: k, Mod: tea.ModShift}
	}
	return tea.KeyPressMsg{Code: r, Text: k}
}

// Plain is a frame's content as plain text: SGR sequences stripped,
// trailing blanks trimmed, ending in a newline.
func Plain(content string) string {
	lines := strings.Split(ansi.Strip(content), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}
