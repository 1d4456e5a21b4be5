package model_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

const (
	commitA = "1111111111111111111111111111111111111111"
	commitB = "2222222222222222222222222222222222222222"
)

// worktreeRig is a session with max_parallel 2 approved with a git setup.
func worktreeRig(t *testing.T, features ...model.Feature) *testRig {
	t.Helper()
	r := newTestRig(t)
	r.do(model.PlanStart{ID: "s1", Goal: "ship it"})
	p := mkPlan(features...)
	p.MaxParallel = 2
	r.do(model.PlanApply{Plan: p})
	r.do(model.PlanApprove{Git: &model.GitSetup{Integration: "flowdeck/s1", Base: "main", BaseCommit: commitA}})
	return r
}

func TestWantsWorktrees(t *testing.T) {
	on, off := true, false
	for _, c := range []struct {
		max    int
		set    *bool
		isRepo bool
		want   bool
	}{
		{1, nil, true, false}, {2, nil, true, true}, {2, nil, false, false},
		{1, &on, true, true}, {3, &off, true, false}, {1, &on, false, false},
	} {
		p := &model.Plan{MaxParallel: c.max, Worktrees: c.set}
		if got := p.WantsWorktrees(c.isRepo); got != c.want {
			t.Errorf("max %d set %v repo %v: %v, want %v", c.max, c.set, c.isRepo, got, c.want)
		}
	}
}

func TestWorktreeLifecycleReplays(t *testing.T) {
	r := worktreeRig(t, mkFeature("a"), mkFeature("b"), mkFeature("c", "a", "b"))
	if g := r.s.Git; g == nil || g.Integration != "flowdeck/s1" || g.Base != "main" || g.BaseCommit != commitA {
		t.Fatalf("git setup %+v", r.s.Git)
	}
	e := claimed(t, r.do(model.RunStart{Agent: "w1"}))
	if e.FeatureGit == nil || e.FeatureGit.Branch != "flowdeck/s1.a" || e.FeatureGit.Worktree != ".flow/worktrees/a" {
		t.Fatalf("feature_started git %+v", e.FeatureGit)
	}
	r.do(model.RunStart{Agent: "w2"})
	r.do(model.Validate{Feature: "a", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test", Commit: commitB})
	if got := r.feature("a").Validations[0].Commit; got != commitB {
		t.Fatalf("evidence commit %q", got)
	}
	r.review("a", model.ReviewApproved)

	// A conflict is stored and refused; the hint completes again.
	err, ev := r.refuseRecorded(model.RecordConflict{Feature: "a", Files: []string{"x.go"}}, model.CodeMergeConflict, model.EventMergeConflict)
	if !slices.Equal(ev.Files, []string{"x.go"}) || !slices.Equal(r.feature("a").Git.Conflicts, []string{"x.go"}) {
		t.Fatalf("conflict not recorded: %+v", r.feature("a").Git)
	}
	wantMentions(t, err.Recovery.Hint, ".flow/worktrees/a", "rebase", "by hand", "flowdeck flow reset feature a")
	wantMentions(t, err.Message, "x.go", "flowdeck/s1")
	if err.Recovery.NextCommand != "flowdeck flow run complete a --outcome completed" {
		t.Fatalf("next command %q", err.Recovery.NextCommand)
	}

	r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeCompleted, MergeCommit: commitB, MergeBase: commitA})
	if g := r.feature("a").Git; g.MergeCommit != commitB || g.MergeBase != commitA || g.Conflicts != nil {
		t.Fatalf("completed feature git %+v", g)
	}
	if d := model.Describe(r.events[len(r.events)-1]); !strings.Contains(d, "merged at 222222222222") {
		t.Fatalf("Describe = %q", d)
	}
	r.do(model.ResetFeature{Feature: "a"})
	if r.feature("a").Git != nil {
		t.Fatal("reset kept the feature's git record")
	}
	// A second approval (after a replan) keeps the first setup.
	if r.s.Git.BaseCommit != commitA {
		t.Fatal("setup lost")
	}
}

func TestWorktreeRefusals(t *testing.T) {
	r := newTestRig(t)
	r.do(model.PlanStart{ID: "s1", Goal: "g"})
	r.do(model.PlanApply{Plan: mkPlan(mkFeature("a"))})
	r.refuse(model.PlanApprove{Git: &model.GitSetup{Integration: "flowdeck/other", BaseCommit: commitA}}, model.CodeInvalidArgument)
	r.refuse(model.PlanApprove{Git: &model.GitSetup{Integration: "flowdeck/s1", BaseCommit: "--exec=x"}}, model.CodeInvalidArgument)
	r.do(model.PlanApprove{})
	r.do(model.RunStart{})
	if r.feature("a").Git != nil {
		t.Fatal("a session without worktrees recorded one")
	}
	r.refuse(model.RecordConflict{Feature: "a", Files: []string{"x"}}, model.CodeInvalidArgument)
	r.refuse(model.Validate{Feature: "a", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "t", Commit: "HEAD"}, model.CodeInvalidArgument)
}

// Work committed after the latest validation is not merged unvalidated:
// completion at another head is refused, recorded, and hints the
// verification; validated at that head (and reviewed) it completes.
func TestCommitGate(t *testing.T) {
	r := worktreeRig(t, mkFeature("a"))
	r.do(model.RunStart{})
	r.do(model.Validate{Feature: "a", Status: model.ValidationPassed, Scope: model.ScopeBroad, Command: "go test", Commit: commitA})
	r.review("a", model.ReviewApproved)
	r.do(model.ReviewFinal{Decision: model.ReviewApproved})
	e, _ := r.refuseRecorded(model.RunComplete{Feature: "a", Outcome: model.OutcomeCompleted, Head: commitB}, model.CodeUnverifiedCommit, model.EventCompletionRejected)
	wantMentions(t, e.Message, "222222222222", "111111111111")
	if !strings.HasPrefix(e.Recovery.NextCommand, "flowdeck flow validate a") {
		t.Fatalf("next command %q", e.Recovery.NextCommand)
	}
	r.refuse(model.RunComplete{Feature: "a", Outcome: model.OutcomeCompleted, Head: "--x"}, model.CodeInvalidArgument)
	r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeCompleted, Head: commitA, MergeCommit: commitA})
}

// A log from outside (an import) that names another branch or a worktree
// path out of the project is corrupt: the git work trusts these names.
func TestReplayRefusesForeignGitNames(t *testing.T) {
	r := worktreeRig(t, mkFeature("a"), mkFeature("b"))
	r.do(model.RunStart{Agent: "w1"})
	r.do(model.Validate{Feature: "a", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test"})
	r.review("a", model.ReviewApproved)
	r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeCompleted, MergeCommit: commitB, MergeBase: commitA})
	for _, c := range []struct {
		name   string
		tamper func(e *model.Event)
	}{
		{"worktree escapes", func(e *model.Event) {
			if e.FeatureGit != nil {
				e.FeatureGit = &model.FeatureGit{Branch: e.FeatureGit.Branch, Worktree: "../../victim"}
			}
		}},
		{"branch is the person's", func(e *model.Event) {
			if e.FeatureGit != nil {
				e.FeatureGit = &model.FeatureGit{Branch: "main", Worktree: e.FeatureGit.Worktree}
			}
		}},
		// A reset hands a completed feature's commits to git.
		{"merge base is a ref", func(e *model.Event) {
			if e.Type == model.EventFeatureCompleted {
				e.Base = "main"
			}
		}},
		{"merge commit is an option", func(e *model.Event) {
			if e.Type == model.EventFeatureCompleted {
				e.Commit = "--output=/tmp/x"
			}
		}},
		{"integration is the person's", func(e *model.Event) {
			if e.Type == model.EventPlanApproved && e.Git != nil {
				e.Git = &model.GitSetup{Integration: "main", BaseCommit: commitA}
			}
		}},
	} {
		events := slices.Clone(r.events)
		for i := range events {
			c.tamper(&events[i])
		}
		if _, err := model.Replay(events); err == nil {
			t.Errorf("%s: replay accepted the log", c.name)
		}
	}
	if _, err := model.Replay(r.events); err != nil {
		t.Fatalf("untampered log: %v", err)
	}
}

// A conflict list is cut to 100 paths and a count of the rest, without
// touching the caller's slice.
func TestCapFiles(t *testing.T) {
	files := make([]string, 150)
	for i := range files {
		files[i] = "f" + strings.Repeat("x", i%3)
	}
	got := model.CapFiles(files)
	if len(got) != 101 || got[100] != "… and 50 more" || !slices.Equal(got[:100], files[:100]) || files[100] != "fx" {
		t.Fatalf("capped: %d %q", len(got), got[len(got)-1])
	}
	if short := model.CapFiles(files[:3]); !slices.Equal(short, files[:3]) {
		t.Fatalf("short list: %q", short)
	}
}
