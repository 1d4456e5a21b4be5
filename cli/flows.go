package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/project"
)

// flowsCmd is `flowdeck flows ...`: literate flows from the shell.
func (e *env) flowsCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "flows",
		Short: "Literate flows: list, show, check, run, resume and cancel them",
		Long: `Literate flows are markdown files (literate: true) whose steps send prompts
to agents or to you, run commands through flowdeck's runner, collect
variables, route on conditions and stop at decisions. The built-in flows
plan, run, auto and review drive a session; files in .flow/flows/ add flows
or replace built-ins of the same name.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	c.AddCommand(e.flowsListCmd(), e.flowsShowCmd(), e.flowsCheckCmd(), e.flowsRunCmd(), e.flowsRunsCmd(),
		e.flowsResumeCmd(), e.flowsPauseCmd(), e.flowsCancelCmd(), e.flowsVerifyCmd())
	return c
}

func (e *env) flowsListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the built-in flows and the project's (.flow/flows/*.md)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := e.projectDir()
			if err != nil {
				return err
			}
			list := flows.List(root)
			if e.json {
				return e.writeJSON(map[string]any{"ok": true, "flows": list})
			}
			for _, f := range list {
				where := f.Source
				if f.Overrides {
					where += " (replaces the built-in)"
				}
				fmt.Fprintf(e.stdout, "%-10s %s\n           %s\n", f.Name, f.Description, where)
				if f.Error != "" {
					fmt.Fprintf(e.stdout, "           ✗ %s\n", f.Error)
				}
			}
			return nil
		},
	}
}

func (e *env) flowsShowCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "show NAME|FILE",
		Short: "Print a flow's source (a built-in's embedded markdown, to read or copy)",
		Args:  exactArgs(1, "a flow name or file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := e.projectDir()
			if err != nil {
				return err
			}
			src, where, err := flows.Read(root, args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			if e.json {
				return e.writeJSON(map[string]any{"ok": true, "name": args[0], "source": where, "text": string(src)})
			}
			_, err = e.stdout.Write(src)
			return err
		},
	}
}

func (e *env) flowsCheckCmd() *cobra.Command {
	var strict bool
	c := &cobra.Command{
		Use:   "check FILE|NAME...",
		Short: "Check flows without running them: every problem with file and line",
		Args:  minArgs(1, "a flow file or name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := e.projectDir()
			if err != nil {
				return err
			}
			var problems, warnings []flowfile.Error
			type checked struct {
				Flow   string `json:"flow"`
				Source string `json:"source"`
				Steps  int    `json:"steps"`
				OK     bool   `json:"ok"`
			}
			var results []checked
			for _, ref := range args {
				src, where, err := flows.Read(root, ref)
				if err != nil {
					problems = append(problems, flowfile.Error{File: ref, Msg: err.Error()})
					results = append(results, checked{Flow: ref, Source: ref})
					continue
				}
				f, err := flowfile.Parse(where, src)
				if err == nil && strict {
					err = f.Strict()
				} else {
					warnings = append(warnings, f.Warnings...)
				}
				var errs flowfile.Errors
				if errors.As(err, &errs) {
					problems = append(problems, errs...)
				}
				results = append(results, checked{Flow: f.Name, Source: where, Steps: len(f.Steps), OK: err == nil})
			}
			if e.json {
				e.writeJSON(map[string]any{"ok": len(problems) == 0, "flows": results, "errors": problems, "warnings": warnings})
			} else {
				for _, p := range problems {
					fmt.Fprintln(e.stderr, p.Error())
				}
				for _, w := range warnings {
					fmt.Fprintln(e.stderr, "warning: "+w.Error())
				}
				for _, r := range results {
					if r.OK {
						fmt.Fprintf(e.stdout, "✓ %s: %d steps\n", r.Source, r.Steps)
					}
				}
			}
			if len(problems) > 0 {
				return silent(ExitRejected)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&strict, "strict", false, "treat warnings (an unknown next target) as errors")
	return c
}

// engine builds the flow engine for this project.
func (e *env) engine(p *project.Project, wait bool) (*flows.Engine, error) {
	eng, err := p.Engine()
	if ops.IsArgError(err) {
		return nil, usageErr("%v", err) // the config's redaction rules
	} else if err != nil {
		return nil, e.fail(err)
	}
	eng.Wait = wait
	eng.Log, eng.Live = e.stdout, e.stdout
	if e.json {
		// stdout carries exactly one JSON object: progress goes to stderr,
		// command output only to the store (and the cockpit).
		eng.Log, eng.Live = e.stderr, nil
	}
	return eng, nil
}

// flowsContext is cancelled by the first ^C or SIGTERM. The run keeps its
// state: it shows as interrupted and resumes with flows resume.
func flowsContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(sigs); cancel() }
}

func (e *env) flowsRunCmd() *cobra.Command {
	var vars []string
	var noWait, strict bool
	var maxSteps, parallel int
	c := &cobra.Command{
		Use:   "run NAME|FILE [ARGS...] [--var k=v]... [--no-wait] [--parallel N]",
		Short: "Run a flow headless; human steps and decisions wait for flowdeck decide or the cockpit",
		Long: `Run a flow without the cockpit. Agent steps go to the agents configured in
config.toml ([agents.ROLE]; a step that collects variables and names no role
goes to [agents.default], else the only configured agent); steps for a person and decisions wait until they
are answered in a cockpit or with 'flowdeck decide' (with --no-wait the run
is left waiting and this command returns). ARGS fill the flow's args and
$ARGUMENTS; --var sets variables (values are JSON when they parse, else text).

'flows run auto --parallel N' (N > 1) keeps up to N worker agents busy (at
most the plan's max_parallel): each claims a feature in critical-path order
and runs the run flow on it as its own flow run; see 'flowdeck flows show run'.
Run it again after a crash: it resumes the unfinished runs first. With
--no-wait it returns once every slot's run waits for a person.

Exit codes: 0 completed (or waiting with --no-wait), 1 the flow failed, was
refused (a stop: refused step) or was cancelled, 2 usage or a flow file with errors, 3 storage.
'auto' exits the same sequential and with --parallel N (see the README).`,
		Args: minArgs(1, "a flow name or file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			initial, err := parseVars(vars)
			if err != nil {
				return err
			}
			if parallel > 1 {
				return e.runCrew(args, initial, parallel, maxSteps, strict, noWait)
			}
			root, err := e.projectDir()
			if err != nil {
				return err
			}
			f, source, err := flows.Load(root, args[0])
			if err == nil && strict {
				err = f.Strict()
			} else if err == nil {
				for _, w := range f.Warnings {
					fmt.Fprintln(e.stderr, "warning: "+w.Error())
				}
			}
			if err != nil {
				var errs flowfile.Errors
				if errors.As(err, &errs) {
					for _, p := range errs {
						fmt.Fprintln(e.stderr, p.Error())
					}
					return silent(ExitUsage)
				}
				return usageErr("%v", err)
			}
			p, err := e.project()
			if err != nil {
				return err
			}
			eng, err := e.engine(p, !noWait)
			if err != nil {
				return err
			}
			eng.MaxSteps, eng.Strict = maxSteps, strict
			ctx, stop := flowsContext()
			defer stop()
			run, err := eng.Start(ctx, f, source, args[1:], initial)
			return e.flowRunResult(p, run, err)
		},
	}
	fl := c.Flags()
	fl.StringArrayVar(&vars, "var", nil, "set a variable: k=v (repeatable; v is JSON when it parses)")
	fl.BoolVar(&noWait, "no-wait", false, "return when the run waits for a decision instead of waiting")
	fl.BoolVar(&strict, "strict", false, "refuse what literate-commands tolerates: an unknown next target, a mode=store block printing no JSON")
	fl.IntVar(&parallel, "parallel", 1, "auto only: keep up to N worker agents busy on the features the DAG allows (1 = the sequential auto loop)")
	fl.IntVar(&maxSteps, "max-steps", 0, "loop guard: the most steps the run may execute (default the flow's max_steps, 1000)")
	return c
}

// parseVars reads k=v pairs; v is JSON when it parses, else the text.
func parseVars(kvs []string) (map[string]any, error) {
	out := map[string]any{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usageErr("--var %q: use NAME=VALUE", kv)
		}
		out[k] = jsonOrText(v)
	}
	return out, nil
}

func jsonOrText(v string) any {
	var x any
	if err := json.Unmarshal([]byte(v), &x); err == nil {
		return x
	}
	return v
}

// flowRunResult prints a run's end (or where it waits) and maps it to the
// exit code.
func (e *env) flowRunResult(p *project.Project, run *model.FlowRun, err error) error {
	waiting := errors.Is(err, flows.ErrWaiting)
	if errors.Is(err, flows.ErrPaused) {
		if e.json {
			return e.writeJSON(map[string]any{"ok": true, "run": flowRunView(run), "vars": run.Vars})
		}
		fmt.Fprintf(e.stdout, "‖ flow run %s paused; continue with flowdeck flows resume %s\n", run.ID, run.ID)
		return nil
	}
	if err != nil && !waiting {
		if run == nil || !errors.Is(err, context.Canceled) {
			return internalErr(err)
		}
		fmt.Fprintf(e.stderr, "flowdeck: stopped; flow run %s keeps its state: flowdeck flows resume %s\n", run.ID, run.ID)
		return silent(ExitRejected)
	}
	var pending *model.Decision
	if run.Decision != "" {
		pending, _ = p.Decision(run.Decision)
	}
	if e.json {
		out := map[string]any{"ok": run.Status == model.FlowCompleted || waiting, "run": flowRunView(run), "vars": run.Vars}
		if pending != nil {
			out["decision"] = pending
		}
		if err := e.writeJSON(out); err != nil {
			return err
		}
	} else {
		switch {
		case waiting && pending != nil:
			fmt.Fprintf(e.stdout, "… flow run %s waits for decision %s; answer with flowdeck decide %s …, then flowdeck flows resume %s\n", run.ID, pending.ID, pending.ID, run.ID)
		case run.Status == model.FlowCompleted:
			fmt.Fprintln(e.stdout, "variables:")
			printVars(e.stdout, run.Vars, 200)
		}
	}
	if run.Status == model.FlowFailed || run.Status == model.FlowRefused || run.Status == model.FlowCancelled {
		return silent(ExitRejected)
	}
	return nil
}

// flowRunView is a run without its flow text.
func flowRunView(r *model.FlowRun) model.FlowRun {
	v := *r
	v.Text = ""
	return v
}

// printVars writes a run's variables, sorted, one line of at most width
// runes each; a value that is not text is shown as JSON.
func printVars(w io.Writer, vars map[string]any, width int) {
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		v, ok := vars[k].(string)
		if !ok {
			b, _ := json.Marshal(vars[k])
			v = string(b)
		}
		fmt.Fprintf(w, "  %s = %s\n", k, clipLine(v, width))
	}
}

// clipLine is clip for text that may hold newlines: they become ⏎.
func clipLine(s string, n int) string { return clip(strings.ReplaceAll(s, "\n", "⏎"), n) }

func (e *env) flowsRunsCmd() *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "runs [ID]",
		Short: "List flow runs (interrupted ones are recognised here), or show one with its steps and events",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			if err := p.SettleFlows(); err != nil {
				return internalErr(err)
			}
			if len(args) == 1 {
				return e.flowsShowRun(p, args[0])
			}
			runs, err := p.FlowRuns()
			if err != nil {
				return internalErr(err)
			}
			if !all {
				kept := runs[:0]
				for i, r := range runs {
					if !model.FlowEnded(r.Status) || i < 10 {
						kept = append(kept, r)
					}
				}
				runs = kept
			}
			if e.json {
				return e.writeJSON(map[string]any{"ok": true, "runs": runs})
			}
			if len(runs) == 0 {
				fmt.Fprintln(e.stdout, "No flow runs yet. Start one: flowdeck flows run NAME")
			}
			for _, r := range runs {
				line := fmt.Sprintf("%-14s %-11s %-8s step %-16s %3d steps  %s", r.ID, r.Status, r.Flow, r.Step, r.StepsRun, r.Created.Format("2006-01-02 15:04"))
				if r.Decision != "" {
					line += "  waits for " + r.Decision
				}
				if r.Error != "" {
					line += "  ✗ " + clipLine(r.Error, 80)
				}
				fmt.Fprintln(e.stdout, line)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&all, "all", false, "every run (default: unfinished runs and the last 10)")
	return c
}

// flowRunErr is the exit for an error about a run named on the command
// line: an unknown id is the caller's mistake, anything else is ours.
func flowRunErr(err error) error {
	var none model.ErrNoFlowRun
	if errors.As(err, &none) {
		return usageErr("%v (flowdeck flows runs lists them)", err)
	}
	return internalErr(err)
}

func (e *env) flowsShowRun(p *project.Project, id string) error {
	run, err := p.FlowRun(id)
	if err != nil {
		return flowRunErr(err)
	}
	events, err := p.FlowEvents(id, 1, 0)
	if err != nil {
		return internalErr(err)
	}
	if e.json {
		return e.writeJSON(map[string]any{"ok": true, "run": flowRunView(run), "events": events, "executing": p.FlowExecuting(id)})
	}
	fmt.Fprintf(e.stdout, "Flow run %s (%s, %s)\n  status: %s at step %s\n", run.ID, run.Flow, run.Source, run.Status, run.Step)
	if run.Decision != "" {
		fmt.Fprintf(e.stdout, "  waits for decision %s\n", run.Decision)
	}
	if run.Error != "" {
		fmt.Fprintf(e.stdout, "  error: %s\n", run.Error)
	}
	fmt.Fprintln(e.stdout, "Steps")
	for _, h := range run.History {
		fmt.Fprintf(e.stdout, "  %-20s %-9s %s\n", h.Step, h.Outcome, strings.Join(h.Runs, " "))
		for _, n := range h.Notes {
			fmt.Fprintf(e.stdout, "  %-20s note: %s\n", "", n)
		}
	}
	fmt.Fprintln(e.stdout, "Variables")
	printVars(e.stdout, run.Vars, 120)
	return nil
}

func (e *env) flowsResumeCmd() *cobra.Command {
	var noWait bool
	c := &cobra.Command{
		Use:   "resume ID [--no-wait]",
		Short: "Continue a flow run that waits, was interrupted or lost its process",
		Args:  exactArgs(1, "a flow run id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			eng, err := e.engine(p, !noWait)
			if err != nil {
				return err
			}
			ctx, stop := flowsContext()
			defer stop()
			run, err := eng.Resume(ctx, args[0])
			if errors.As(err, new(model.ErrNoFlowRun)) {
				return flowRunErr(err)
			}
			return e.flowRunResult(p, run, err)
		},
	}
	c.Flags().BoolVar(&noWait, "no-wait", false, "return when the run waits for a decision")
	return c
}

func (e *env) flowsPauseCmd() *cobra.Command {
	return e.flowRunActionCmd("pause", "Ask the process executing a flow run to stop after its current step",
		"paused", "‖ flow run %s pauses after its current step\n", (*project.Project).PauseFlowRun)
}

func (e *env) flowsCancelCmd() *cobra.Command {
	return e.flowRunActionCmd("cancel", "Cancel a flow run (its running command is stopped; its pending decision is withdrawn)",
		"cancelled", "■ flow run %s cancelled\n", (*project.Project).CancelFlowRun)
}

// flowRunActionCmd is `flows VERB ID`: an action that any process may take
// on a run that has not ended. done is the line printed after it, with the
// run's id; an ended run is refused as one that cannot be <participle>.
func (e *env) flowRunActionCmd(verb, short, participle, done string, act func(p *project.Project, id string) (*model.FlowRun, error)) *cobra.Command {
	return &cobra.Command{
		Use:   verb + " ID",
		Short: short,
		Args:  exactArgs(1, "a flow run id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			run, err := act(p, args[0])
			if errors.As(err, new(model.ErrFlowRunEnded)) {
				return e.show(ops.Refused(&model.Error{Code: model.CodeFlowRunEnded, Message: err.Error(),
					Recovery: model.Recovery{Hint: "Only a running, waiting or interrupted run can be " + participle + ".", NextCommand: "flowdeck flows runs"}}), nil)
			}
			if err != nil {
				return flowRunErr(err)
			}
			if e.json {
				return e.writeJSON(map[string]any{"ok": true, "run": flowRunView(run)})
			}
			fmt.Fprintf(e.stdout, done, run.ID)
			return nil
		},
	}
}

func (e *env) flowsVerifyCmd() *cobra.Command {
	var scope, isolation string
	c := &cobra.Command{
		Use:   "verify [FEATURE] [--scope targeted|broad]",
		Short: "Run the active feature's verification commands (broad: the whole plan's) through the runner, as observed evidence",
		Long: `Run each verification command of the active feature (with --scope broad,
every verification command of the plan, once each) as 'sh -c COMMAND' in
the project root through the runner, recording observed validation evidence
on the feature. The built-in flows call it between the worker and the
review. Exit 0 when every command passed, 1 otherwise.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if scope != string(model.ScopeTargeted) && scope != string(model.ScopeBroad) {
				return usageErr("--scope must be targeted or broad, not %q", scope)
			}
			p, err := e.project()
			if err != nil {
				return err
			}
			feature := ""
			if len(args) == 1 {
				feature = args[0]
			}
			ctx, stop := flowsContext()
			defer stop()
			v, err := p.VerifyFeature(ctx, feature, model.Scope(scope), isolation == "none")
			if ops.IsArgError(err) {
				return usageErr("%v", err) // the config's redaction rules
			} else if err != nil {
				return internalErr(err)
			}
			if e.json {
				if err := e.writeJSON(v); err != nil {
					return err
				}
			} else {
				for _, c := range v.Commands {
					fmt.Fprintln(e.stdout, c.Headline)
					if c.Detail != "" {
						fmt.Fprintln(e.stdout, strings.TrimRight(c.Detail, "\n"))
					}
				}
				if v.Error != nil {
					printRefusal(e.stderr, v.Error)
				}
			}
			if !v.OK || !v.Passed {
				return silent(ExitRejected)
			}
			return nil
		},
	}
	c.Flags().StringVar(&scope, "scope", "targeted", "targeted (the feature's commands) or broad (every feature's)")
	c.Flags().StringVar(&isolation, "isolation", "auto", "auto (cgroups where usable) or none")
	return c
}
