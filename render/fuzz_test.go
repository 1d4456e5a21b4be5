package render_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	hostiletext "github.com/flowdeck/flowdeck/internal/hostile"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/render"
)

// FuzzDocsText puts arbitrary text everywhere a session holds user text and
// renders the docs and diagrams: whatever the text, they hold no control
// character, escape or bidi override, stay valid UTF-8, and keep their
// tables and code blocks whole. Actions the model refuses (empty or
// oversized text) are skipped, as they never reach a doc.
func FuzzDocsText(f *testing.F) {
	f.Add(hostiletext.Corpus)
	f.Add("a | b \\| c\n```\n\x1b]0;t\x07<b>\u202e\u009b2J\xc3")
	f.Fuzz(func(t *testing.T, text string) {
		now := time.Date(2026, 3, 9, 9, 0, 0, 0, time.UTC)
		var s *model.Session
		for _, a := range []model.Action{
			model.PlanStart{ID: "fuzz", Goal: text},
			model.PlanApply{Plan: model.Plan{Summary: text, Requirements: []string{text}, Features: []model.Feature{
				{ID: "root", Title: text, Summary: text, Files: []string{text}, Verification: []string{text}},
				{ID: "leaf", Title: text, DependsOn: []string{"root"}},
			}}},
			model.PlanApprove{}, model.RunStart{},
			model.Validate{Feature: "root", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: text, Summary: text},
			model.ReviewFeature{Feature: "root", Decision: model.ReviewNeedsFix, Findings: []string{text}},
			model.AddNote{Text: text},
		} {
			now = now.Add(time.Minute)
			if next, _, err := model.Execute(s, a, model.Context{Now: now, Actor: text}); err == nil {
				s = next
			}
		}
		if s == nil {
			return
		}
		docs := map[string]string{"index.md": render.RenderIndex(s)}
		for _, id := range model.DocFeatureIDs(s) {
			docs[id+".md"] = render.RenderFeature(s, s.Plan.Feature(id))
		}
		for _, format := range []string{"ascii", "mermaid", "dot"} {
			d, err := render.Diagram(s, format)
			if err != nil {
				t.Fatalf("diagram %s: %v", format, err)
			}
			docs["diagram."+format] = d
		}
		for name, doc := range docs {
			checkNoControls(t, name, doc)
			if !utf8.ValidString(doc) || strings.ContainsAny(doc, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069") {
				t.Fatalf("%s: invalid UTF-8 or a bidi control: %q", name, doc)
			}
			if strings.HasSuffix(name, ".md") {
				checkTables(t, name, doc)
				checkBlocks(t, name, doc)
			}
		}
	})
}
