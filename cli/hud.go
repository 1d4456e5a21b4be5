package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/flowdeck/flowdeck/internal/lean"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/termtext"
)

// Hooks that flowdeck's commands can run as (--hook).
const hookClaude = "claude"

func (e *env) hudCmd() *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "hud [--format text|markdown|json] [--hook claude]",
		Short: "A compact status block for an agent's context: at most 12 lines and 1 KiB",
		Long: `Print the goal, the session's status, the active feature with its
verification commands, what waits (a review, a blocked feature and why), the
last validation and the next command: at most 12 lines and 1 KiB, whatever
the goal or the commands look like. The first line says the session's
sequence number and the time, so that of several HUDs the current one is
plain. Agent hooks put it in front of each prompt (see flowdeck init).

--hook claude is Claude Code's UserPromptSubmit hook: it reads the hook's
JSON on stdin (the project is found from its cwd) and prints the HUD as
hookSpecificOutput.additionalContext. It reads only: a project without a
database gets "no active session", and nothing is created.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if e.json {
				format = "json"
			}
			if err := e.readHookInput(); err != nil {
				return err
			}
			if e.hook != "" {
				format = "text"
			}
			p, err := e.project()
			if err != nil {
				return err
			}
			h, err := p.HUDFor(ops.HUDSelf{Agent: e.self.Agent, Feature: e.self.Feature})
			if err != nil {
				return e.fail(err)
			}
			h.At = e.now()
			out, err := h.Render(format)
			if err != nil {
				return usageErr("--format: %v", err)
			}
			if e.hook == hookClaude {
				return e.writeJSON(ops.HookClaude(out))
			}
			fmt.Fprint(e.stdout, out)
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "text", "text, markdown or json")
	c.Flags().StringVar(&e.hook, "hook", "", "run as this agent's hook: claude (UserPromptSubmit; prints hookSpecificOutput JSON)")
	return c
}

// readHookInput reads the JSON that Claude Code gives a hook on stdin and
// starts the project search at its cwd (unless --dir says where). Input
// that is not JSON is ignored: the hook still works from the working
// directory.
func (e *env) readHookInput() error {
	switch e.hook {
	case "":
		return nil
	case hookClaude:
	default:
		return usageErr("--hook %q: claude", e.hook)
	}
	if cwd := lean.HookCwd(e.stdin); cwd != "" && e.dir == "" {
		e.startDir = cwd
	}
	return nil
}

func (e *env) agentsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "agents",
		Short: "Each agent's last lifecycle event (e.g. idle, from its hook or plugin) and when",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			res := map[string]any{"ok": true, "agents": []any{}}
			evs, err := p.AgentEvents() // none without a database: nothing is created
			if err != nil {
				return e.fail(err)
			}
			if e.json {
				if len(evs) > 0 {
					res["agents"] = evs
				}
				return e.writeJSON(res)
			}
			if len(evs) == 0 {
				fmt.Fprintln(e.stdout, "No agent has reported yet.")
			}
			now := e.now()
			for _, ev := range evs {
				// Each field on its own: an escape left open in one (a name
				// stored before names were checked) must not swallow the rest.
				fmt.Fprintf(e.stdout, "%-16s %-10s %s (%s ago)\n", termtext.Line(ev.Agent), termtext.Line(ev.Event),
					ev.At.Local().Format("2006-01-02 15:04:05"), now.Sub(ev.At).Round(time.Second))
			}
			return nil
		},
	}
}
