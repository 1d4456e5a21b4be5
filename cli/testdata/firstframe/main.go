// Command firstframe is the yardstick of BenchmarkFirstFrame: a minimal
// Bubble Tea v2 program that renders one Glamour document, so it links the
// same Charm libraries as the cockpit and pays the same unavoidable package
// init (chroma's registries, through glamour). Built by the benchmark only.
package main

import (
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2"
)

const doc = "# firstframe\n\nA *minimal* Bubble Tea program with one Glamour document.\n\n```go\nfunc main() {}\n```\n"

type model struct{ body string }

func (m model) Init() tea.Cmd { return nil }

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tea.KeyPressMsg); ok {
		return m, tea.Quit
	}
	return m, nil
}

func (m model) View() tea.View {
	v := tea.NewView(m.body)
	v.AltScreen = true // as the cockpit
	return v
}

func main() {
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle("dark"), glamour.WithWordWrap(80))
	if err == nil {
		var body string
		if body, err = r.Render(doc); err == nil {
			_, err = tea.NewProgram(model{body}).Run()
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
