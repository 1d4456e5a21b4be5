package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/termtext"
)

// one is a stored text on the one line status gives it: a newline in a
// goal, a command, a summary or an actor must not forge a line of its own
// (a fake "next:" or a fake completed row). Escapes show as what they were.
func one(s string) string { return termtext.With(s, termtext.Options{OneLine: true, Visible: true}) }

// Status writes the human view of a session: what `flowdeck flow status`
// prints (nil: no active session).
func Status(w io.Writer, s *model.Session) { StatusAt(w, s, nil) }

// StatusAt is Status with the trees the active features' code is at now
// (feature id to tree; none known: nil), so that evidence of other code
// shows as stale.
func StatusAt(w io.Writer, s *model.Session, trees map[string]string) {
	if s == nil {
		fmt.Fprintln(w, "No active session.")
		fmt.Fprintf(w, "next: %s\n", model.NextCommand(nil))
		return
	}
	fmt.Fprintf(w, "Session %s\n", s.ID)
	fmt.Fprintf(w, "  goal:     %s\n", one(s.Goal))
	fmt.Fprintf(w, "  status:   %s, plan %s\n", model.StatusText(s), s.Approval)
	if s.Plan != nil {
		fmt.Fprintf(w, "  progress: %d/%d features completed\n", s.Plan.CompletedCount(), s.Plan.Required())
		if a := s.Execution.ActiveFeature; a != "" {
			// every active feature with its agent: "a (agent w1), b"
			fmt.Fprintf(w, "  active:   %s\n", one(model.ClaimsText(s)))
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
				sum, stale := "", false
				if f.Status == model.FeatureInProgress {
					cs := model.Checks(f, trees[f.ID])
					sum, stale = model.ChecksSummary(cs), model.HasStale(cs)
				}
				if stale {
					line += "  [" + sum + "]"
				} else if sum != "" {
					line += fmt.Sprintf("  [%s %s; %s]", ev.Source, ev.Status, sum)
				} else {
					line += fmt.Sprintf("  [%s %s]", ev.Source, ev.Status)
				}
			}
			if f.Status == model.FeatureInProgress && f.Agent != "" {
				line += "  @" + f.Agent
			}
			if f.IsInterrupted() && f.Interrupted.Summary != "" {
				line += "  (" + one(f.Interrupted.Summary) + ")"
			}
			fmt.Fprintln(w, strings.TrimRight(line, " "))
		}
	}
	if v := s.Execution.LastValidation; v != nil {
		fmt.Fprintf(w, "\nLast validation: %s %s %s (%s) — %s", v.Feature, one(string(v.Scope)), one(string(v.Status)), one(string(v.Source)), one(v.Command))
		if v.Summary != "" {
			fmt.Fprintf(w, ": %s", one(v.Summary))
		}
		fmt.Fprintln(w)
	}
	if r := s.Execution.LastReview; r != nil {
		what := r.Feature
		if r.Final {
			what = "final"
		}
		fmt.Fprintf(w, "Last review:     %s %s by %s\n", what, one(string(r.Decision)), one(r.Actor))
	}
	fmt.Fprintf(w, "\nnext: %s\n", one(model.NextCommand(s)))
	if steps := model.NextSteps(s); len(steps) > 1 {
		for _, st := range steps {
			fmt.Fprintf(w, "  %s: %s\n", one(stepWho(st)), one(st.Command))
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
