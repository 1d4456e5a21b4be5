package ops

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/internal/gittest"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/digest"
	"github.com/flowdeck/flowdeck/model"
)

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gittest.Git(t, dir, args...)
}

// landRig is a git project whose session (goal) has feature f1 completed
// with file name written in its worktree, f2 still to do, and main moved on
// with file name written too (other text: a conflict) when conflict.
func landRig(t *testing.T, goal, name string, conflict bool) (string, *db.Store) {
	t.Helper()
	dir := gittest.Repo(t, "flow land needs the git program on PATH", map[string]string{"a.txt": "a\n"})
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{LockTimeout: 2 * time.Second, Digest: Digest})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	do := func(a model.Action) {
		t.Helper()
		if res, err := DoSeen(st, a, 0, "tester", now, false, nil); err != nil || !res.OK {
			t.Fatalf("%s: %v %+v", a.Name(), err, res)
		}
	}
	do(model.PlanStart{Goal: goal})
	do(model.PlanApply{Plan: model.Plan{Summary: "p", MaxParallel: 2, Features: []model.Feature{{ID: "f1", Title: "F1"}, {ID: "f2", Title: "F2"}}}})
	do(model.PlanApprove{})
	do(model.RunStart{Feature: "f1"})
	os.WriteFile(filepath.Join(dir, ".flow", "worktrees", "f1", name), []byte("f\n"), 0o644)
	do(model.Validate{Feature: "f1", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "true"})
	do(model.ReviewFeature{Feature: "f1", Decision: model.ReviewApproved})
	do(model.RunComplete{Feature: "f1", Outcome: model.OutcomeCompleted})
	// main moves on, so land makes a merge commit (or conflicts).
	other := "b.txt"
	if conflict {
		other = name
	}
	os.WriteFile(filepath.Join(dir, other), []byte("main\n"), 0o644)
	// Only that file: flowdeck's own files (.flow) stay out of the
	// person's commits, or every action would dirty their tree.
	gitOut(t, dir, "add", "--", ":(literal)"+other)
	gitOut(t, dir, "commit", "-q", "-m", "meanwhile")
	return dir, st
}

// The session's goal reaches git log through land's merge message as the
// feature titles do: terminal controls are dropped, whole sequences at once.
func TestLandMessageDropsControls(t *testing.T) {
	dir, st := landRig(t, "ship \x1b]0;pwned\x07it", "f.txt", false)
	res, err := Land(st, LandRequest{Force: true, Actor: "tester", Now: time.Now()}) // f2 is not done: land what is merged
	if err != nil || res == nil || !res.OK || res.FastForward {
		t.Fatalf("land: %+v %v", res, err)
	}
	if msg := gitOut(t, dir, "log", "-1", "--format=%B"); strings.ContainsAny(msg, "\x1b\x07") || !strings.Contains(msg, "ship it") {
		t.Fatalf("land's message %q", msg)
	}
}

// A conflicting file's name is foreign text: the refusal quotes it, so a
// terminal shows its controls rather than acting on them.
func TestLandConflictQuotesFileNames(t *testing.T) {
	_, st := landRig(t, "ship it", "x\x1b[2Jy.txt", true)
	res, err := Land(st, LandRequest{Force: true, Actor: "tester", Now: time.Now()})
	if err != nil || res == nil || res.OK || res.Error == nil || res.Error.Code != CodeLandConflict {
		t.Fatalf("land: %+v %v", res, err)
	}
	if strings.Contains(res.Error.Message, "\x1b") || !strings.Contains(res.Error.Message, model.ShellQuote("x\x1b[2Jy.txt")) {
		t.Fatalf("conflict message %q", res.Error.Message)
	}
}

// Land refuses, changing nothing, a missing integration branch (not made
// again at the base commit to land nothing), a dirty tree and a detached
// HEAD.
func TestLandRefusals(t *testing.T) {
	for _, tc := range []struct {
		code  string
		setup func(t *testing.T, dir string)
	}{
		{CodeNoIntegration, func(t *testing.T, dir string) {
			branch := strings.TrimPrefix(gitOut(t, dir, "for-each-ref", "--format=%(refname)", "refs/heads/flowdeck/"), "refs/heads/")
			gitOut(t, dir, "branch", "-D", branch)
		}},
		{CodeWorktreeDirty, func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644)
		}},
		{CodeDetachedHEAD, func(t *testing.T, dir string) {
			gitOut(t, dir, "checkout", "-q", "--detach")
		}},
	} {
		t.Run(tc.code, func(t *testing.T) {
			dir, st := landRig(t, "ship it", "f.txt", false)
			tc.setup(t, dir)
			head := gitOut(t, dir, "rev-parse", "HEAD")
			res, err := Land(st, LandRequest{Force: true, Actor: "tester", Now: time.Now()})
			if err != nil || res == nil || res.OK || res.Error == nil || res.Error.Code != tc.code {
				t.Fatalf("land: %+v %v", res, err)
			}
			if gitOut(t, dir, "rev-parse", "HEAD") != head {
				t.Fatal("a refused land moved HEAD")
			}
			if tc.code == CodeNoIntegration && gitOut(t, dir, "branch", "--list", "flowdeck/*") != "" {
				t.Fatal("the integration branch was made again")
			}
		})
	}
}

// completeRig completes f2 of a landRig's session (the last feature, with
// broad evidence and the final review): the session is completed.
func completeRig(t *testing.T, dir string, st *db.Store) {
	t.Helper()
	now := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	for _, a := range []model.Action{
		model.RunStart{Feature: "f2"},
		model.Validate{Feature: "f2", Status: model.ValidationPassed, Scope: model.ScopeBroad, Command: "true"},
		model.ReviewFeature{Feature: "f2", Decision: model.ReviewApproved},
		model.ReviewFinal{Decision: model.ReviewApproved},
		model.RunComplete{Feature: "f2", Outcome: model.OutcomeCompleted},
	} {
		if _, ok := a.(model.Validate); ok { // f2's own work, in its worktree
			os.WriteFile(filepath.Join(dir, ".flow", "worktrees", "f2", "g.txt"), []byte("g\n"), 0o644)
		}
		if res, err := DoSeen(st, a, 0, "tester", now, false, nil); err != nil || !res.OK {
			t.Fatalf("%s: %v %+v", a.Name(), err, res)
		}
	}
	if s, _ := st.Active(); s == nil || s.Status != model.StatusCompleted {
		t.Fatalf("session not completed: %+v", s)
	}
}

// wantShown asserts that flow status (text, --json next_command), the HUD
// and the digest the lean binary prints from all say want and next.
func wantShown(t *testing.T, dir string, st *db.Store, want, next string) {
	t.Helper()
	res, err := Status(st, false)
	if err != nil || res.NextCommand != next {
		t.Fatalf("status next %q (%v), want %q", res.NextCommand, err, next)
	}
	if text := string(statusText(res.State)); !strings.Contains(text, "status:   "+want+", plan approved") || !strings.Contains(text, "next: "+next) {
		t.Fatalf("status text lacks %q / %q:\n%s", want, next, text)
	}
	h, err := BuildHUD(st)
	if err != nil || !strings.HasPrefix(h.Status, want+", plan approved") || h.NextCommand != next {
		t.Fatalf("hud %+v %v", h, err)
	}
	d, err := digest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"status": string(d.StatusText), "hud": string(d.HUDText.Out)} {
		if !strings.Contains(out, want) || !strings.Contains(out, "next: "+next) {
			t.Fatalf("digest %s lacks %q / %q:\n%s", name, want, next, out)
		}
	}
	if !strings.Contains(string(d.StatusJSON), `"next_command": "`+next+`"`) {
		t.Fatalf("digest status --json:\n%s", d.StatusJSON)
	}
}

// A completed worktree session's next step is flow land until it lands;
// land (a merge on real git) records who landed what where, and then the
// status, the HUD and the digest say so and the next step is a new session.
func TestLandRecordsTheLanding(t *testing.T) {
	dir, st := landRig(t, "ship it", "f.txt", false)
	completeRig(t, dir, st)
	wantShown(t, dir, st, "completed, not landed", "flowdeck flow land")

	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	res, err := Land(st, LandRequest{Actor: "human", Now: now})
	if err != nil || !res.OK || res.FastForward || res.UpToDate || res.Warning != "" {
		t.Fatalf("land: %+v %v", res, err)
	}
	head := gitOut(t, dir, "rev-parse", "main")
	if res.Commit != head || res.Branch != "main" {
		t.Fatalf("land result %s on %s, main is at %s", res.Commit, res.Branch, head)
	}
	for _, f := range []string{"f.txt", "g.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("the session's %s did not land: %v", f, err)
		}
	}
	if len(res.Events) != 1 || res.Events[0].Type != model.EventSessionLanded || res.Events[0].Actor != "human" {
		t.Fatalf("events %+v", res.Events)
	}
	if res.NextCommand != "flowdeck flow plan start GOAL" {
		t.Fatalf("next after landing %q", res.NextCommand)
	}
	wantShown(t, dir, st, "completed, landed into main", "flowdeck flow plan start GOAL")
	s, _ := st.Active()
	if l := s.Landed; l == nil || l.Branch != "main" || l.Commit != head || l.Actor != "human" || !l.At.Equal(now) {
		t.Fatalf("landed %+v", s.Landed)
	}
	want := "landed " + s.Git.Integration + " into main at " + model.ShortCommit(head)
	if h := s.Execution.History[len(s.Execution.History)-1]; h.Summary != want || h.Actor != "human" {
		t.Fatalf("history %+v, want %q", h, want)
	}

	// Again: up to date, nothing new to record.
	again, err := Land(st, LandRequest{Actor: "human", Now: now})
	if err != nil || !again.OK || !again.UpToDate || len(again.Events) != 0 {
		t.Fatalf("land again: %+v %v", again, err)
	}
}

// A land decided on an older state of the session is refused when what it
// would land changed since (here: someone else landed it), before any git
// work; a refusal as today's (not completed) records nothing.
func TestLandStaleAndRefusedRecordNothing(t *testing.T) {
	dir, st := landRig(t, "ship it", "f.txt", false)
	res, err := Land(st, LandRequest{Actor: "human", Now: time.Now()})
	if err != nil || res.OK || res.Error == nil || res.Error.Code != CodeNotLandable {
		t.Fatalf("land of a running session: %+v %v", res, err)
	}
	if s, _ := st.Active(); s.Landed != nil {
		t.Fatal("a refused land was recorded")
	}
	completeRig(t, dir, st)
	s, _ := st.Active()
	seen := s.Seq
	if res, err := Land(st, LandRequest{Actor: "someone", Now: time.Now()}); err != nil || !res.OK {
		t.Fatalf("land: %+v %v", res, err)
	}
	head := gitOut(t, dir, "rev-parse", "HEAD")
	res, err = Land(st, LandRequest{Seen: seen, Actor: "human", Now: time.Now()})
	if err != nil || res.OK || res.Error == nil || res.Error.Code != model.CodeStaleDecision || !strings.Contains(res.Error.Message, "by someone") {
		t.Fatalf("stale land: %+v %v", res, err)
	}
	if gitOut(t, dir, "rev-parse", "HEAD") != head {
		t.Fatal("a stale land moved HEAD")
	}
}
