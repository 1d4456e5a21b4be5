package ui

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/internal/gittest"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gittest.Git(t, dir, args...)
}

// landProject is a git repository on main whose session ran its features
// in worktrees: api (two new files, 3 and 2 lines) completed and merged
// into the integration branch; with done the session is completed (final
// review and all), else b is still to do. It returns the project's
// directory, its store and the session.
func landProject(t *testing.T, done bool) (string, *db.Store, *model.Session) {
	t.Helper()
	dir := gittest.Repo(t, "land needs the git program on PATH", map[string]string{"README": "hello\n"})
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{NoSync: true, LockTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	now := t0.Add(-time.Hour)
	do := func(a model.Action) {
		t.Helper()
		now = now.Add(time.Second)
		if res, err := ops.DoSeen(st, a, 0, "agent", now, false, nil); err != nil || !res.OK {
			t.Fatalf("%s: %v %+v", a.Name(), err, res)
		}
	}
	features := []model.Feature{{ID: "api", Title: "API"}}
	if !done {
		features = append(features, model.Feature{ID: "b", Title: "B"})
	}
	do(model.PlanStart{Goal: "Ship the API"})
	do(model.PlanApply{Plan: model.Plan{Summary: "in worktrees", MaxParallel: 2, Features: features}})
	do(model.PlanApprove{})
	do(model.RunStart{Feature: "api"})
	wt := filepath.Join(dir, ".flow", "worktrees", "api")
	os.WriteFile(filepath.Join(wt, "api.go"), []byte("package api\n\nfunc A() {}\n"), 0o644)
	os.WriteFile(filepath.Join(wt, "api_test.go"), []byte("package api\n// tests\n"), 0o644)
	do(model.Validate{Feature: "api", Status: model.ValidationPassed, Scope: model.ScopeBroad, Command: "go test ./..."})
	do(model.ReviewFeature{Feature: "api", Decision: model.ReviewApproved})
	if done {
		do(model.ReviewFinal{Decision: model.ReviewApproved})
	}
	do(model.RunComplete{Feature: "api", Outcome: model.OutcomeCompleted})
	s := active(t, st)
	if s.Git == nil || (s.Status == model.StatusCompleted) != done {
		t.Fatalf("session %s, git %+v", s.Status, s.Git)
	}
	return dir, st, s
}

// L on a completed worktree session opens a dialog that names both
// branches and lists the session's change; y lands it with real git, and
// the session bar then says where it landed.
func TestLandKeyLandsTheSession(t *testing.T) {
	dir, st, s := landProject(t, true)
	before := gitIn(t, dir, "rev-parse", "main")
	h := newHarness(t, st, 160, 48, zeroConfig())
	h.mustSee("[completed, not landed]", "next (L): flowdeck flow land")

	h.key("L")
	h.mustSee("Land session "+s.ID+"?", "Merges "+s.Git.Integration+" into main",
		"2 files changed, +5 −0:", "+3 −0", "api.go", "+2 −0", "api_test.go", "y land it", "n not now")
	if gitIn(t, dir, "rev-parse", "main") != before {
		t.Fatal("opening the dialog moved main")
	}

	h.key("y")
	integ := gitIn(t, dir, "rev-parse", s.Git.Integration)
	if main := gitIn(t, dir, "rev-parse", "main"); main != integ || main == before {
		t.Fatalf("main is at %s, the integration branch at %s (was %s)", main, integ, before)
	}
	if _, err := os.Stat(filepath.Join(dir, "api.go")); err != nil {
		t.Fatalf("the session's work is not in the checkout: %v", err)
	}
	h.mustSee("✓ main fast-forwarded to "+s.Git.Integration, "[completed, landed into main]", "flowdeck flow plan start GOAL")
	h.mustNotSee("Land session")
	if l := active(t, st).Landed; l == nil || l.Branch != "main" || l.Commit != integ || l.Actor != "human" {
		t.Fatalf("landing recorded as %+v", l)
	}
}

// n closes the dialog and lands nothing.
func TestLandKeyCancel(t *testing.T) {
	dir, st, _ := landProject(t, true)
	before := gitIn(t, dir, "rev-parse", "main")
	h := newHarness(t, st, 80, 24, zeroConfig())
	h.key("L")
	h.mustSee("Land session")
	h.key("n")
	h.mustNotSee("Land session")
	h.mustSee("not landed")
	if gitIn(t, dir, "rev-parse", "main") != before || active(t, st).Landed != nil {
		t.Fatal("a cancelled land landed")
	}
}

// L says why when there is nothing to land, with the refusal flow land
// gives: a session not completed, a session without worktrees.
func TestLandKeyRefusals(t *testing.T) {
	_, st, s := landProject(t, false)
	h := newHarness(t, st, 160, 48, zeroConfig())
	h.key("L")
	h.mustSee("✗ refused ("+ops.CodeNotLandable+"): session "+s.ID+" is ready, not completed", "hint: Land merges what",
		"next: flowdeck flow land --force")
	h.mustNotSee("Land session")

	plain := newStore(t)
	scenario(t, plain, "completed")
	h = newHarness(t, plain, 160, 48, zeroConfig())
	h.mustSee("[completed]")
	h.key("L")
	h.mustSee("✗ refused ("+ops.CodeNoIntegration+"): session ", "has no integration branch", "hint: Its features were worked")
}

// A dialog decided on a session that was landed meanwhile (from a shell,
// an agent) is refused stale_decision, as every dialog's decision is.
func TestLandKeyStale(t *testing.T) {
	dir, st, _ := landProject(t, true)
	h := newHarness(t, st, 160, 48, zeroConfig())
	h.key("L")
	h.mustSee("Land session")
	if res, err := ops.Land(st, ops.LandRequest{Actor: "someone", Now: time.Now()}); err != nil || !res.OK {
		t.Fatalf("land elsewhere: %+v %v", res, err)
	}
	head := gitIn(t, dir, "rev-parse", "main")
	h.key("y")
	h.mustSee("✗ refused (" + model.CodeStaleDecision + ")")
	if gitIn(t, dir, "rev-parse", "main") != head {
		t.Fatal("a stale land moved main")
	}
}
