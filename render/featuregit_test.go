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

// With several agents at once, the diagrams and the session index name the
// agent of every active feature (and none of a finished one).
func TestDiagramsAndIndexNameTheAgents(t *testing.T) {
	s := worktreeSession(t).s
	ascii, mermaid, dot := render.DiagramASCII(s), render.DiagramMermaid(s), render.DiagramDOT(s)
	for name, text := range map[string]string{"ascii": ascii, "mermaid": mermaid, "dot": dot} {
		for _, want := range []string{"@w2", "@w3"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s diagram lacks %s:\n%s", name, want, text)
			}
		}
		if strings.Contains(text, "@w1") {
			t.Errorf("%s diagram marks the completed feature's agent:\n%s", name, text)
		}
	}
	if !strings.Contains(ascii, "working @w2") {
		t.Errorf("ascii diagram: the agent does not follow its feature:\n%s", ascii)
	}
	index := render.RenderIndex(s)
	if !strings.Contains(index, "- **Active features:** [`working`](features/working.md) (agent `w2`), [`clash`](features/clash.md) (agent `w3`)") {
		t.Errorf("index does not list both active features with their agents:\n%s", index)
	}
}
