package ops

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/internal/gittest"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/render"
)

// pinRig is a git project with a session whose plan has feature f (one
// verification command, "true") started; worktrees says whether f runs in
// its own worktree. It returns the directory f's code is in.
func pinRig(t *testing.T, worktrees bool) (string, *db.Store, func(model.Action) *ActionResult) {
	t.Helper()
	dir := gittest.Repo(t, "pinning evidence to the code needs the git program on PATH", map[string]string{"a.txt": "a\n"})
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{LockTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	do := func(a model.Action) *ActionResult {
		t.Helper()
		now = now.Add(time.Second)
		res, err := DoSeen(st, a, 0, "tester", now, false, nil)
		if err != nil {
			t.Fatalf("%s: %v", a.Name(), err)
		}
		return res
	}
	wt := worktrees
	must := func(a model.Action) {
		t.Helper()
		if res := do(a); !res.OK {
			t.Fatalf("%s refused: %+v", a.Name(), res.Error)
		}
	}
	must(model.PlanStart{Goal: "pin"})
	must(model.PlanApply{Plan: model.Plan{Summary: "p", Worktrees: &wt, Features: []model.Feature{
		{ID: "f", Title: "F", Verification: []string{"true"}}, {ID: "g", Title: "G"}}}})
	must(model.PlanApprove{})
	must(model.RunStart{Feature: "f"})
	code := dir
	if worktrees {
		code = filepath.Join(dir, ".flow", "worktrees", "f")
	}
	return code, st, do
}

func validate(f string) model.Validate {
	return model.Validate{Feature: f, Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "true"}
}

// TestEvidenceIsPinnedToTheCode: in either mode, a change after the
// validation makes approving and completing refuse stale_evidence naming
// the file; committing the change does not get around it; validating
// again does.
func TestEvidenceIsPinnedToTheCode(t *testing.T) {
	for _, mode := range []struct {
		name      string
		worktrees bool
	}{{"checkout", false}, {"worktree", true}} {
		t.Run(mode.name, func(t *testing.T) {
			code, st, do := pinRig(t, mode.worktrees)
			s, _ := st.Active()
			f := s.Plan.Feature("f")
			if f.Base == "" || s.Base == "" {
				t.Fatalf("no base recorded: feature %q session %q", f.Base, s.Base)
			}
			os.WriteFile(filepath.Join(code, "feature.go"), []byte("package f\n"), 0o644)
			if res := do(validate("f")); !res.OK {
				t.Fatalf("validate: %+v", res.Error)
			}
			s, _ = st.Active()
			ev := s.Plan.Feature("f").Validations[0]
			if ev.Tree == "" || ev.Tree == f.Base {
				t.Fatalf("evidence tree %q (base %q)", ev.Tree, f.Base)
			}
			// Flowdeck's own files are not the code.
			os.WriteFile(filepath.Join(code, ".flow", "scratch"), []byte("x"), 0o644)

			os.WriteFile(filepath.Join(code, "feature.go"), []byte("package f // broken\n"), 0o644)
			// Status says so, and is never answered ahead of time from
			// the digest while evidence is pinned.
			stat, err := Status(st, false)
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			render.StatusAt(&text, stat.State, stat.Trees)
			if !strings.Contains(text.String(), "[stale: the code changed since its evidence]") {
				t.Fatalf("status after a change:\n%s", text.String())
			}
			if fv := stat.Session.(*StatusView).Plan.Features[0]; len(fv.Checks) != 1 || fv.Checks[0].State != model.CheckStale {
				t.Fatalf("status --json checks: %+v", fv.Checks)
			}
			if d, err := statusDigest(stat.State); err != nil || d.StatusText != nil {
				t.Fatalf("a digest of pinned evidence: %q %v", d.StatusText, err)
			}
			res := do(model.ReviewFeature{Feature: "f", Decision: model.ReviewApproved})
			if res.OK || res.Error.Code != model.CodeStaleEvidence || !strings.Contains(res.Error.Message, "feature.go") {
				t.Fatalf("approving stale evidence: %+v", res.Error)
			}
			if !strings.Contains(res.Error.Recovery.NextCommand, "run --feature f") {
				t.Errorf("next command %q does not validate again", res.Error.Recovery.NextCommand)
			}
			// needs_fix is a verdict on the change, not an approval of it.
			if res := do(model.ReviewFeature{Feature: "f", Decision: model.ReviewNeedsFix}); !res.OK {
				t.Fatalf("needs_fix refused: %+v", res.Error)
			}
			gitOut(t, code, "add", "feature.go")
			gitOut(t, code, "commit", "-q", "-m", "sneak it in")
			if res := do(model.ReviewFeature{Feature: "f", Decision: model.ReviewApproved}); res.OK || res.Error.Code != model.CodeStaleEvidence {
				t.Fatalf("a commit got around the pin: %+v", res.Error)
			}
			if res := do(validate("f")); !res.OK {
				t.Fatalf("validate again: %+v", res.Error)
			}
			if res := do(model.ReviewFeature{Feature: "f", Decision: model.ReviewApproved}); !res.OK {
				t.Fatalf("approve fresh evidence: %+v", res.Error)
			}
			os.WriteFile(filepath.Join(code, "late.go"), []byte("package f\n"), 0o644)
			res = do(model.RunComplete{Feature: "f", Outcome: model.OutcomeCompleted})
			if res.OK || res.Error.Code != model.CodeStaleEvidence || !strings.Contains(res.Error.Message, "late.go") {
				t.Fatalf("completing after a change: %+v", res.Error)
			}
			os.Remove(filepath.Join(code, "late.go"))
			if res := do(model.RunComplete{Feature: "f", Outcome: model.OutcomeCompleted}); !res.OK {
				t.Fatalf("completing the validated code: %+v", res.Error)
			}
		})
	}
}

// TestDiffOfAFeatureAndTheSession: the feature's diff goes from its base
// to its evidence's tree and says when the code moved on; the session's
// diff holds every feature's work; a bound keeps whole files and lists the
// rest.
func TestDiffOfAFeatureAndTheSession(t *testing.T) {
	for _, mode := range []struct {
		name      string
		worktrees bool
	}{{"checkout", false}, {"worktree", true}} {
		t.Run(mode.name, func(t *testing.T) {
			code, st, do := pinRig(t, mode.worktrees)
			os.WriteFile(filepath.Join(code, "feature.go"), []byte("package f\n\nfunc Added() {}\n"), 0o644)
			os.WriteFile(filepath.Join(code, "a.txt"), []byte("a\nmore\n"), 0o644)
			do(validate("f"))
			res, err := Diff(st, DiffRequest{})
			if err != nil || !res.OK {
				t.Fatalf("diff: %v %+v", err, res)
			}
			if res.Feature != "f" || res.Stale || len(res.Files) != 2 || res.Added != 4 || !strings.Contains(res.Patch, "+func Added() {}") {
				t.Fatalf("feature diff: %+v", res)
			}
			os.WriteFile(filepath.Join(code, "feature.go"), []byte("package f\n"), 0o644)
			if res, _ := Diff(st, DiffRequest{Feature: "f"}); !res.Stale || res.Current == res.To {
				t.Fatalf("a change after the evidence is not stale: %+v", res)
			}
			bounded, _ := Diff(st, DiffRequest{MaxBytes: len(res.Patch) - 1})
			if len(bounded.Omitted) != 1 || strings.Count(bounded.Patch, "diff --git ") != 1 || bounded.Omitted[0].Path != "feature.go" {
				t.Fatalf("bounded diff: %d omitted, patch\n%s", len(bounded.Omitted), bounded.Patch)
			}
			os.WriteFile(filepath.Join(code, "feature.go"), []byte("package f\n\nfunc Added() {}\n"), 0o644)
			do(model.ReviewFeature{Feature: "f", Decision: model.ReviewApproved})
			if r := do(model.RunComplete{Feature: "f", Outcome: model.OutcomeCompleted}); !r.OK {
				t.Fatalf("complete: %+v", r.Error)
			}
			whole, err := Diff(st, DiffRequest{Session: true})
			if err != nil || !whole.OK || !strings.Contains(whole.Patch, "+func Added() {}") || !strings.Contains(whole.Patch, "+more") {
				t.Fatalf("session diff: %v %+v", err, whole)
			}
		})
	}
}

func TestDiffOutsideGit(t *testing.T) {
	s := newSeed(t)
	s.do(model.PlanStart{Goal: "g"})
	s.do(model.PlanApply{Plan: model.Plan{Features: []model.Feature{{ID: "f", Title: "F"}}}})
	res, err := Diff(s.st, DiffRequest{})
	if err != nil || res.OK || res.Error.Code != CodeNoGit || !strings.Contains(res.Error.Message, "diffs and pinning need git") {
		t.Fatalf("diff outside git: %v %+v", err, res)
	}
}

// TestSharedCheckoutIsNeverPinned: in one checkout that several features
// may share (max_parallel 2, no worktrees), evidence taken while only one
// feature is active does not go stale when the code changes: another
// agent's write beside it says nothing about this feature's code.
func TestSharedCheckoutIsNeverPinned(t *testing.T) {
	dir := gittest.Repo(t, "pinning evidence to the code needs the git program on PATH", map[string]string{"a.txt": "a\n"})
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{LockTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	must := func(a model.Action) {
		t.Helper()
		now = now.Add(time.Second)
		if res, err := DoSeen(st, a, 0, "tester", now, false, nil); err != nil || !res.OK {
			t.Fatalf("%s: %v %+v", a.Name(), err, res)
		}
	}
	off := false
	must(model.PlanStart{Goal: "shared"})
	must(model.PlanApply{Plan: model.Plan{Summary: "p", MaxParallel: 2, Worktrees: &off, Features: []model.Feature{
		{ID: "f", Title: "F"}, {ID: "g", Title: "G"}}}})
	must(model.PlanApprove{})
	must(model.RunStart{Feature: "f"})
	must(validate("f"))
	// Another agent's work lands in the same checkout before f's review.
	if err := os.WriteFile(filepath.Join(dir, "g.txt"), []byte("g\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	must(model.ReviewFeature{Feature: "f", Decision: model.ReviewApproved})
}
