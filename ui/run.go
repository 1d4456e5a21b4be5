package ui

import (
	"errors"
	"fmt"
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"

	"github.com/flowdeck/flowdeck/project"
)

// Run opens the cockpit on a project and returns when the person quits.
// Bubble Tea restores the terminal on exit, on a panic (in Update, View or
// a command) and on SIGTERM; Run adds nothing that could leave it dirty.
// p's Warn must not be the terminal: the cockpit shows the config's and the
// patterns' problems itself.
func Run(p *project.Project, opts Options) error {
	if os.Getenv("NO_COLOR") != "" {
		opts.NoColor = true
	}
	var popts []tea.ProgramOption
	if opts.NoColor {
		// Any non-empty NO_COLOR counts (no-color.org), not only "1"/"true".
		popts = append(popts, tea.WithColorProfile(colorprofile.Ascii))
	}
	m := New(p, opts)
	prog := tea.NewProgram(m, popts...)
	restore := func() {}
	if term.IsTerminal(os.Stdout.Fd()) {
		restore = keepTitle(os.Stdout)
	}
	_, err := prog.Run()
	restore()
	// However the program ended, nothing the cockpit started may outlive it.
	m.shutdown(quitWait)
	switch {
	case err == nil, errors.Is(err, tea.ErrInterrupted):
		return nil
	case errors.Is(err, tea.ErrProgramPanic):
		return fmt.Errorf("the cockpit crashed (the terminal was restored): %w", err)
	}
	return err
}

// keepTitle saves the terminal's window title (XTWINOPS 22) and returns what
// puts it back after the cockpit set its own: an empty title first, for
// terminals without the title stack, then the saved one (23).
func keepTitle(w io.Writer) (restore func()) {
	fmt.Fprint(w, "\x1b[22;0t")
	return func() { fmt.Fprint(w, "\x1b]2;\x07\x1b[23;0t") }
}
