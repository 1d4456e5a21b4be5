package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/render"
	"github.com/flowdeck/flowdeck/termtext"
)

func (e *env) flowCommand() *cobra.Command {
	flow := &cobra.Command{
		Use:   "flow",
		Short: "The /flow-* actions: plan, run, validate, review, reset (use --json for agents)",
		Long: `The /flow-* actions on the active planning session.

Every action is one transaction: it is stored as events in .flow/flowdeck.db
and the docs under .flow/sessions/<id>/docs/ are refreshed.

Exit codes: 0 accepted, 1 rejected by a rule (the error names a code and a
recovery hint), 2 usage error, 3 storage or internal error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	flow.PersistentFlags().BoolVar(&e.full, "full", false, "with --json: the whole stored session (every evidence, review, note and history item) instead of a summary")
	flow.AddCommand(
		e.statusCommand(),
		e.planCommand(),
		e.runCommand(),
		e.validateCommand(),
		e.reviewCommand(),
		e.resetCommand(),
		&cobra.Command{
			Use:   "session ID",
			Short: "Activate a stored session (the active one is archived)",
			Args:  exactArgs(1, "a session id"),
			RunE:  func(cmd *cobra.Command, args []string) error { return e.do(model.ActivateSession{ID: args[0]}) },
		},
		e.historyCommand(),
		&cobra.Command{
			Use:   "note TEXT...",
			Short: "Attach a note to the active session",
			Args:  minArgs(1, "the note's text"),
			RunE: func(cmd *cobra.Command, args []string) error {
				return e.do(model.AddNote{Text: strings.Join(args, " ")})
			},
		},
		e.verifyCommand(),
		e.landCommand(), // cli/land.go
	)
	flow.PersistentFlags().Uint64Var(&e.expectSeq, "expect-seq", 0,
		"the session sequence you decided on (status --json shows it as session.seq): refused with stale_decision if what the action decides changed since")
	return flow
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErr("%s takes %s (got %d arguments); see 'flowdeck help %s'", cmd.CommandPath(), what, len(args), strings.TrimPrefix(cmd.CommandPath(), "flowdeck "))
		}
		return nil
	}
}

func minArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageErr("%s needs %s; see 'flowdeck help %s'", cmd.CommandPath(), what, strings.TrimPrefix(cmd.CommandPath(), "flowdeck "))
		}
		return nil
	}
}

func (e *env) statusCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show the active session, its features and the next command",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			res, err := p.Status(e.full)
			if err != nil {
				return e.fail(err)
			}
			return e.show(res, func() { render.StatusAt(e.stdout, res.State, res.Trees) })
		},
	}
}

func (e *env) planCommand() *cobra.Command {
	plan := &cobra.Command{
		Use:   "plan",
		Short: "Start a session, apply, narrow and approve its plan",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	plan.AddCommand(
		&cobra.Command{
			Use:   "start GOAL...",
			Short: "Start a new planning session with a goal",
			Args:  minArgs(1, "a goal"),
			RunE: func(cmd *cobra.Command, args []string) error {
				return e.do(model.PlanStart{Goal: strings.Join(args, " ")})
			},
		},
		&cobra.Command{
			Use:   "apply FILE|-",
			Short: "Apply a plan (JSON, comments allowed; '-' reads standard input); see docs/plans.md for the schema",
			Args:  exactArgs(1, "a plan file or -"),
			RunE: func(cmd *cobra.Command, args []string) error {
				p, err := e.readPlan(args[0])
				if refusal, ok := model.AsError(err); ok && model.TooLarge(err) {
					return e.show(ops.Refused(refusal), nil) // a rule's refusal, not a usage error
				}
				if err != nil {
					return err
				}
				return e.do(model.PlanApply{Plan: *p})
			},
		},
		e.planEditCommand(),
		&cobra.Command{
			Use:   "select ID...",
			Short: "Narrow the plan to these features (with all their dependencies)",
			Args:  minArgs(1, "at least one feature id"),
			RunE: func(cmd *cobra.Command, args []string) error {
				return e.do(model.PlanSelect{FeatureIDs: args})
			},
		},
		&cobra.Command{
			Use:   "approve",
			Short: "Approve the plan for execution",
			Args:  cobra.NoArgs,
			RunE:  func(cmd *cobra.Command, args []string) error { return e.do(model.PlanApprove{}) },
		},
	)
	return plan
}

// readPlan reads and parses a plan file; errors name the file and line.
func (e *env) readPlan(name string) (*model.Plan, error) {
	var data []byte
	var err error
	in := e.stdin
	if name == "-" {
		name = "standard input"
	} else {
		f, oerr := e.openNamed("read plan", name)
		if oerr != nil {
			return nil, oerr
		}
		defer f.Close()
		in = f
	}
	// One byte past the limit is enough for ParsePlan to refuse it, without
	// reading a hostile 1 GB file into memory.
	data, err = io.ReadAll(io.LimitReader(in, model.MaxPlanBytes+1))
	if err != nil {
		return nil, usageErr("read plan: %v", err)
	}
	p, err := model.ParsePlan(data)
	if model.TooLarge(err) {
		return nil, err
	}
	if err != nil {
		return nil, usageErr("plan %s: %v", name, err)
	}
	return p, nil
}

func (e *env) runCommand() *cobra.Command {
	run := &cobra.Command{
		Use:   "run",
		Short: "Start and complete features",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	var outcome, summary string
	complete := &cobra.Command{
		Use:   "complete ID --outcome completed|replan_required|blocked|needs_input [--summary TEXT]",
		Short: "End the active feature with a worker outcome (completion checks the gates)",
		Args:  exactArgs(1, "the active feature's id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if outcome == "" {
				return usageErr("--outcome is required (completed, replan_required, blocked or needs_input)")
			}
			return e.do(model.RunComplete{Feature: args[0], Outcome: model.Outcome(outcome), Summary: summary})
		},
	}
	complete.Flags().StringVar(&outcome, "outcome", "", "completed, replan_required, blocked or needs_input")
	complete.Flags().StringVar(&summary, "summary", "", "what the worker did or why it stopped")
	var agent string
	start := &cobra.Command{
		Use:   "start [ID]",
		Short: "Start (claim) a feature (default: the first runnable one: plan order, or critical-path order when max_parallel > 1)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			return e.do(model.RunStart{Feature: id, Agent: agent})
		},
	}
	start.Flags().StringVar(&agent, "agent", "", "the agent that claims the feature (shown with it while it is active)")
	run.AddCommand(append([]*cobra.Command{start, complete}, e.interruptCommands()...)...)
	return run
}

func (e *env) validateCommand() *cobra.Command {
	var status, scope, command, summary string
	c := &cobra.Command{
		Use:   "validate ID --status passed|failed|partial --scope targeted|broad --command CMD [--summary TEXT]",
		Short: "Record validation evidence (reported) on the active feature",
		Args:  exactArgs(1, "the active feature's id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			for flag, v := range map[string]string{"--status": status, "--scope": scope, "--command": command} {
				if v == "" {
					return usageErr("%s is required", flag)
				}
			}
			return e.do(model.Validate{Feature: args[0], Status: model.ValidationStatus(status), Scope: model.Scope(scope),
				Command: command, Summary: summary, Source: model.SourceReported})
		},
	}
	c.Flags().StringVar(&status, "status", "", "passed, failed or partial")
	c.Flags().StringVar(&scope, "scope", "", "targeted (this feature) or broad (the whole project)")
	c.Flags().StringVar(&command, "command", "", "the command that was run")
	c.Flags().StringVar(&summary, "summary", "", "what it showed")
	return c
}

func (e *env) reviewCommand() *cobra.Command {
	var decision string
	var findings []string
	var final bool
	c := &cobra.Command{
		Use:   "review (ID | --final) --decision approved|needs_fix|blocked [--finding TEXT]...",
		Short: "Record a reviewer decision on the active feature, or the session's final review",
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case final && len(args) > 0:
				return usageErr("review --final takes no feature id")
			case !final && len(args) != 1:
				return usageErr("review takes a feature id, or --final for the session's final review")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if decision == "" {
				return usageErr("--decision is required (approved, needs_fix or blocked)")
			}
			d := model.ReviewDecision(decision)
			if final {
				return e.do(model.ReviewFinal{Decision: d, Findings: findings})
			}
			return e.do(model.ReviewFeature{Feature: args[0], Decision: d, Findings: findings})
		},
	}
	c.Flags().StringVar(&decision, "decision", "", "approved, needs_fix or blocked")
	c.Flags().StringArrayVar(&findings, "finding", nil, "a finding (repeatable)")
	c.Flags().BoolVar(&final, "final", false, "the session's final review")
	return c
}

func (e *env) resetCommand() *cobra.Command {
	reset := &cobra.Command{
		Use:   "reset",
		Short: "Reset a feature and everything downstream, or archive the session",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	reset.AddCommand(
		&cobra.Command{
			Use:   "feature ID",
			Short: "Reset a feature and every feature that depends on it to pending",
			Args:  exactArgs(1, "a feature id"),
			RunE:  func(cmd *cobra.Command, args []string) error { return e.do(model.ResetFeature{Feature: args[0]}) },
		},
		&cobra.Command{
			Use:   "session",
			Short: "Archive the active session (kept; 'flow session ID' re-activates it); its features' worktrees are removed, their branches kept",
			Args:  cobra.NoArgs,
			RunE:  func(cmd *cobra.Command, args []string) error { return e.do(model.ResetSession{}) },
		},
	)
	return reset
}

func (e *env) historyCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "history [SESSION_ID]",
		Short: "List stored sessions, or one session's history",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			res, err := p.History(id)
			if err != nil {
				return e.fail(err)
			}
			return e.show(res, func() {
				switch res := res.(type) {
				case *ops.SessionsResult:
					printSessions(e.stdout, res.Sessions)
				case *ops.HistoryResult:
					for _, ev := range res.Events {
						fmt.Fprintf(e.stdout, "%5d  %s  %-10s %s\n", ev.Seq, ev.At.Format("2006-01-02 15:04:05"), termtext.Line(model.ByText(ev.Actor, ev.Via)), describeEvent(ev))
					}
				}
			})
		},
	}
}

func printSessions(w io.Writer, list []model.SessionInfo) {
	if len(list) == 0 {
		fmt.Fprintln(w, "No sessions yet. Start one: flowdeck flow plan start GOAL")
	}
	for _, s := range list {
		mark := " "
		if s.Active {
			mark = "*"
		}
		state := string(s.Status)
		if s.Archived {
			state += ", archived"
		}
		fmt.Fprintf(w, "%s %s  %-10s %d/%d  %s\n", mark, s.ID, state, s.Completed, s.Features, s.Goal)
	}
}

func (e *env) verifyCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Replay every session's event log and compare it with the stored state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			rep, err := p.Verify()
			if err != nil {
				return internalErr(err)
			}
			if e.json {
				if err := e.writeJSON(map[string]any{"ok": len(rep.Problems) == 0, "report": rep}); err != nil {
					return err
				}
			} else {
				for _, p := range rep.Problems {
					fmt.Fprintln(e.stderr, "✗ "+p.String())
				}
				if len(rep.Problems) == 0 {
					fmt.Fprintf(e.stdout, "✓ %d sessions, %d events: replayed state matches the stored state\n", rep.Sessions, rep.Events)
				}
			}
			if len(rep.Problems) > 0 {
				return silent(ExitInternal)
			}
			return nil
		},
	}
}

func (e *env) diagramCommand() *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "diagram [--format ascii|mermaid|dot]",
		Short: "Draw the active plan's dependency graph",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			res, err := p.Diagram(format)
			if ops.IsArgError(err) {
				return usageErr("%v", err)
			} else if err != nil {
				return e.fail(err)
			}
			return e.show(res, func() {
				if d, ok := res.(*ops.DiagramResult); ok {
					fmt.Fprint(e.stdout, d.Diagram)
				}
			})
		},
	}
	c.Flags().StringVar(&format, "format", "ascii", "ascii, mermaid or dot")
	return c
}
