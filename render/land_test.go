package render_test

import (
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/render"
)

// The session's docs and flow status say whether a completed worktree
// session has landed, and name the step that lands it.
func TestDocsSayWhetherTheSessionLanded(t *testing.T) {
	const base, merged, landed = "1111111111111111111111111111111111111111", "3333333333333333333333333333333333333333",
		"4444444444444444444444444444444444444444"
	r := newDocsRig(t)
	r.do(model.PlanStart{ID: "wt", Goal: "One in a worktree"},
		model.PlanApply{Plan: model.Plan{Summary: "p", MaxParallel: 2, Features: []model.Feature{{ID: "a", Title: "A"}}}},
		model.PlanApprove{Git: &model.GitSetup{Integration: "flowdeck/wt", Base: "main", BaseCommit: base}},
		model.RunStart{Feature: "a"},
		model.Validate{Feature: "a", Status: model.ValidationPassed, Scope: model.ScopeBroad, Command: "go test ./..."},
		reviewed("a", model.ReviewApproved),
		model.ReviewFinal{Decision: model.ReviewApproved},
		model.RunComplete{Feature: "a", Outcome: model.OutcomeCompleted, MergeCommit: merged})
	want := func(parts ...string) {
		t.Helper()
		var status strings.Builder
		render.Status(&status, r.s)
		for name, text := range map[string]string{"index": render.RenderIndex(r.s), "status": status.String()} {
			for _, p := range parts {
				if !strings.Contains(text, p) {
					t.Errorf("%s lacks %q:\n%s", name, p, text)
				}
			}
		}
	}
	want("completed, not landed", "flowdeck flow land")
	r.as("ana").do(model.Land{Branch: "main", Commit: landed})
	want("completed, landed into main", "flowdeck flow plan start GOAL")
	if idx := render.RenderIndex(r.s); !strings.Contains(idx, "landed flowdeck/wt into main at 444444444444") {
		t.Errorf("the history lacks the landing:\n%s", idx)
	}
}
