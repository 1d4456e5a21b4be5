// Command flowdeck-mcp is flowdeck with its MCP server and client linked
// in. It accepts every flowdeck subcommand; `flowdeck mcp`, `flowdeck
// fleet list` and `flowdeck fleet` (the fleet view, with the cockpit it
// opens on a local project) become it through flowdeck-cli, so the MCP SDK
// is loaded only where it is used.
package main

import (
	"context"
	"io"
	"os"
	"runtime/debug"

	"github.com/flowdeck/flowdeck/cli"
	"github.com/flowdeck/flowdeck/fleet"
	"github.com/flowdeck/flowdeck/fleet/fleetconf"
	"github.com/flowdeck/flowdeck/mcp"
	"github.com/flowdeck/flowdeck/project"
	"github.com/flowdeck/flowdeck/runner"
	"github.com/flowdeck/flowdeck/ui/fleetview"
)

func main() {
	// The run tool re-executes this binary to join a run's cgroups (v1).
	runner.Reexec()
	cli.MCPServer = func(ctx context.Context, p *project.Project, o cli.MCPOptions, in io.Reader, out, warn io.Writer) error {
		return mcp.Serve(ctx, p, mcp.Options{Actor: o.Actor, Person: o.Person, Via: o.Via, Version: version()}, in, out)
	}
	cli.FleetList = func(ctx context.Context, entries []fleetconf.Entry, offers []fleetconf.Offer, config string) (cli.FleetListing, error) {
		return fleet.List(ctx, entries, offers, config, fleet.Options{Version: version()}), nil
	}
	cli.FleetView = func(entries []fleetconf.Entry, actor string) error {
		return fleetview.Run(entries, fleetview.Options{Actor: actor, Fleet: fleet.Options{Version: version(), Actor: actor}})
	}
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, nil))
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "dev"
}
