// Command flowdeck is a terminal cockpit for supervising AI coding agents.
// This binary is the lean one agents call many times a minute; the cockpit
// itself is in flowdeck-cockpit, which it starts when asked.
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
