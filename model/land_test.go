package model_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

const commitC = "3333333333333333333333333333333333333333"

// completedWorktreeRig is a worktree session whose one feature completed
// (merged at commitB): the session is completed, its work on flowdeck/s1.
func completedWorktreeRig(t *testing.T) *testRig {
	t.Helper()
	r := worktreeRig(t, mkFeature("a"))
	r.do(model.RunStart{})
	r.validate("a", model.ValidationPassed, model.ScopeBroad)
	r.review("a", model.ReviewApproved)
	r.do(model.ReviewFinal{Decision: model.ReviewApproved})
	r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeCompleted, MergeCommit: commitB, MergeBase: commitA})
	r.wantSession(model.StatusCompleted, model.ApprovalApproved)
	return r
}

// A completed worktree session's next step is to land it; once landed, a
// new session; the status says which, and the history says where it went.
func TestNextCommandUntilLanded(t *testing.T) {
	r := completedWorktreeRig(t)
	r.wantNext("flowdeck flow land")
	if got := model.StatusText(r.s); got != "completed, not landed" {
		t.Fatalf("status text %q", got)
	}
	// Actions refused on a completed session point at the landing too.
	e := r.refuse(model.RunStart{}, model.CodeSessionCompleted)
	if e.Recovery.NextCommand != "flowdeck flow land" || !strings.Contains(e.Recovery.Hint, "flowdeck/s1") {
		t.Fatalf("refusal recovery %+v", e.Recovery)
	}

	ev := r.do(model.Land{Branch: "main", Commit: commitC})
	if len(ev) != 1 || ev[0].Type != model.EventSessionLanded || ev[0].Branch != "main" || ev[0].Commit != commitC || ev[0].Actor != "tester" {
		t.Fatalf("events %+v", ev)
	}
	if got := model.Describe(ev[0]); got != "landed flowdeck/s1 into main at 333333333333" {
		t.Fatalf("history line %q", got)
	}
	r.wantNext("flowdeck flow plan start GOAL")
	if got := model.StatusText(r.s); got != "completed, landed into main" {
		t.Fatalf("status text %q", got)
	}
	if l := r.s.Landed; l == nil || l.Branch != "main" || l.Commit != commitC || l.Seq != ev[0].Seq || l.Actor != "tester" {
		t.Fatalf("landed %+v", r.s.Landed)
	}
	e = r.refuse(model.RunStart{}, model.CodeSessionCompleted)
	if e.Recovery.NextCommand != "flowdeck flow plan start GOAL" {
		t.Fatalf("after landing, refusal next %q", e.Recovery.NextCommand)
	}

	// Landing again with nothing new records nothing.
	if ev, err := r.exec(model.Land{Branch: "main", Commit: commitC}); err != nil || len(ev) != 0 {
		t.Fatalf("landing again: %v %v", ev, err)
	}
	if msg := model.Unchanged(model.Land{}, r.s); !strings.Contains(msg, "already landed into main") {
		t.Fatalf("unchanged message %q", msg)
	}
}

// A reset reopens the session and a later completion moves the integration
// branch: what was landed is no longer all of it, so it must land again.
func TestResetForgetsTheLanding(t *testing.T) {
	r := completedWorktreeRig(t)
	r.do(model.Land{Branch: "main", Commit: commitC})
	r.do(model.ResetFeature{Feature: "a"})
	if r.s.Landed != nil {
		t.Fatal("a reset kept the landing")
	}
	r.wantNext("flowdeck flow run start")
	r.do(model.RunStart{})
	r.validate("a", model.ValidationPassed, model.ScopeBroad)
	r.review("a", model.ReviewApproved)
	r.do(model.ReviewFinal{Decision: model.ReviewApproved})
	r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeCompleted, MergeCommit: commitC, MergeBase: commitA})
	r.wantNext("flowdeck flow land")
}

// Sessions without worktrees have nothing to land: their next command and
// status are as before, and a landing is refused.
func TestNoLandingWithoutWorktrees(t *testing.T) {
	r := readyRig(t, mkFeature("a"))
	r.finish("a")
	r.wantSession(model.StatusCompleted, model.ApprovalApproved)
	r.wantNext("flowdeck flow plan start GOAL")
	if got := model.StatusText(r.s); got != "completed" {
		t.Fatalf("status text %q", got)
	}
	r.refuse(model.Land{Branch: "main", Commit: commitC}, model.CodeInvalidArgument)
}

// A landing names an object id and a branch git could have: anything else
// is refused, changing nothing.
func TestLandRefusesBadGitFields(t *testing.T) {
	r := completedWorktreeRig(t)
	for _, a := range []model.Land{
		{Branch: "main", Commit: "HEAD"},
		{Branch: "main", Commit: "--output=/tmp/x"},
		{Branch: "main", Commit: strings.Repeat("A", 40)},
		{Branch: "", Commit: commitC},
		{Branch: "-x", Commit: commitC},
		{Branch: "main\x1b[2J", Commit: commitC},
		{Branch: "a b", Commit: commitC},
		{Branch: "a..b", Commit: commitC},
	} {
		e := r.refuse(a, model.CodeInvalidArgument)
		if e.Field != "commit" && e.Field != "branch" {
			t.Errorf("%+v: field %q", a, e.Field)
		}
	}
	r.wantNext("flowdeck flow land")
}

// An imported log whose landing names a ref or an option for the commit,
// a branch with controls, or a session without an integration branch, is
// corrupt: it does not replay.
func TestReplayRefusesMalformedLanding(t *testing.T) {
	r := completedWorktreeRig(t)
	r.do(model.Land{Branch: "main", Commit: commitC})
	landed := len(r.events) - 1
	for _, c := range []struct {
		name   string
		tamper func(events []model.Event) []model.Event
	}{
		{"commit is a ref", func(ev []model.Event) []model.Event { ev[landed].Commit = "main"; return ev }},
		{"commit is an option", func(ev []model.Event) []model.Event { ev[landed].Commit = "--exec=sh"; return ev }},
		{"no commit", func(ev []model.Event) []model.Event { ev[landed].Commit = ""; return ev }},
		{"branch with controls", func(ev []model.Event) []model.Event { ev[landed].Branch = "main\r\x1b[1Afake"; return ev }},
	} {
		events := c.tamper(slices.Clone(r.events))
		if _, err := model.Replay(events); err == nil {
			t.Errorf("%s: replay accepted the log", c.name)
		} else if !strings.Contains(err.Error(), "session_landed") {
			t.Errorf("%s: error %v does not name the landing", c.name, err)
		}
	}
	s, err := model.Replay(r.events)
	if err != nil || s.Landed == nil || s.Landed.Commit != commitC {
		t.Fatalf("untampered log: %v %+v", err, s)
	}

	// A session whose features ran in the project's checkout has no
	// integration branch: a landing in its log is forged.
	plain := readyRig(t, mkFeature("a"))
	plain.finish("a")
	last := plain.events[len(plain.events)-1]
	forged := append(slices.Clone(plain.events), model.Event{Seq: last.Seq + 1, Session: last.Session,
		Type: model.EventSessionLanded, At: last.At, Actor: "x", Branch: "main", Commit: commitC})
	if _, err := model.Replay(forged); err == nil || !strings.Contains(err.Error(), "no integration branch") {
		t.Fatalf("a landing of a session without worktrees replayed: %v", err)
	}
}

// A land decided on a session that moved since (another landing, a reset,
// a merge) is stale; unrelated progress is not.
func TestLandStale(t *testing.T) {
	r := completedWorktreeRig(t)
	seen := r.s.Seq
	r.do(model.AddNote{Text: "looked at it"})
	if e := model.Stale(model.Land{}, seen, r.events); e != nil {
		t.Fatalf("a note made the landing stale: %v", e)
	}
	r.do(model.Land{Branch: "main", Commit: commitC})
	e := model.Stale(model.Land{}, seen, r.events)
	if e == nil || e.Code != model.CodeStaleDecision || !strings.Contains(e.Message, "landed flowdeck/s1 into main") {
		t.Fatalf("stale: %v", e)
	}
}
