package ops

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/gittest"
	"github.com/flowdeck/flowdeck/model"
)

// A merge left recorded as under way (its process died after the branch
// moved) is settled by the next action that takes the git lock: the record
// just goes when the completion was stored, and a branch that moved since
// is left as it is, with a warning; in neither case does the branch move.
// (The crash itself, with the completion not stored, is the real binary's
// test: cli TestCrashAfterMergeIsTakenBack.)
func TestSettleMergeLeavesWhatItCannotTakeBack(t *testing.T) {
	dir, st := landRig(t, "ship it", "f.txt", false)
	s, _ := st.Active()
	f1 := s.Plan.Feature("f1")
	integ := s.Git.Integration
	head := gitOut(t, dir, "rev-parse", integ)
	for _, tc := range []struct {
		name   string
		intent db.MergeIntent
		note   string
	}{
		{"stored", db.MergeIntent{Session: s.ID, Feature: "f1", Branch: integ, Old: s.Git.BaseCommit, New: f1.Git.MergeCommit}, ""},
		{"moved since", db.MergeIntent{Session: s.ID, Feature: "f2", Branch: integ, Old: head, New: strings.Repeat("e", 40)}, "left as it is"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := st.IntendMerge(tc.intent); err != nil {
				t.Fatal(err)
			}
			res, err := Land(st, LandRequest{Force: true, Actor: "tester", Now: time.Now()})
			if err != nil || res.Error != nil {
				t.Fatalf("land: %+v %v", res, err)
			}
			if tc.note == "" && res.Warning != "" || !strings.Contains(res.Warning, tc.note) {
				t.Fatalf("warning %q, want %q", res.Warning, tc.note)
			}
			if m, err := st.PendingMerge(); err != nil || m != nil {
				t.Fatalf("the record stays: %+v %v", m, err)
			}
			if gitOut(t, dir, "rev-parse", integ) != head {
				t.Fatal("settling moved the integration branch")
			}
		})
	}
}

// A project below the repository's top: its .flow is sub/.flow there, and
// a completion whose merge adds the agent's sub/.flow/flowdeck.db is
// refused with protected_paths, naming it, and merges nothing.
func TestCompletionProtectsTheFlowOfAProjectBelowTheTop(t *testing.T) {
	top := gittest.Repo(t, "completion needs the git program on PATH", map[string]string{"sub/a.txt": "a\n"})
	root := filepath.Join(top, "sub")
	st, err := db.Open(filepath.Join(root, db.DBFile), db.Options{LockTimeout: 2 * time.Second, Digest: Digest})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	do := func(a model.Action) *ActionResult {
		t.Helper()
		res, err := DoSeen(st, a, 0, "tester", now, false, nil)
		if err != nil {
			t.Fatalf("%s: %v", a.Name(), err)
		}
		return res
	}
	do(model.PlanStart{Goal: "g"})
	do(model.PlanApply{Plan: model.Plan{Summary: "p", MaxParallel: 2, Features: []model.Feature{{ID: "f1", Title: "F1"}, {ID: "f2", Title: "F2"}}}})
	do(model.PlanApprove{})
	do(model.RunStart{Feature: "f1"})
	wt := filepath.Join(root, ".flow", "worktrees", "f1")
	if err := os.MkdirAll(filepath.Join(wt, "sub", ".flow"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(wt, "sub", "work.txt"), []byte("w\n"), 0o644)
	os.WriteFile(filepath.Join(wt, "sub", ".flow", "flowdeck.db"), []byte("not a database\n"), 0o644)
	gitOut(t, wt, "add", "-f", "--", "sub")
	gitOut(t, wt, "commit", "-q", "-m", "work")
	do(model.Validate{Feature: "f1", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "true"})
	do(model.ReviewFeature{Feature: "f1", Decision: model.ReviewApproved})
	s, _ := st.Active()
	before := gitOut(t, top, "rev-parse", s.Git.Integration)
	res := do(model.RunComplete{Feature: "f1", Outcome: model.OutcomeCompleted})
	if res.OK || res.Error == nil || res.Error.Code != model.CodeProtectedPaths || !strings.Contains(res.Error.Message, "sub/.flow/flowdeck.db") ||
		strings.Contains(res.Error.Message, "work.txt") {
		t.Fatalf("completion: %+v", res.Error)
	}
	if gitOut(t, top, "rev-parse", s.Git.Integration) != before {
		t.Fatal("a refused completion moved the integration branch")
	}
	if m, err := st.PendingMerge(); err != nil || m != nil {
		t.Fatalf("a refused completion left a merge recorded: %+v %v", m, err)
	}
}
