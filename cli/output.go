package cli

import (
	"bytes"
	"encoding/json"
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
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return internalErr(err)
	}
	if _, err := e.rawOut.Write(termtext.JSON(b.Bytes())); err != nil {
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

// describeEvent is the one-line human text for an event.
func describeEvent(ev model.Event) string {
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
	}
	return string(ev.Type)
}

// printStatus writes the human view of a session.
func printStatus(w io.Writer, s *model.Session) {
	if s == nil {
		fmt.Fprintln(w, "No active session.")
		fmt.Fprintf(w, "next: %s\n", model.NextCommand(nil))
		return
	}
	fmt.Fprintf(w, "Session %s\n", s.ID)
	fmt.Fprintf(w, "  goal:     %s\n", s.Goal)
	fmt.Fprintf(w, "  status:   %s, plan %s\n", s.Status, s.Approval)
	if s.Plan != nil {
		fmt.Fprintf(w, "  progress: %d/%d features completed\n", s.Plan.CompletedCount(), s.Plan.Required())
		if a := s.Execution.ActiveFeature; a != "" {
			// every active feature with its agent: "a (agent w1), b"
			fmt.Fprintf(w, "  active:   %s\n", model.ClaimsText(s))
		}
		fmt.Fprintln(w, "\nFeatures")
		for i := range s.Plan.Features {
			f := &s.Plan.Features[i]
			st := model.StateOf(s, f)
			line := fmt.Sprintf("  %s %-24s %-16s", st.Glyph(), f.ID, st)
			if deps := append(append([]string{}, f.DependsOn...), f.BlockedBy...); len(deps) > 0 {
				line += " ← " + strings.Join(deps, ", ")
			}
			if ev := model.LatestEvidence(f); ev != nil {
				line += fmt.Sprintf("  [%s %s]", ev.Source, ev.Status)
			}
			if f.Status == model.FeatureInProgress && f.Agent != "" {
				line += "  @" + f.Agent
			}
			if f.IsInterrupted() && f.Interrupted.Summary != "" {
				line += "  (" + f.Interrupted.Summary + ")"
			}
			fmt.Fprintln(w, strings.TrimRight(line, " "))
		}
	}
	if v := s.Execution.LastValidation; v != nil {
		fmt.Fprintf(w, "\nLast validation: %s %s %s (%s) — %s", v.Feature, v.Scope, v.Status, v.Source, v.Command)
		if v.Summary != "" {
			fmt.Fprintf(w, ": %s", v.Summary)
		}
		fmt.Fprintln(w)
	}
	if r := s.Execution.LastReview; r != nil {
		what := r.Feature
		if r.Final {
			what = "final"
		}
		fmt.Fprintf(w, "Last review:     %s %s by %s\n", what, r.Decision, r.Actor)
	}
	fmt.Fprintf(w, "\nnext: %s\n", model.NextCommand(s))
	if steps := model.NextSteps(s); len(steps) > 1 {
		for _, st := range steps {
			fmt.Fprintf(w, "  %s: %s\n", stepWho(st), st.Command)
		}
	}
}

// stepWho names whose step it is: "a (agent w1)", "a", or "claim".
func stepWho(st model.NextStep) string {
	switch {
	case st.Feature == "":
		return "claim"
	case st.Agent != "":
		return st.Feature + " (agent " + st.Agent + ")"
	}
	return st.Feature
}
