// Command flowdeck is a terminal cockpit for supervising AI coding agents.
package main

import (
	"os"

	"flowdeck/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
