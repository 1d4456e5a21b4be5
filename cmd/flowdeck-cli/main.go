// Command flowdeck-cli is flowdeck's whole command line. `flowdeck` (the
// lean binary agents call) answers `flow status` itself and becomes this
// one for every other subcommand; flowdeck-cockpit and flowdeck-mcp are it
// with the cockpit and the MCP server linked in.
package main

import (
	"os"

	"github.com/flowdeck/flowdeck/cli"
	"github.com/flowdeck/flowdeck/runner"
)

func main() {
	// When flowdeck re-executes itself to join a run's cgroups before the
	// command starts (cgroup v1), this never returns.
	runner.Reexec()
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, nil))
}
