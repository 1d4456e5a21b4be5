package cli

import (
	"github.com/spf13/cobra"

	"github.com/flowdeck/flowdeck/model"
)

// interruptCommands are "flow run interrupt" and "flow run resume": a crashed
// or stuck worker's feature is marked interrupted (still claimed) until the
// person decides, and resumed when it is retried.
func (e *env) interruptCommands() []*cobra.Command {
	var summary string
	interrupt := &cobra.Command{
		Use:   "interrupt ID [--summary TEXT]",
		Short: "Mark the active feature interrupted (its worker crashed or gave up); it stays claimed",
		Args:  exactArgs(1, "the active feature's id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.do(model.RunInterrupt{Feature: args[0], Summary: summary})
		},
	}
	interrupt.Flags().StringVar(&summary, "summary", "", "why the worker stopped")
	resume := &cobra.Command{
		Use:   "resume ID",
		Short: "Clear the interrupted mark of the active feature (its work is retried)",
		Args:  exactArgs(1, "the interrupted feature's id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.do(model.RunResume{Feature: args[0]})
		},
	}
	return []*cobra.Command{interrupt, resume}
}

// interruptLine is the human line of a feature_interrupted or
// feature_resumed event.
func interruptLine(ev model.Event) string {
	if ev.Type == model.EventFeatureResumed {
		return "▶ resumed " + ev.Feature
	}
	if ev.Summary != "" {
		return "! interrupted " + ev.Feature + ": " + ev.Summary
	}
	return "! interrupted " + ev.Feature
}
