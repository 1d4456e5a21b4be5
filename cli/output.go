package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/termtext"
)

// writeJSON prints v for agents. encoding/json escapes C0 controls but not
// C1 or bidi characters, which a terminal showing the JSON would act on:
// termtext.JSON escapes those too.
func (e *env) writeJSON(v any) error {
	b, err := ops.EncodeJSON(v)
	if err != nil {
		return internalErr(err)
	}
	if _, err := e.rawOut.Write(b); err != nil {
		return internalErr(err)
	}
	return nil
}

// jsonSafe writes JSON with C1 and bidi characters escaped (termtext.JSON);
// it reports every byte written, since the escapes only lengthen the text.
type jsonSafe struct{ w io.Writer }

func (j jsonSafe) Write(p []byte) (int, error) {
	if _, err := j.w.Write(termtext.JSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// show prints a result: the object for agents (--json), else human text by
// human; a refusal goes to stderr and becomes exit code 1.
func (e *env) show(res ops.Result, human func()) error {
	refusal := res.Refusal()
	if e.json {
		if err := e.writeJSON(res); err != nil {
			return err
		}
	} else {
		if human != nil {
			human()
		}
		if refusal != nil {
			printRefusal(e.stderr, refusal)
		}
	}
	if refusal != nil {
		return silent(ExitRejected)
	}
	return nil
}

// fail reports an operation's storage or internal error: as a JSON object
// for agents, since they parse stdout, else on stderr.
func (e *env) fail(err error) error {
	if e.json {
		e.writeJSON(ops.Failed(err))
		return silent(ExitInternal)
	}
	return internalErr(err)
}

// showAction prints an action's result: its events, then the next command.
func (e *env) showAction(res *ops.ActionResult) error {
	return e.show(res, func() {
		for _, ev := range res.Raw {
			fmt.Fprintln(e.stdout, describeEvent(ev))
		}
		if res.Message != "" {
			fmt.Fprintln(e.stdout, "· "+res.Message)
		}
		printGit(e.stdout, res.Git) // cli/land.go
		if res.OK {
			fmt.Fprintf(e.stdout, "next: %s\n", res.NextCommand)
		}
	})
}

func printRefusal(w io.Writer, r *model.Error) {
	fmt.Fprintf(w, "✗ refused (%s): %s\n", r.Code, r.Message)
	if r.Recovery.Hint != "" {
		fmt.Fprintf(w, "  hint: %s\n", r.Recovery.Hint)
	}
	if r.Recovery.NextCommand != "" {
		fmt.Fprintf(w, "  next: %s\n", r.Recovery.NextCommand)
	}
}

// describeEvent is the one-line human text for an event: the free text in
// it (a command, a summary, a goal) stays on that line.
func describeEvent(ev model.Event) string { return termtext.Line(eventText(ev)) }

func eventText(ev model.Event) string {
	switch ev.Type {
	case model.EventSessionStarted:
		if ev.Summary != "" {
			return fmt.Sprintf("✓ session %s started: %s (%s)", ev.Session, ev.Goal, ev.Summary)
		}
		return fmt.Sprintf("✓ session %s started: %s", ev.Session, ev.Goal)
	case model.EventPlanApplied:
		ids := make([]string, len(ev.Plan.Features))
		for i, f := range ev.Plan.Features {
			ids[i] = f.ID
		}
		return fmt.Sprintf("✓ plan applied: %d features (%s)", len(ids), strings.Join(ids, ", "))
	case model.EventPlanSelected:
		return "✓ plan narrowed to " + strings.Join(ev.FeatureIDs, ", ")
	case model.EventPlanApproved:
		return "✓ plan approved"
	case model.EventFeatureStarted:
		if ev.Agent != "" {
			return "▶ started " + ev.Feature + " for agent " + ev.Agent
		}
		return "▶ started " + ev.Feature
	case model.EventValidationRecorded:
		v := ev.Evidence
		return fmt.Sprintf("✓ recorded %s %s validation (%s) of %s: %s", v.Scope, v.Status, v.Source, ev.Feature, v.Command)
	case model.EventReviewRecorded:
		if ev.Review.Final {
			return "✓ recorded final review: " + string(ev.Review.Decision)
		}
		return fmt.Sprintf("✓ recorded review of %s: %s", ev.Feature, ev.Review.Decision)
	case model.EventFeatureCompleted:
		return "✓ completed " + ev.Feature
	case model.EventCompletionRejected:
		return fmt.Sprintf("· completion of %s rejected (%s), written to history", ev.Feature, ev.Code)
	case model.EventReplanRequired:
		return fmt.Sprintf("↺ %s requires a replan: the session is back in planning", ev.Feature)
	case model.EventFeatureBlocked:
		return fmt.Sprintf("■ %s is blocked (%s)", ev.Feature, ev.Outcome)
	case model.EventSessionCompleted:
		return "★ session completed"
	case model.EventSessionBlocked:
		return "■ session blocked: " + ev.Summary
	case model.EventFeaturesReset:
		return fmt.Sprintf("↺ reset %d feature(s): %s", len(ev.FeatureIDs), strings.Join(ev.FeatureIDs, ", "))
	case model.EventSessionArchived:
		if ev.Summary != "" {
			return fmt.Sprintf("✓ session %s archived (kept in history): %s", ev.Session, ev.Summary)
		}
		return fmt.Sprintf("✓ session %s archived (kept in history)", ev.Session)
	case model.EventSessionActivated:
		return fmt.Sprintf("✓ session %s is active", ev.Session)
	case model.EventNoteAdded:
		return "✓ note added"
	case model.EventFeatureInterrupted, model.EventFeatureResumed:
		return interruptLine(ev)
	case model.EventSessionLanded:
		return "✓ " + model.Describe(ev)
	}
	return string(ev.Type)
}
