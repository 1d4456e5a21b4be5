package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
)

// decisionsCmd is `flowdeck decisions`: what waits for a person.
func (e *env) decisionsCmd() *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "decisions [--all]",
		Short: "List the pending decisions of flow runs (--all: resolved ones too)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			res, err := p.Decisions(all)
			if err != nil {
				return e.fail(err)
			}
			return e.show(res, func() {
				if len(res.Decisions) == 0 {
					fmt.Fprintln(e.stdout, "No pending decisions.")
				}
				for _, d := range res.Decisions {
					printDecision(e, d)
				}
			})
		},
	}
	c.Flags().BoolVar(&all, "all", false, "include resolved, expired and cancelled decisions")
	return c
}

func printDecision(e *env, d model.Decision) {
	fmt.Fprintf(e.stdout, "%s  %s  %s (flow run %s, step %s)\n", d.ID, d.Status, d.Kind, d.FlowRun, d.Step)
	for _, l := range strings.Split(strings.TrimRight(d.Prompt, "\n"), "\n") {
		fmt.Fprintf(e.stdout, "    %s\n", l)
	}
	for i, o := range d.Options {
		fmt.Fprintf(e.stdout, "  %d. %-10s %s\n", i+1, o.ID, o.Description)
	}
	for _, f := range d.Fields {
		t := f.Type
		if t == "enum" {
			t = "one of " + strings.Join(f.Enum, ", ")
		}
		fmt.Fprintf(e.stdout, "  --var %s=…  (%s) %s\n", f.Name, t, f.Description)
	}
	if d.Deadline != nil && d.Status == model.DecisionPending {
		fb := "the flow fails"
		if d.Fallback != "" {
			fb = "it resolves to " + d.Fallback
		}
		fmt.Fprintf(e.stdout, "  times out at %s: then %s\n", d.Deadline.Format("15:04:05"), fb)
	}
	if r := d.Resolution; r != nil {
		fmt.Fprintf(e.stdout, "  resolved %q by %s at %s\n", r.Option, model.ByText(r.Actor, r.Via), r.At.Format("2006-01-02 15:04:05"))
	}
}

// decideCmd is `flowdeck decide ID OPTION`: resolve a decision from the
// shell, through the same function the cockpit's keys call.
func (e *env) decideCmd() *cobra.Command {
	var note string
	var vars []string
	c := &cobra.Command{
		Use:   "decide ID [OPTION|ANSWER] [--note TEXT] [--var k=v]...",
		Short: "Resolve a pending decision (once): pick an option, answer freely, or fill a form with --var",
		Long: `Resolve a pending decision. OPTION is one of the decision's options; a
decision without options takes any answer; a form (a step's variables for a
person) takes --var NAME=VALUE for each field, or a JSON object as the
answer, or, with a single field, the answer itself. A decision is resolved
once: a second resolution is refused (exit 1). The flow run continues in the
process that waits for it, else with flowdeck flows resume RUN.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageErr("decide takes a decision id and an option or answer; see 'flowdeck help decide'")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			a := flows.Answer{Note: note, Vars: map[string]string{}}
			if len(args) == 2 {
				a.Option = args[1]
			}
			for _, kv := range vars {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return usageErr("--var %q: use NAME=VALUE", kv)
				}
				a.Vars[k] = v
			}
			p, err := e.project()
			if err != nil {
				return err
			}
			res, err := p.Resolve(args[0], a)
			if err != nil {
				return e.fail(err)
			}
			return e.show(res, func() {
				r, ok := res.(*ops.DecisionResult)
				if !ok {
					return // refused: show prints why
				}
				d := r.Decision
				fmt.Fprintf(e.stdout, "✓ decision %s resolved: %s\n", d.ID, d.Resolution.Option)
				switch {
				case d.FlowRun == "":
				case r.RunContinues:
					fmt.Fprintf(e.stdout, "flow run %s continues\n", d.FlowRun)
				default:
					fmt.Fprintf(e.stdout, "next: flowdeck flows resume %s\n", d.FlowRun)
				}
			})
		},
	}
	c.Flags().StringVar(&note, "note", "", "a note with the answer (findings, reasons, feature ids to narrow to)")
	c.Flags().StringArrayVar(&vars, "var", nil, "a form field: NAME=VALUE (repeatable)")
	return c
}

// flowsCommands are the literate-flow commands registered on the root.
func (e *env) flowsCommands() []*cobra.Command {
	return []*cobra.Command{e.flowsCmd(), e.decisionsCmd(), e.decideCmd()}
}
