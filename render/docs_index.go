package render

import (
	"strconv"
	"strings"

	"github.com/flowdeck/flowdeck/model"
)

// MaxInlineDiagram is the largest plan whose dependency graph the index
// draws inline.
const MaxInlineDiagram = 200

// RenderIndex renders the session's docs/index.md.
func RenderIndex(s *model.Session) string {
	var b strings.Builder
	line := lineWriter(&b)
	line(docsGeneratedNote)
	line()
	if s == nil {
		line("# No active session")
		return b.String()
	}
	writeIndexHeader(&b, s)
	writeIndexPlan(&b, s)
	writeIndexLastValidation(&b, s.Execution.LastValidation)
	writeIndexLastReview(&b, s.Execution.LastReview)
	writeIndexFinalReviews(&b, s.Execution.FinalReviews)
	writeIndexArtifacts(&b, s.Artifacts)
	writeIndexNotes(&b, s)

	line()
	line("## History")
	line()
	writeHistory(&b, s.Execution.History, s.Execution.HistoryTotal, "", "features/")

	line()
	line("## Timestamps")
	line()
	line("- **Created:** ", fmtTime(s.Timestamps.Created))
	line("- **Updated:** ", fmtTime(s.Timestamps.Updated))
	line("- **Approved:** ", fmtTimePtr(s.Timestamps.Approved))
	line("- **Completed:** ", fmtTimePtr(s.Timestamps.Completed))
	return b.String()
}

// writeIndexHeader writes the goal heading and the session's key facts.
func writeIndexHeader(b *strings.Builder, s *model.Session) {
	line := lineWriter(b)
	line("# ", mdHeading(s.Goal))
	line()
	line("- **Session:** ", codeSpan(s.ID))
	line("- **Status:** ", mdText(model.StatusText(s)))
	if s.Archived {
		line("- **Archived:** yes; ", codeSpan("flowdeck flow session "+s.ID), " re-activates it")
	}
	line("- **Approval:** ", mdText(string(s.Approval)))
	line("- **Next command:** ", codeSpan(model.NextCommand(s)))
	line("- **Progress:** ", ProgressText(s.Plan))
	if claims := model.ActiveClaims(s); len(claims) > 1 || len(claims) == 1 && claims[0].Agent != "" {
		// Several agents at once: every active feature and who works on it.
		parts := make([]string, len(claims))
		for i, c := range claims {
			parts[i] = featureLink(c.Feature, "features/")
			if c.Agent != "" {
				parts[i] += " (agent " + codeSpan(c.Agent) + ")"
			}
		}
		line("- **Active features:** ", strings.Join(parts, ", "))
	} else if id := s.Execution.ActiveFeature; id != "" {
		line("- **Active feature:** ", featureLink(id, "features/"))
	}
	if id := s.Execution.LastFeature; id != "" {
		line("- **Last outcome:** ", featureLink(id, "features/"), " ", mdText(string(s.Execution.LastOutcome)))
	}
}

// writeIndexPlan writes the plan, the features table and the dependency
// graph.
func writeIndexPlan(b *strings.Builder, s *model.Session) {
	line := lineWriter(b)
	p := s.Plan
	line()
	line("## Plan")
	line()
	if p == nil {
		line("No plan yet: `flowdeck flow plan apply FILE` applies one.")
		return
	}
	writeParagraph(b, p.Summary, "No summary.")
	if strings.TrimSpace(p.Overview) != "" {
		line()
		writeParagraph(b, p.Overview, "")
	}
	line()
	line("### Requirements")
	line()
	writeList(b, p.Requirements)
	line()
	line("### Decisions")
	line()
	writeList(b, p.Decisions)
	line()
	line("## Features")
	line()
	line("| Feature | Title | State | Depends on | Latest evidence |")
	line("|---|---|---|---|---|")
	for i := range p.Features {
		f := &p.Features[i]
		line("| ", featureLink(f.ID, "features/"), " | ", mdCell(f.Title), " | ", string(model.StateOf(s, f)),
			" | ", waitsForCell(f, "features/"), " | ", evidenceShort(model.LatestEvidence(f)), " |")
	}
	line()
	line("## Dependency graph")
	line()
	if len(p.Features) > MaxInlineDiagram {
		// A graph this size is unreadable inline and redrawing it cost
		// every action on a large plan most of the index's time.
		line("The plan has ", strconv.Itoa(len(p.Features)), " features, too many to draw here: ",
			"`flowdeck diagram --format mermaid` (or `dot`) draws them all.")
		return
	}
	line("```mermaid")
	b.WriteString(DiagramMermaid(s))
	line("```")
}

func writeIndexLastValidation(b *strings.Builder, ev *model.Evidence) {
	line := lineWriter(b)
	line()
	line("## Last validation")
	line()
	if ev == nil {
		line("None yet.")
		return
	}
	line("- **Feature:** ", featureLink(ev.Feature, "features/"))
	line("- **Result:** ", mdText(string(ev.Status)), ", ", mdText(string(ev.Scope)), " scope, ", sourceText(ev.Source))
	line("- **Command:** ", codeSpan(ev.Command))
	if strings.TrimSpace(ev.Summary) != "" {
		line("- **Summary:** ", mdParagraph(ev.Summary, "  "))
	}
	if ev.RunID != "" {
		line("- **Run:** ", codeSpan(ev.RunID))
	}
	line("- **Recorded:** ", recorded(ev.Seq, ev.At, ev.Actor))
}

func writeIndexLastReview(b *strings.Builder, r *model.Review) {
	line := lineWriter(b)
	line()
	line("## Last review")
	line()
	if r == nil {
		line("None yet.")
		return
	}
	if r.Final {
		line("- **Review:** final review of the session")
	} else {
		line("- **Feature:** ", featureLink(r.Feature, "features/"))
	}
	line("- **Decision:** ", mdText(string(r.Decision)))
	line("- **Recorded:** ", recorded(r.Seq, r.At, r.Actor))
	if len(r.Findings) > 0 {
		line("- **Findings:**")
		writeFindings(b, r.Findings, "  ")
	}
}

func writeIndexFinalReviews(b *strings.Builder, reviews []model.Review) {
	line := lineWriter(b)
	line()
	line("## Final reviews")
	line()
	if len(reviews) == 0 {
		line("None yet.")
		return
	}
	for _, r := range reviews {
		line("- **", mdText(string(r.Decision)), "** ", recorded(r.Seq, r.At, r.Actor))
		writeFindings(b, r.Findings, "  ")
	}
}

// writeIndexArtifacts writes the artifacts section, left out when there
// are none.
func writeIndexArtifacts(b *strings.Builder, artifacts []model.Artifact) {
	if len(artifacts) == 0 {
		return
	}
	line := lineWriter(b)
	line()
	line("## Artifacts")
	line()
	for _, a := range artifacts {
		if strings.TrimSpace(a.Description) == "" {
			line("- ", codeSpan(a.Path))
		} else {
			line("- ", codeSpan(a.Path), ": ", mdParagraph(a.Description, "  "))
		}
	}
}

func writeIndexNotes(b *strings.Builder, s *model.Session) {
	line := lineWriter(b)
	line()
	line("## Notes")
	line()
	if more := s.NotesTotal - len(s.Notes); more > 0 {
		line("*", plural(more, "earlier note is", "earlier notes are"), " only in the event log.*")
		line()
	}
	if len(s.Notes) == 0 {
		line("None yet.")
	}
	for _, n := range s.Notes {
		line("- ", fmtTime(n.At), " **", mdText(n.Actor), "** (seq ", strconv.FormatUint(n.Seq, 10), "): ", mdParagraph(n.Text, "  "))
	}
}
