package render_test

import (
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/render"
)

// worktreeSession is a session whose features run in git worktrees: merged
// completed (its merge commit), working in progress (branch and worktree),
// clash refused on a merge conflict (the files, the worktree kept).
func worktreeSession(t *testing.T) *docsRig {
	const (
		base   = "1111111111111111111111111111111111111111"
		head   = "2222222222222222222222222222222222222222"
		merged = "3333333333333333333333333333333333333333"
	)
	r := newDocsRig(t)
	feature := func(id, title string) model.Feature {
		return model.Feature{ID: id, Title: title, Summary: title + ".", Verification: []string{"go test ./..."}}
	}
	r.do(model.PlanStart{ID: "wt", Goal: "Three agents at once"},
		model.PlanApply{Plan: model.Plan{Summary: "parallel", MaxParallel: 3,
			Features: []model.Feature{feature("merged", "Merged"), feature("working", "Working"), feature("clash", "Clash")}}},
		model.PlanApprove{Git: &model.GitSetup{Integration: "flowdeck/wt", Base: "main", BaseCommit: base}})
	r.as("agent").do(model.RunStart{Feature: "merged", Agent: "w1"}, model.RunStart{Feature: "working", Agent: "w2"},
		model.RunStart{Feature: "clash", Agent: "w3"})
	for _, id := range []string{"merged", "clash"} {
		v := observed(id, "run-"+id, "go test ./...", "ok")
		v.Commit = head
		r.do(v)
		r.as("reviewer").do(reviewed(id, model.ReviewApproved))
	}
	r.as("agent").do(model.RunComplete{Feature: "merged", Outcome: model.OutcomeCompleted, Head: head, MergeCommit: merged})
	// A conflict is stored and refused in one action.
	s, _, err := model.Execute(r.s, model.RecordConflict{Feature: "clash", Files: []string{"a.go", "we`ird|name.go"}},
		model.Context{Now: r.now, Actor: "agent"})
	if e, ok := model.AsError(err); !ok || e.Code != model.CodeMergeConflict {
		t.Fatalf("conflict: %v", err)
	}
	r.s = s
	return r
}

// A feature's doc (the cockpit's detail pane) says where its work is in
// git: branch, worktree until completion, merge commit, conflicting files.
func TestFeatureDocGit(t *testing.T) {
	s := worktreeSession(t).s
	for _, id := range []string{"merged", "working", "clash"} {
		assertGolden(t, "feature-git-"+id+".md", render.RenderFeature(s, s.Plan.Feature(id)))
	}
	doc := render.RenderFeature(s, s.Plan.Feature("merged"))
	if strings.Contains(doc, "Worktree") || !strings.Contains(doc, "`333333333333`") {
		t.Fatalf("a merged feature's doc shows its removed worktree or no merge commit:\n%s", doc)
	}
	if doc := render.RenderFeature(s, s.Plan.Feature("clash")); !strings.Contains(doc, "``we`ird|name.go``") || !strings.Contains(doc, "`.flow/worktrees/clash`") {
		t.Fatalf("conflict doc:\n%s", doc)
	}
}
