package render

import (
	"strconv"
	"strings"

	"github.com/flowdeck/flowdeck/model"
)

// RenderFeature renders docs/features/<id>.md for feature f of session s.
func RenderFeature(s *model.Session, f *model.Feature) string {
	var dependents map[string][]string
	if s != nil {
		dependents = model.DependentsIndex(s.Plan)
	}
	return renderFeature(s, f, dependents)
}

// RenderFeatures renders the docs of the features ids of s, and only
// those (none for none: an action that touched no feature must not cost a
// render of the whole plan), sharing one dependency index, and hands each
// to emit; the first error from emit stops it.
func RenderFeatures(s *model.Session, ids []string, emit func(id, doc string) error) error {
	if s == nil || s.Plan == nil || len(ids) == 0 {
		return nil
	}
	dependents := model.DependentsIndex(s.Plan)
	for _, id := range ids {
		f := s.Plan.Feature(id)
		if f == nil || !model.ValidFeatureID(id) {
			continue
		}
		if err := emit(id, renderFeature(s, f, dependents)); err != nil {
			return err
		}
	}
	return nil
}

func renderFeature(s *model.Session, f *model.Feature, dependents map[string][]string) string {
	var b strings.Builder
	line := lineWriter(&b)
	line(docsGeneratedNote)
	line()
	if s == nil || f == nil {
		line("# Unknown feature")
		return b.String()
	}
	writeFeatureHeader(&b, s, f)

	line()
	line("## Summary")
	line()
	writeParagraph(&b, f.Summary, "No summary.")

	line()
	line("## Files")
	line()
	if len(f.Files) == 0 {
		line("None listed.")
	}
	for _, p := range f.Files {
		line("- ", codeSpan(p))
	}

	line()
	line("## Verification")
	line()
	if len(f.Verification) == 0 {
		line("None listed.")
	} else {
		b.WriteString(codeBlock("sh", f.Verification))
	}

	writeFeatureDependencies(&b, s, f)
	writeFeatureDownstream(&b, s, dependents[f.ID])
	writeFeatureValidations(&b, f)

	line()
	line("## Reviews")
	line()
	if len(f.Reviews) == 0 {
		line("None yet.")
	}
	for _, r := range f.Reviews {
		line("- **", mdText(string(r.Decision)), "** ", recorded(r.Seq, r.At, r.Actor))
		writeFindings(&b, r.Findings, "  ")
	}

	line()
	line("## History")
	line()
	var items []model.HistoryItem
	for _, h := range s.Execution.History {
		if h.Feature == f.ID {
			items = append(items, h)
		}
	}
	writeHistory(&b, items, 0, f.ID, "")

	writeFeatureOutcome(&b, f)
	return b.String()
}

// writeFeatureHeader writes the title and the feature's key facts.
func writeFeatureHeader(b *strings.Builder, s *model.Session, f *model.Feature) {
	line := lineWriter(b)
	line("# ", mdHeading(f.Title))
	line()
	line("- **Feature:** ", codeSpan(f.ID))
	line("- **Session:** [", mdText(s.ID), "](../index.md): ", mdText(model.FirstLine(cleanText(s.Goal, false), 120)))
	state := string(model.StateOf(s, f))
	if string(f.Status) != state {
		state += " (status " + mdText(string(f.Status)) + ")"
	}
	active := s.Execution.ActiveFeature == f.ID
	if active {
		state += ", the active feature"
	}
	line("- **State:** ", state)
	if active {
		line("- **Next command:** ", codeSpan(model.NextCommand(s)))
	}
	if f.Status == model.FeatureInProgress && f.Agent != "" {
		line("- **Agent:** ", codeSpan(f.Agent))
	}
	if f.IsInterrupted() {
		why := "no reason given"
		if f.Interrupted.Summary != "" {
			why = mdText(model.FirstLine(cleanText(f.Interrupted.Summary, false), 200))
		}
		line("- **Interrupted:** seq ", strconv.FormatUint(f.Interrupted.Seq, 10), ": ", why)
	}
	if f.Status == model.FeatureInProgress && !active {
		// Another agent's feature: its own next step, not the session's.
		for _, st := range model.NextSteps(s) {
			if st.Feature == f.ID {
				line("- **Next command:** ", codeSpan(st.Command))
			}
		}
	}
	if f.Status == model.FeatureInProgress && f.StartedSeq > 0 {
		line("- **Started:** seq ", strconv.FormatUint(f.StartedSeq, 10))
	}
	writeFeatureGit(line, s, f) // render/featuregit.go
}

func writeFeatureDependencies(b *strings.Builder, s *model.Session, f *model.Feature) {
	line := lineWriter(b)
	plan := s.Plan
	line()
	line("## Dependencies")
	line()
	if len(f.DependsOn)+len(f.BlockedBy) == 0 {
		line("None: this feature can start as soon as the plan is approved.")
		return
	}
	line("| Feature | Kind | State |")
	line("|---|---|---|")
	for _, group := range []struct {
		kind string
		ids  []string
	}{{"depends on", f.DependsOn}, {"blocked by", f.BlockedBy}} {
		for _, id := range group.ids {
			line("| ", featureLink(id, ""), " | ", group.kind, " | ", stateCell(s, plan.Feature(id)), " |")
		}
	}
	if waiting := model.Waiting(plan, *f); len(waiting) > 0 && f.Status == model.FeaturePending {
		line()
		line("Waiting for ", linkList(waiting, ""), ".")
	}
}

// writeFeatureDownstream lists only the direct dependents down: the
// transitive set is quadratic in a long chain, and each dependent's own doc
// lists the next step.
func writeFeatureDownstream(b *strings.Builder, s *model.Session, down []string) {
	line := lineWriter(b)
	line()
	line("## Downstream")
	line()
	if len(down) == 0 {
		line("Nothing waits for this feature.")
		return
	}
	line("These features wait for this one directly; resetting it resets them and everything downstream of them too.")
	line()
	for _, id := range down {
		line("- ", featureLink(id, ""), ": ", stateCell(s, s.Plan.Feature(id)))
	}
}

func writeFeatureValidations(b *strings.Builder, f *model.Feature) {
	line := lineWriter(b)
	line()
	line("## Validation")
	line()
	if len(f.Validations) == 0 {
		line("None yet.")
		return
	}
	line("| Seq | At | Scope | Status | Source | Command | Summary | Run |")
	line("|---|---|---|---|---|---|---|---|")
	stale, pinned := false, false
	for _, ev := range f.Validations {
		seq := strconv.FormatUint(ev.Seq, 10)
		if f.Status == model.FeatureInProgress && ev.Seq <= f.StartedSeq {
			seq += " (old)"
			stale = true
		}
		summary := orNone(mdCell(ev.Summary))
		if ev.Tree != "" {
			summary += " (tree `" + model.ShortCommit(ev.Tree) + "`)"
			pinned = true
		}
		line("| ", seq, " | ", fmtTime(ev.At), " | ", mdCell(string(ev.Scope)), " | ", mdCell(string(ev.Status)),
			" | ", mdCell(string(ev.Source)), " | ", codeCell(ev.Command), " | ", summary,
			" | ", orNoneCode(ev.RunID), " |")
	}
	if stale {
		line()
		line("Evidence marked *old* was recorded before the feature last started (seq ",
			strconv.FormatUint(f.StartedSeq, 10), ") and no longer counts.")
	}
	if pinned && f.Status == model.FeatureInProgress {
		line()
		line("Evidence counts only for the tree the code was at when it ran: these docs are written when the session ",
			"changes, not when the code does, so `flowdeck flow status` (or `flowdeck diff`) says whether it still holds.")
	}
}

func writeFeatureOutcome(b *strings.Builder, f *model.Feature) {
	line := lineWriter(b)
	line()
	line("## Outcome")
	line()
	if f.Outcome == "" {
		line("None yet.")
		return
	}
	line("**", mdText(string(f.Outcome)), "**")
	if strings.TrimSpace(f.OutcomeNote) != "" {
		line()
		writeParagraph(b, f.OutcomeNote, "")
	}
}
