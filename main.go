// Command flowdeck is a terminal cockpit for supervising AI coding agents.
// This binary is the lean front that agents call many times a minute: it
// answers `flowdeck flow status` and `flowdeck hud` from the status digest
// stored with the session and becomes flowdeck-cli (same process) for
// everything else; flowdeck-cli starts flowdeck-cockpit for the cockpit and
// becomes flowdeck-mcp for the MCP server.
package main

import (
	"os"

	"github.com/flowdeck/flowdeck/internal/lean"
)

func main() {
	os.Exit(lean.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
