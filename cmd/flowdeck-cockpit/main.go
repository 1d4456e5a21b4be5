// Command flowdeck-cockpit is flowdeck with its Bubble Tea cockpit linked
// in. It accepts every flowdeck subcommand; flowdeck-cli (which the lean
// `flowdeck` becomes) starts it for the cockpit and the demo.
package main

import (
	"os"

	"github.com/flowdeck/flowdeck/cli"
	"github.com/flowdeck/flowdeck/project"
	"github.com/flowdeck/flowdeck/runner"
	"github.com/flowdeck/flowdeck/ui"
)

func main() {
	runner.Reexec()
	open := func(p *project.Project) error { return ui.Run(p, ui.Options{}) }
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, open))
}
