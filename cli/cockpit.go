package cli

import (
	"fmt"
	"os"

	"github.com/charmbracelet/x/term"

	"flowdeck/ui"
)

// cockpit is `flowdeck` without a subcommand: the Bubble Tea cockpit on this
// project. It needs a terminal on both ends; piped, it says so instead of
// painting escape sequences into a file.
func (e *env) cockpit() error {
	in, inOK := e.stdin.(*os.File)
	out, outOK := e.stdout.(*os.File)
	if !inOK || !outOK || !term.IsTerminal(in.Fd()) || !term.IsTerminal(out.Fd()) {
		return usageErr("the cockpit needs a terminal; for scripts use the subcommands (flowdeck help)")
	}
	st, err := e.store()
	if err != nil {
		return err
	}
	actor := e.actor
	if actor == "" {
		actor = os.Getenv("FLOWDECK_ACTOR")
	}
	if err := ui.Run(st, ui.Options{Actor: actor}); err != nil {
		return internalErr(fmt.Errorf("cockpit: %w", err))
	}
	return nil
}
