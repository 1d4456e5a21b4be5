package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/flowdeck/flowdeck/agentinit"
	"github.com/flowdeck/flowdeck/internal/lean"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/project"
)

// agentCommands are the commands that plug coding agents into flowdeck.
func (e *env) agentCommands() []*cobra.Command {
	return []*cobra.Command{e.hudCmd(), e.agentsCmd(), e.mcpCmd(), e.initCmd(), e.agentEventCmd()}
}

// MCPServer serves MCP on stdin/stdout for a project. flowdeck-mcp, the
// binary that links the MCP SDK, sets it; in flowdeck-cli it is nil and
// `flowdeck mcp` becomes flowdeck-mcp, so that agents' many other CLI calls
// do not load the SDK (its package init and a binary twice the size).
var MCPServer func(ctx context.Context, p *project.Project, opts MCPOptions, stdin io.Reader, stdout, stderr io.Writer) error

// MCPOptions are `flowdeck mcp`'s flags, for the server (mcp.Options).
type MCPOptions struct {
	// Actor is --actor (else $FLOWDECK_AGENT; with Person, else
	// $FLOWDECK_ACTOR, else "human"); "" leaves it to the client's name.
	Actor string
	// Person is --person: the caller is the person, as in the shell.
	Person bool
	// Via is --via: where the calls come from, recorded beside the actor.
	Via string
}

// MCPBinary is the companion binary that holds the MCP server.
const MCPBinary = lean.MCPBinary

func (e *env) mcpCmd() *cobra.Command {
	var person bool
	var via string
	c := &cobra.Command{
		Use:   "mcp [--person [--via ORIGIN]]",
		Short: "Serve the flow actions, run and recall to agents over MCP (stdio)",
		Long: `Serve the Model Context Protocol on standard input and output: one tool
per flow action, run (a command through flowdeck's runner, observed
evidence when it names a feature), recall and diagram, the session's
docs as resources, and fleet_glance with its resource for a fleet of
projects. Results are the same JSON objects as --json. The server holds
no lock while idle, so it runs beside the cockpit and CLI calls.

Events are recorded as the tool call's agent_id, else --actor, else the
MCP client's name from the initialize handshake.

--person serves the person (a fleet connects so, e.g. through ssh): the
caller is the person as in the shell, so [session] person_decisions =
"cockpit" does not refuse it, and events are recorded as --actor, else
$FLOWDECK_ACTOR, else human. It grants nothing an agent's shell lacks: a
process flowdeck launched as an agent ($FLOWDECK_AGENT) is refused the
person's decisions still. --via ORIGIN (letters, digits and . _ - @ :,
at most 64) is recorded on the events and decision answers as where they
came from: "by human via fleet@laptop".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if via != "" && !person {
				return usageErr("--via needs --person: it says where the person's calls come from")
			}
			if err := model.CheckVia("--via", via); err != nil {
				return usageErr("%v", err)
			}
			// Only an explicit --actor, or the name flowdeck gave the agent
			// it launched, overrides the client's name: a $FLOWDECK_ACTOR
			// in the person's shell names the person. The person's server
			// names the person, as the shell does.
			actor := e.actor
			if actor == "" {
				actor = e.self.Agent
			}
			if person {
				actor = e.actorName()
			}
			p, err := e.openProject(actor, e.stderr)
			if err != nil {
				return err
			}
			if err := p.Create(); err != nil {
				return e.fail(err)
			}
			opts := MCPOptions{Actor: actor, Person: person, Via: via}
			if MCPServer == nil {
				return e.execMCP(p.Root(), opts)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// Clients show tool results to people, often in a terminal: the
			// JSON-RPC lines carry C1 and bidi characters escaped too.
			if err := MCPServer(ctx, p, opts, e.stdin, jsonSafe{e.rawOut}, e.rawErr); err != nil && ctx.Err() == nil {
				return internalErr(fmt.Errorf("mcp: %w", err))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&person, "person", false, "serve the person (a fleet), not agents: person_decisions = \"cockpit\" does not refuse it; an agent flowdeck launched ($FLOWDECK_AGENT) is refused the person's decisions still")
	c.Flags().StringVar(&via, "via", "", "with --person: where the calls come from, recorded beside the actor (e.g. fleet@laptop)")
	return c
}

// execMCP becomes flowdeck-mcp on the same project with the same flags;
// the client's pipes and signals reach it directly.
func (e *env) execMCP(root string, opts MCPOptions) error {
	bin, err := lean.FindCompanion(MCPBinary)
	if err != nil {
		return internalErr(err)
	}
	args := []string{bin, "--dir", root}
	if opts.Actor != "" {
		args = append(args, "--actor", opts.Actor)
	}
	args = append(args, "mcp")
	if opts.Person {
		args = append(args, "--person")
	}
	if opts.Via != "" {
		args = append(args, "--via", opts.Via)
	}
	return internalErr(syscall.Exec(bin, args, os.Environ()))
}

func (e *env) initCmd() *cobra.Command {
	var agents []string
	var dryRun, workers bool
	c := &cobra.Command{
		Use:   "init [--agent claude|opencode|generic]... [--workers] [--dry-run]",
		Short: "Prepare this repository for coding agents: MCP server, hooks, AGENTS.md",
		Long: `Create .flow/, git-ignore the database, and plug agents in:

  claude    .mcp.json (the MCP server, always loaded), .claude/settings.json
            (a UserPromptSubmit hook that adds flowdeck hud to each prompt's
            context, a Stop hook that records idle) and CLAUDE.md (@AGENTS.md)
  opencode  opencode.json (the MCP server) and .opencode/plugins/flowdeck.ts
            (one fresh HUD in the context; records when the agent goes idle)
  generic   an AGENTS.md section: run builds and tests through flowdeck run
            --feature ID, use the flow tools

--workers (with --agent claude or --agent opencode) also writes a worker
and a reviewer agent that run that client into .flow/config.toml, the
project's config, meant to be committed: the worker may edit and run
commands in its worktree, the reviewer only reads; neither is ever asked
for a permission. An agent the file defines already is left alone.

Without --agent, the agents whose files are already there, plus generic.
Existing files are merged, never clobbered: JSON key by key (values you set
stay), AGENTS.md between flowdeck's markers. A second run changes nothing.
--dry-run prints the changes as a unified diff and writes nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, a := range agents {
				if !slices.Contains(agentinit.Agents, a) {
					return usageErr("--agent %q: claude, opencode or generic", a)
				}
			}
			p, err := e.project()
			if err != nil {
				return err
			}
			// A config file init cannot read is the file's problem, not
			// the command line's: exit 3 without the usage hint.
			root := p.Root()
			opts := agentinit.Options{Agents: agents}
			if workers {
				// One client answers both roles: which one, the flag says.
				for _, a := range agents {
					if a == agentinit.Claude || a == agentinit.OpenCode {
						if opts.Workers != "" {
							return usageErr("--workers: name one of --agent claude and --agent opencode, whose agents it writes")
						}
						opts.Workers = a
					}
				}
				if opts.Workers == "" {
					return usageErr("--workers needs --agent claude or --agent opencode: the client the worker and reviewer run")
				}
			}
			plan, err := agentinit.PrepareWith(root, opts)
			if err != nil {
				return e.fail(err)
			}
			if !dryRun {
				if err := agentinit.Apply(root, plan.Changes); err != nil {
					return e.fail(err)
				}
				e.rememberProject(root) // cli/fleet.go
			}
			return e.printInit(plan, dryRun, initNext(p, dryRun))
		},
	}
	c.Flags().StringArrayVar(&agents, "agent", nil, "claude, opencode or generic (repeatable)")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print the changes as a unified diff; write nothing")
	c.Flags().BoolVar(&workers, "workers", false, "also write worker and reviewer agents for the --agent client into .flow/config.toml")
	return c
}

// runToolWarning is what init says whenever it plugs the MCP server into a
// client: allowing the server allows its run tool, which runs any command.
const runToolWarning = "flowdeck's MCP server has a run tool that executes any command in this repository: " +
	"allowing the server in a client allows that. To allow only the flow_* tools: " +
	`Claude Code: add "mcp__flowdeck__flow_*" to permissions.allow in .claude/settings.json ` +
	`(and "mcp__flowdeck__run" to permissions.deny to forbid run); ` +
	`opencode: set "tools": {"flowdeck_run": false} in opencode.json.`

// notes are init's notes, with the run tool's warning and what is missing
// from PATH when an MCP client is among the agents.
func initNotes(plan *agentinit.Plan) []string {
	notes := append([]string{}, plan.Notes...)
	for _, a := range plan.Agents {
		if a == agentinit.Claude || a == agentinit.OpenCode {
			return append(append(notes, runToolWarning), pathNotes()...)
		}
	}
	return notes
}

// pathNotes say how to fix a flowdeck, flowdeck-cli or flowdeck-mcp that
// the agents cannot start: they run "flowdeck mcp" and the hooks by name,
// and a client shows a server it cannot start as failed, with no hint why.
func pathNotes() []string {
	dir := "DIR"
	if self, err := os.Executable(); err == nil {
		dir = filepath.Dir(self)
	}
	fix := fmt.Sprintf(`add its directory to PATH in your shell profile (export PATH="%s:$PATH"), or copy flowdeck, %s and %s into a directory on PATH`, dir, lean.CLIBinary, MCPBinary)
	bin, err := exec.LookPath("flowdeck")
	if err != nil {
		return []string{"warning: flowdeck is not on PATH, so the agents cannot start its MCP server or hooks (the client shows the server as failed): " + fix}
	}
	var notes []string
	for _, c := range []struct{ name, runs string }{
		{lean.CLIBinary, "flowdeck becomes it for every command but flow status and hud"},
		{MCPBinary, "`flowdeck mcp` runs it"},
	} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(bin), c.name)); err == nil {
			continue
		}
		if _, err := exec.LookPath(c.name); err == nil {
			continue
		}
		notes = append(notes, fmt.Sprintf("warning: %s is neither beside %s nor on PATH, and %s: build it there (go build -o %s/ ./cmd/%s in the flowdeck source) or put it on PATH",
			c.name, bin, c.runs, filepath.Dir(bin), c.name))
	}
	return notes
}

// initNext is what to do after init: write the files (after --dry-run),
// else what the project's session needs next (a plan, with none yet).
func initNext(p *project.Project, dryRun bool) string {
	if dryRun {
		return "flowdeck init"
	}
	s, err := p.Active()
	if err != nil {
		s = nil // a database init cannot read: status reports it; init still hints
	}
	return model.NextCommand(s)
}

// initCommit says which of init's files and .flow/'s to commit: a
// newcomer sees them untracked and cannot tell the docs from the database.
func initCommit(plan *agentinit.Plan) string {
	var files []string
	for _, c := range plan.Changes {
		if !c.Delete && c.Path != ".flow/" {
			files = append(files, c.Path)
		}
	}
	what := ""
	if len(files) > 0 {
		what = strings.Join(files, ", ") + "; later also "
	}
	return "commit: " + what + "each session's docs (.flow/sessions/*/docs/) and your flows (.flow/flows/). " +
		"Not the database, locks or agents' worktrees in .flow/: machine-local, .gitignore keeps them out"
}

func (e *env) printInit(plan *agentinit.Plan, dryRun bool, next string) error {
	if e.json {
		files := []string{}
		for _, c := range plan.Changes {
			files = append(files, c.Path)
		}
		notes := initNotes(plan)
		res := map[string]any{"ok": true, "agents": plan.Agents, "changed": files, "notes": notes, "dry_run": dryRun, "next_command": next}
		if dryRun {
			res["diff"] = agentinit.Diff(plan.Changes)
		}
		return e.writeJSON(res)
	}
	if dryRun {
		fmt.Fprint(e.stdout, agentinit.Diff(plan.Changes))
	} else {
		for _, c := range plan.Changes {
			verb := "created"
			switch {
			case c.Delete:
				verb = "removed"
			case c.Exists:
				verb = "updated"
			}
			fmt.Fprintf(e.stdout, "✓ %s %s\n", verb, c.Path)
		}
		if len(plan.Changes) == 0 {
			fmt.Fprintf(e.stdout, "✓ already set up for %v: nothing to change\n", plan.Agents)
		}
	}
	for _, n := range initNotes(plan) {
		if !strings.HasPrefix(n, "warning: ") { // a warning says so itself
			n = "note: " + n
		}
		fmt.Fprintln(e.stderr, n)
	}
	if !dryRun {
		fmt.Fprintln(e.stdout, initCommit(plan))
	}
	fmt.Fprintf(e.stdout, "next: %s\n", next)
	if !dryRun {
		fmt.Fprintln(e.stdout, "then: flowdeck (no subcommand) opens the cockpit on this repository")
	}
	return nil
}

// validEventName: lowercase letters, digits, '_', '.', '-', starting with a
// letter, at most 32 (checked by hand: a package-level regexp would cost
// every call of flowdeck-cli its compilation).
func validEventName(s string) bool {
	if s == "" || len(s) > 32 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

func (e *env) agentEventCmd() *cobra.Command {
	var agent string
	c := &cobra.Command{
		Use:   "agent-event EVENT [--agent NAME]",
		Short: "Record an agent's lifecycle event (e.g. idle) for the cockpit; used by agent plugins",
		Args:  exactArgs(1, "an event name such as idle"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !validEventName(args[0]) {
				return usageErr("event %q: lowercase letters, digits, '_', '.', '-'; at most 32", args[0])
			}
			if e.self.Agent != "" {
				// An agent flowdeck launched is recorded by its own name: the
				// hook in a shared settings file names only the client kind
				// (--agent claude), the same for every worker.
				agent = e.self.Agent
			}
			if agent == "" {
				agent = e.actorName() // checked as an actor when the project opens
			} else if err := model.CheckAgentName("--agent", agent); err != nil {
				// The name is a row of flowdeck agents and the cockpit's agents
				// pane: held to run start's rule, so it cannot forge or swallow one.
				return usageErr("%v", err)
			}
			if err := e.readHookInput(); err != nil {
				return err
			}
			p, err := e.project()
			if err != nil {
				return err
			}
			ev := model.AgentEvent{Agent: agent, Event: args[0], At: e.now()}
			if err := p.RecordAgentEvent(ev); err != nil {
				return e.fail(err)
			}
			if e.json {
				return e.writeJSON(map[string]any{"ok": true, "agent_event": ev})
			}
			return nil
		},
	}
	c.Flags().StringVar(&agent, "agent", "", "the agent (default: --actor)")
	c.Flags().StringVar(&e.hook, "hook", "", "run as this agent's hook: claude (reads the hook's JSON on stdin; never blocks the agent)")
	return c
}
