package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/flowdeck/flowdeck/fleet/fleetconf"
	"github.com/flowdeck/flowdeck/internal/lean"
)

// FleetListing is what FleetList answers: printed with Text, or as --json.
type FleetListing interface{ Text(w io.Writer) }

// FleetList connects to every project of the fleet, waits for each one's
// first answer or failure (each bounded by a call timeout) and returns the
// listing, with offers (the known projects not in the fleet) and the
// config file's path in it. flowdeck-mcp, which links the MCP client, sets
// it; in flowdeck-cli it is nil and `fleet list` becomes flowdeck-mcp (see
// MCPServer).
var FleetList func(ctx context.Context, entries []fleetconf.Entry, offers []fleetconf.Offer, config string) (FleetListing, error)

// FleetView opens the fleet view (the cockpit over every project of the
// fleet) on entries and returns when the person quits it; actor names the
// person (--actor, $FLOWDECK_ACTOR; "" the config's, else human).
// flowdeck-mcp, which links the fleet and the cockpit, sets it; in
// flowdeck-cli it is nil and `flowdeck fleet` becomes flowdeck-mcp.
var FleetView func(entries []fleetconf.Entry, actor string) error

func (e *env) fleetCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "fleet",
		Short: "Many projects at once: local directories and remote ones over ssh, kubectl or docker",
		Long: `A fleet is the projects you supervise together: local directories, and
remote ones reached by any command whose stdio speaks flowdeck mcp
(ssh HOST flowdeck --dir DIR mcp, kubectl exec -i POD -- flowdeck --dir DIR mcp,
docker exec -i BOX flowdeck mcp). The list is kept in
$XDG_CONFIG_HOME/flowdeck/fleet.toml. See docs/fleet.md.

Without a subcommand, flowdeck fleet opens the fleet view: a row per
project and one queue of everything that waits for you across the fleet,
answered there or in each project's cockpit (enter).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return e.fleetView() },
	}
	c.AddCommand(e.fleetAddCmd(), e.fleetRmCmd(), e.fleetListCmd())
	return c
}

// fleetConfig is the fleet's config file and its projects.
func (e *env) fleetConfig() (string, []fleetconf.Entry, error) {
	path := fleetconf.DefaultPath()
	if path == "" {
		return "", nil, e.fail(fmt.Errorf("no config directory: set $XDG_CONFIG_HOME or $HOME"))
	}
	entries, err := fleetconf.Load(path)
	if err != nil {
		return "", nil, e.fail(err)
	}
	return path, entries, nil
}

func (e *env) fleetAddCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "add NAME DIR | add NAME -- COMMAND...",
		Short: "Add a local project, or a remote one reached by a transport command",
		Long: `Add a project to the fleet under NAME (letters, digits, '.', '_', '-').

  flowdeck fleet add app ~/src/app
  flowdeck fleet add build -- ssh build flowdeck --dir /srv/app mcp
  flowdeck fleet add pod -- kubectl exec -i pod-0 -- flowdeck --dir /app mcp

A local DIR is made absolute; the project it is in (the nearest directory
upward with .git or .flow) is added. A transport COMMAND must end with
flowdeck's mcp subcommand: the fleet runs it with --person --via ORIGIN
appended, and drops mcp to attach the project's cockpit. The command is
yours and runs as you; what the remote flowdeck sends back is untrusted.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ent := fleetconf.Entry{Name: args[0]}
			switch dash := cmd.ArgsLenAtDash(); {
			case dash == 1:
				ent.Command = args[1:]
				if err := fleetconf.CheckCommand(ent.Command); err != nil {
					return usageErr("%v", err)
				}
			case dash < 0 && len(args) == 2:
				dir, err := fleetconf.LocalDir(args[1])
				if err != nil {
					return usageErr("%v", err)
				}
				ent.Dir = dir
			default:
				return usageErr("fleet add NAME DIR, or fleet add NAME -- COMMAND... (the transport command after --)")
			}
			path, entries, err := e.fleetConfig()
			if err != nil {
				return err
			}
			entries, err = fleetconf.Add(entries, ent)
			if err != nil {
				return usageErr("%v", err)
			}
			if err := fleetconf.Save(path, entries); err != nil {
				return e.fail(err)
			}
			if e.json {
				return e.writeJSON(map[string]any{"ok": true, "added": ent, "config": path})
			}
			fmt.Fprintf(e.stdout, "added %s: %s (%s)\n", ent.Name, ent.Where(), path)
			return nil
		},
	}
}

func (e *env) fleetRmCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "rm NAME",
		Short: "Remove a project from the fleet (the project itself is not touched)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, entries, err := e.fleetConfig()
			if err != nil {
				return err
			}
			entries, err = fleetconf.Remove(entries, args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			if err := fleetconf.Save(path, entries); err != nil {
				return e.fail(err)
			}
			if e.json {
				return e.writeJSON(map[string]any{"ok": true, "removed": args[0], "config": path})
			}
			fmt.Fprintf(e.stdout, "removed %s (%s)\n", args[0], path)
			return nil
		},
	}
}

func (e *env) fleetListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "Each project's goal, progress, agents, what waits for you, and whether it answers",
		Long: `Ask every project of the fleet for its state and print, per project: where
it is, whether it answers (reachable, unreachable or incompatible, with the
reason), its goal, status and progress, the features being worked on with
their agents, what waits for you (with the ids an answer names) and its
last activity. Then the projects flowdeck init ran in on this machine that
are not in the fleet, with the command that adds each.

It waits for every project's first answer or failure, each bounded by 10
seconds. The exit code is 0 even when projects are unreachable: their rows
say so. See docs/fleet.md for the --json object.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if FleetList == nil {
				return e.execFleetList()
			}
			path, entries, err := e.fleetConfig()
			if err != nil {
				return err
			}
			known, err := fleetconf.Known(fleetconf.DefaultKnownPath())
			if err != nil {
				fmt.Fprintf(e.stderr, "flowdeck: warning: the known projects: %v\n", err)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			l, err := FleetList(ctx, entries, fleetconf.Offers(known, entries), path)
			if err != nil {
				return e.fail(err)
			}
			if e.json {
				return e.writeJSON(l)
			}
			l.Text(e.stdout)
			return nil
		},
	}
}

// fleetView is `flowdeck fleet`: the fleet view, on a terminal.
func (e *env) fleetView() error {
	in, inOK := e.stdin.(*os.File)
	out, outOK := e.rawOut.(*os.File)
	if !inOK || !outOK || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return usageErr("the fleet view needs a terminal; for scripts use flowdeck fleet list --json")
	}
	if FleetView == nil {
		return e.execFleetView() // which reads the config
	}
	_, entries, err := e.fleetConfig()
	if err != nil {
		return err
	}
	if err := FleetView(entries, e.cockpitActor()); err != nil {
		return internalErr(fmt.Errorf("fleet view: %w", err))
	}
	return nil
}

// execFleetView becomes flowdeck-mcp for `flowdeck fleet`: the fleet's
// MCP client is linked there, and flowdeck-cockpit stays lean for its own
// first frame.
func (e *env) execFleetView() error {
	if e.actor != "" {
		return execFleet("--actor", e.actor)
	}
	return execFleet()
}

// execFleetList becomes flowdeck-mcp for `fleet list`: the MCP client is
// linked there.
func (e *env) execFleetList() error {
	if e.json {
		return execFleet("list", "--json")
	}
	return execFleet("list")
}

// execFleet becomes `flowdeck-mcp fleet ARGS...`; it returns only when it
// cannot.
func execFleet(args ...string) error {
	bin, err := lean.FindCompanion(MCPBinary)
	if err != nil {
		return internalErr(err)
	}
	argv := append([]string{bin, "fleet"}, args...)
	return internalErr(fmt.Errorf("exec %s: %w", strings.Join(argv, " "), syscall.Exec(bin, argv, os.Environ())))
}

// rememberProject records root among the projects `fleet list` offers;
// a failure only warns: init's work is done.
func (e *env) rememberProject(root string) {
	if err := fleetconf.Remember(fleetconf.DefaultKnownPath(), root); err != nil {
		fmt.Fprintf(e.stderr, "flowdeck: warning: not recorded among the projects flowdeck fleet list offers: %v\n", err)
	}
}
