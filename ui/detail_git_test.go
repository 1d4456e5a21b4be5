package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// The detail pane of a feature that runs in a git worktree shows its
// branch and worktree, and after a refused merge the conflicting files;
// a merged feature shows its merge commit.
func TestDetailShowsFeatureGit(t *testing.T) {
	const base, head, merged = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222",
		"3333333333333333333333333333333333333333"
	st := newStore(t)
	plan := model.Plan{Summary: "two at once", MaxParallel: 2, Features: []model.Feature{{ID: "store", Title: "Store"}, {ID: "api", Title: "API"}, {ID: "ui", Title: "UI"}}}
	out, err := st.Do(model.PlanStart{Goal: "parallel"}, "tester", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	id := out.Session.ID
	for _, a := range []model.Action{model.PlanApply{Plan: plan},
		model.PlanApprove{Git: &model.GitSetup{Integration: model.IntegrationBranch(id), Base: "main", BaseCommit: base}},
		model.RunStart{Feature: "store", Agent: "w1"},
		model.Validate{Feature: "store", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test", Commit: head, Source: model.SourceObserved},
		model.ReviewFeature{Feature: "store", Decision: model.ReviewApproved},
		model.RunComplete{Feature: "store", Outcome: model.OutcomeCompleted, Head: head, MergeCommit: merged},
		model.RunStart{Feature: "api", Agent: "w2"},
		model.Validate{Feature: "api", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test", Commit: head, Source: model.SourceObserved},
		model.ReviewFeature{Feature: "api", Decision: model.ReviewApproved},
		model.RecordConflict{Feature: "api", Files: []string{"api/handler.go"}},
	} {
		if _, err := st.Do(a, "tester", time.Now()); err != nil {
			if e, ok := model.AsError(err); !ok || e.Code != model.CodeMergeConflict {
				t.Fatalf("%s: %v", a.Name(), err)
			}
		}
	}
	h := newHarness(t, st, 160, 48, zeroConfig())
	see := func(want bool, parts ...string) {
		t.Helper()
		scr := strings.ReplaceAll(h.screen(), "\u00a0", " ") // glamour pads code spans with no-break spaces
		for _, p := range parts {
			if strings.Contains(scr, p) != want {
				t.Fatalf("screen shows %q: %v\n%s", p, !want, scr)
			}
		}
	}
	see(true, "3 Detail  api", "Branch:  "+model.IntegrationBranch(id)+".api", "Worktree:  .flow/worktrees/api",
		"Merge conflict:  api/handler.go  — rebase or resolve by hand")
	h.key("k")
	see(true, "3 Detail  store", "Branch:  "+model.IntegrationBranch(id)+".store",
		"Merged: at  333333333333  into  "+model.IntegrationBranch(id))
	see(false, "Worktree:  .flow/worktrees/store")
}
