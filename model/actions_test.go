package model_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

func TestPlanStart(t *testing.T) {
	r := newTestRig(t)
	r.refuse(model.PlanStart{ID: "s1", Goal: "   "}, model.CodeInvalidArgument)
	for _, id := range []string{"", "S1", "../x", "a/b", strings.Repeat("s", 101)} {
		r.refuse(model.PlanStart{ID: id, Goal: "g"}, model.CodeInvalidSessionID)
	}
	r.do(model.PlanStart{ID: "s1", Goal: "  ship the cockpit \n"})
	r.wantSession(model.StatusPlanning, model.ApprovalPending)
	if r.s.ID != "s1" || r.s.Goal != "ship the cockpit" || r.s.Seq != 1 || !r.s.Timestamps.Created.Equal(r.now) {
		t.Fatalf("new session %+v", r.s)
	}
	r.wantNext("flowdeck flow plan apply FILE")

	e := r.refuse(model.PlanStart{ID: "s2", Goal: "another"}, model.CodeSessionAlreadyActive)
	wantMentions(t, e.Message, "s1")
	if e.Recovery.NextAction == nil || strings.Join(e.Recovery.NextAction.Args, " ") != "flow reset session" {
		t.Fatalf("next_action %+v, want flow reset session", e.Recovery.NextAction)
	}
}

func TestSessionArchiveAndActivate(t *testing.T) {
	r := planningRig(t, mkFeature("a"))
	r.do(model.ResetSession{})
	if !r.s.Archived {
		t.Fatal("reset session did not archive")
	}
	r.wantNext("flowdeck flow plan start GOAL")
	r.refuse(model.ActivateSession{ID: "Nope!"}, model.CodeInvalidSessionID)
	r.refuse(model.ActivateSession{ID: "other"}, model.CodeUnknownSession)
	r.do(model.ActivateSession{ID: "s1"})
	if r.s.Archived || r.s.Plan == nil || len(r.s.Plan.Features) != 1 {
		t.Fatalf("activated session %+v lost its state", r.s)
	}
	r.wantNext("flowdeck flow plan approve")

	// An archived session no longer stands in the way of a new one.
	r.do(model.ResetSession{})
	old := r.s
	r.do(model.PlanStart{ID: "s2", Goal: "next"})
	if r.s == old || r.s.ID != "s2" || !old.Archived || old.ID != "s1" {
		t.Fatal("plan start over an archived session must create a new session and leave the old one alone")
	}

	none := newTestRig(t)
	// Flow's habit: resetting nothing is fine, and says so.
	if events, err := model.Decide(nil, model.ResetSession{}, model.Context{}); err != nil || len(events) != 0 {
		t.Fatalf("reset with no session: %v, %d events; want accepted, nothing stored", err, len(events))
	}
	if msg := model.Unchanged(model.ResetSession{}, nil); !strings.Contains(msg, "nothing to reset") {
		t.Fatalf("message %q", msg)
	}
	none.refuse(model.AddNote{Text: "x"}, model.CodeNoActiveSession)
	none.refuse(model.ActivateSession{ID: "s1"}, model.CodeUnknownSession)
}

func TestPlanSelect(t *testing.T) {
	features := []model.Feature{
		mkFeature("a"), mkFeature("b", "a"), blockedBy(mkFeature("c"), "b"), mkFeature("d"),
	}
	tests := []struct {
		name     string
		keep     []string
		code     string
		mentions []string
		want     string // statuses after an accepted selection
	}{
		{"keeps plan order", []string{"d", "b", "a"}, "", nil, "a=pending b=pending d=pending"},
		{"independent feature alone", []string{"d"}, "", nil, "d=pending"},
		{"missing depends_on", []string{"b", "d"}, model.CodeSelectionMissingDep, []string{"b", "a"}, ""},
		{"missing blocked_by", []string{"a", "c"}, model.CodeSelectionMissingDep, []string{"c", "b"}, ""},
		{"unknown id", []string{"a", "zz"}, model.CodeUnknownFeature, []string{"zz"}, ""},
		{"empty", nil, model.CodeInvalidArgument, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := planningRig(t, features...)
			if tt.code == "" {
				r.do(model.PlanSelect{FeatureIDs: tt.keep})
				if got := r.statuses(); got != tt.want {
					t.Fatalf("after select: %s, want %s", got, tt.want)
				}
				return
			}
			e := r.refuse(model.PlanSelect{FeatureIDs: tt.keep}, tt.code)
			wantMentions(t, e.Message, tt.mentions...)
		})
	}
	t.Run("only while planning", func(t *testing.T) {
		r := readyRig(t, features...)
		r.refuse(model.PlanSelect{FeatureIDs: []string{"a"}}, model.CodePlanNotEditable)
		r.do(model.RunStart{})
		r.refuse(model.PlanSelect{FeatureIDs: []string{"a"}}, model.CodePlanNotEditable)
		// replan_required returns the session to planning: narrowing works again.
		r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeReplanRequired})
		r.do(model.PlanSelect{FeatureIDs: []string{"a", "d"}})
		if got := r.statuses(); got != "a=pending d=pending" {
			t.Fatalf("after select: %s", got)
		}
	})
	t.Run("needs a plan", func(t *testing.T) {
		r := newTestRig(t)
		r.do(model.PlanStart{ID: "s1", Goal: "g"})
		r.refuse(model.PlanSelect{FeatureIDs: []string{"a"}}, model.CodeNoPlan)
	})
}

func TestPlanApprove(t *testing.T) {
	r := newTestRig(t)
	r.do(model.PlanStart{ID: "s1", Goal: "g"})
	r.refuse(model.PlanApprove{}, model.CodeNoPlan)
	r.do(model.PlanApply{Plan: mkPlan(mkFeature("a"), mkFeature("b", "a"))})
	r.do(model.PlanApprove{})
	r.wantSession(model.StatusReady, model.ApprovalApproved)
	if r.s.Timestamps.Approved == nil || !r.s.Timestamps.Approved.Equal(r.now) {
		t.Fatalf("approved timestamp %v, want %v", r.s.Timestamps.Approved, r.now)
	}
	r.refuse(model.PlanApprove{}, model.CodePlanAlreadyApproved)
	r.do(model.RunStart{})
	e := r.refuse(model.PlanApprove{}, model.CodePlanAlreadyApproved)
	if e.Recovery.NextAction != nil {
		t.Errorf("next_action %+v on a refusal whose next step needs evidence", e.Recovery.NextAction)
	}
	// After a replan the new plan needs approving again, before execution.
	r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeReplanRequired})
	r.do(model.PlanApprove{})
	r.wantSession(model.StatusReady, model.ApprovalApproved)
	r.finish("a")
	r.finish("b")
	r.refuse(model.PlanApprove{}, model.CodeSessionCompleted)
}

func TestRunStart(t *testing.T) {
	t.Run("refuses a completed session", func(t *testing.T) {
		r := readyRig(t, mkFeature("a"))
		r.finish("a")
		r.wantSession(model.StatusCompleted, model.ApprovalApproved)
		e := r.refuse(model.RunStart{}, model.CodeSessionCompleted)
		wantMentions(t, e.Message, "s1")
		r.refuse(model.RunStart{Feature: "a"}, model.CodeSessionCompleted)
	})
	t.Run("refuses an unapproved plan with approve as next action", func(t *testing.T) {
		r := planningRig(t, mkFeature("a"))
		e := r.refuse(model.RunStart{}, model.CodePlanNotApproved)
		if e.Recovery.NextAction == nil || strings.Join(e.Recovery.NextAction.Args, " ") != "flow plan approve" {
			t.Fatalf("next_action %+v, want flow plan approve", e.Recovery.NextAction)
		}
	})
	t.Run("refuses without session or plan", func(t *testing.T) {
		r := newTestRig(t)
		r.refuse(model.RunStart{}, model.CodeNoActiveSession)
		r.do(model.PlanStart{ID: "s1", Goal: "g"})
		r.refuse(model.RunStart{}, model.CodeNoPlan)
	})
	t.Run("feature_already_active", func(t *testing.T) {
		r := readyRig(t, mkFeature("a"), mkFeature("b"))
		r.do(model.RunStart{Feature: "a"})
		for _, a := range []model.RunStart{{}, {Feature: "b"}, {Feature: "a"}} {
			e := r.refuse(a, model.CodeFeatureAlreadyActive)
			wantMentions(t, e.Message, "a")
			if e.Recovery.NextAction != nil {
				t.Errorf("next_action %+v: the next step needs evidence, nothing is executable", e.Recovery.NextAction)
			}
			if !strings.Contains(e.Recovery.NextCommand, "validate a") {
				t.Errorf("next_command %q does not lead to finishing a", e.Recovery.NextCommand)
			}
		}
	})
	t.Run("feature_not_runnable names the unmet dependencies and changes nothing", func(t *testing.T) {
		r := readyRig(t, mkFeature("a"), mkFeature("b"), blockedBy(mkFeature("c", "a"), "b"), mkFeature("d", "c"))
		e := r.refuse(model.RunStart{Feature: "c"}, model.CodeFeatureNotRunnable)
		wantMentions(t, e.Message, "c", "a", "b")
		if e.Recovery.NextAction != nil {
			t.Errorf("next_action %+v for a feature that cannot run", e.Recovery.NextAction)
		}
		r.finish("a")
		e = r.refuse(model.RunStart{Feature: "c"}, model.CodeFeatureNotRunnable)
		if !strings.HasSuffix(e.Message, "waits for b") {
			t.Errorf("message %q should name only the unmet blocker b", e.Message)
		}
		e = r.refuse(model.RunStart{Feature: "d"}, model.CodeFeatureNotRunnable)
		wantMentions(t, e.Message, "d", "c")
	})
	t.Run("completed or blocked feature offers a reset", func(t *testing.T) {
		r := readyRig(t, mkFeature("a"), mkFeature("b"), mkFeature("c"))
		r.finish("a")
		e := r.refuse(model.RunStart{Feature: "a"}, model.CodeFeatureNotRunnable)
		if e.Recovery.NextAction == nil || strings.Join(e.Recovery.NextAction.Args, " ") != "flow reset feature a" {
			t.Fatalf("next_action %+v, want a reset of a", e.Recovery.NextAction)
		}
		r.do(model.RunStart{Feature: "b"})
		r.do(model.RunComplete{Feature: "b", Outcome: model.OutcomeBlocked})
		e = r.refuse(model.RunStart{Feature: "b"}, model.CodeFeatureNotRunnable)
		wantMentions(t, e.Message, "b", "blocked")
	})
	t.Run("unknown_feature", func(t *testing.T) {
		r := readyRig(t, mkFeature("a"), mkFeature("b"))
		e := r.refuse(model.RunStart{Feature: "zz"}, model.CodeUnknownFeature)
		wantMentions(t, e.Message, "zz")
		wantMentions(t, e.Recovery.Hint, "a", "b")
	})
	t.Run("auto-pick takes the first runnable in plan order", func(t *testing.T) {
		// Plan order, not level order: "late" has no dependencies but comes
		// after "b", which waits for "a".
		r := readyRig(t, mkFeature("b", "a"), mkFeature("a"), mkFeature("late"))
		ev := r.do(model.RunStart{})
		if ev[0].Type != model.EventFeatureStarted || ev[0].Feature != "a" {
			t.Fatalf("auto-pick started %+v, want a", ev[0])
		}
		if r.s.Execution.ActiveFeature != "a" || r.s.Status != model.StatusRunning || r.feature("a").StartedSeq != r.s.Seq {
			t.Fatalf("after start: active %q status %s", r.s.Execution.ActiveFeature, r.s.Status)
		}
		r.pass("a")
		if ev := r.do(model.RunStart{}); ev[0].Feature != "b" {
			t.Fatalf("second auto-pick started %s, want b", ev[0].Feature)
		}
	})
	t.Run("completes the session when every feature is completed", func(t *testing.T) {
		r := readyRig(t, mkFeature("a"), mkFeature("b"))
		r.finish("a")
		r.do(model.RunStart{Feature: "b"})
		r.do(model.RunComplete{Feature: "b", Outcome: model.OutcomeReplanRequired})
		r.do(model.PlanSelect{FeatureIDs: []string{"a"}})
		r.do(model.PlanApprove{})
		r.wantSession(model.StatusReady, model.ApprovalApproved)
		r.wantNext("flowdeck flow run start")
		ev := r.do(model.RunStart{})
		if len(ev) != 1 || ev[0].Type != model.EventSessionCompleted {
			t.Fatalf("events %v, want session_completed", eventTypes(ev))
		}
		r.wantSession(model.StatusCompleted, model.ApprovalApproved)
		if r.s.Timestamps.Completed == nil || !r.s.Timestamps.Completed.Equal(r.now) {
			t.Fatalf("completed timestamp %v", r.s.Timestamps.Completed)
		}
	})
	t.Run("blocks the session when nothing is runnable and says why", func(t *testing.T) {
		r := readyRig(t, mkFeature("a"), mkFeature("b", "a"), blockedBy(mkFeature("c"), "b"), mkFeature("free"))
		r.do(model.RunStart{Feature: "a"})
		r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeNeedsInput})
		r.wantSession(model.StatusBlocked, model.ApprovalApproved)
		r.finish("free") // still runnable while a is blocked
		r.wantSession(model.StatusReady, model.ApprovalApproved)

		e, ev := r.refuseRecorded(model.RunStart{}, model.CodeNoRunnableFeature, model.EventSessionBlocked)
		r.wantSession(model.StatusBlocked, model.ApprovalApproved)
		wantMentions(t, e.Message, "a is blocked", "b waits for a", "c waits for b")
		wantMentions(t, ev.Summary, "b waits for a")
		if e.Recovery.NextCommand != "flowdeck flow reset feature a" {
			t.Errorf("next_command %q, want a reset of the blocked feature", e.Recovery.NextCommand)
		}
		r.wantNext("flowdeck flow reset feature a")

		// Asking again while blocked refuses the same way but records nothing new.
		e2 := r.refuse(model.RunStart{}, model.CodeNoRunnableFeature)
		if e2.Message != e.Message {
			t.Errorf("second refusal %q differs from %q", e2.Message, e.Message)
		}
	})
}

func TestEvidenceAndReviewNeedTheActiveFeature(t *testing.T) {
	r := readyRig(t, mkFeature("a"), mkFeature("b"))
	actions := func(id string) []model.Action {
		return []model.Action{
			model.Validate{Feature: id, Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test"},
			model.ReviewFeature{Feature: id, Decision: model.ReviewApproved},
			model.RunComplete{Feature: id, Outcome: model.OutcomeCompleted},
		}
	}
	for _, a := range actions("a") {
		r.refuse(a, model.CodeFeatureNotActive)
	}
	for _, a := range actions("zz") {
		r.refuse(a, model.CodeUnknownFeature)
	}
	r.do(model.RunStart{Feature: "a"})
	for _, a := range actions("b") {
		e := r.refuse(a, model.CodeFeatureNotActive)
		wantMentions(t, e.Message, "b", "the active feature is a")
	}
}

func TestValidateRecordsEvidence(t *testing.T) {
	r := readyRig(t, mkFeature("a"))
	r.do(model.RunStart{})
	bad := []model.Validate{
		{Feature: "a", Status: "green", Scope: model.ScopeTargeted, Command: "go test"},
		{Feature: "a", Status: model.ValidationPassed, Scope: "everything", Command: "go test"},
		{Feature: "a", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "  "},
		{Feature: "a", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test", Source: "rumour"},
	}
	for _, a := range bad {
		r.refuse(a, model.CodeInvalidArgument)
	}
	r.do(model.Validate{Feature: "a", Status: model.ValidationPartial, Scope: model.ScopeTargeted, Command: "go test ./x", Summary: "2 skipped"})
	ev := r.s.Execution.LastValidation
	if ev == nil || ev.Source != model.SourceReported || ev.Status != model.ValidationPartial || ev.Feature != "a" ||
		ev.Seq != r.s.Seq || ev.Command != "go test ./x" || ev.Summary != "2 skipped" || ev.Actor != "tester" {
		t.Fatalf("last validation %+v", ev)
	}
	r.do(model.Validate{Feature: "a", Status: model.ValidationPassed, Scope: model.ScopeBroad, Command: "go test ./...", Source: model.SourceObserved, RunID: "run-7"})
	f := r.feature("a")
	if len(f.Validations) != 2 || f.Validations[1].Source != model.SourceObserved || f.Validations[1].RunID != "run-7" {
		t.Fatalf("validations %+v", f.Validations)
	}
}

func TestReviewsRecordDecisions(t *testing.T) {
	r := planningRig(t, mkFeature("a"))
	e := r.refuse(model.ReviewFinal{Decision: model.ReviewApproved}, model.CodePlanNotApproved)
	if e.Recovery.NextAction == nil {
		t.Error("an unapproved plan can be approved right now: next_action expected")
	}
	r.do(model.PlanApprove{})
	r.do(model.RunStart{})
	r.refuse(model.ReviewFeature{Feature: "a", Decision: "lgtm"}, model.CodeInvalidArgument)
	r.refuse(model.ReviewFinal{Decision: ""}, model.CodeInvalidArgument)

	r.do(model.ReviewFeature{Feature: "a", Decision: model.ReviewNeedsFix, Findings: []string{"  nil check missing ", "", "   "}})
	rv := r.s.Execution.LastReview
	if rv == nil || rv.Final || rv.Feature != "a" || rv.Decision != model.ReviewNeedsFix || rv.Seq != r.s.Seq ||
		len(rv.Findings) != 1 || rv.Findings[0] != "nil check missing" {
		t.Fatalf("last review %+v", rv)
	}
	if got := r.feature("a").Reviews; len(got) != 1 || got[0].Decision != model.ReviewNeedsFix {
		t.Fatalf("feature reviews %+v", got)
	}
	r.do(model.ReviewFinal{Decision: model.ReviewBlocked, Findings: []string{"docs missing"}})
	rv = r.s.Execution.LastReview
	if rv == nil || !rv.Final || rv.Feature != "" || rv.Decision != model.ReviewBlocked {
		t.Fatalf("last review after a final one %+v", rv)
	}
	if len(r.s.Execution.FinalReviews) != 1 || len(r.feature("a").Reviews) != 1 {
		t.Fatal("a final review must go to the session, not to the feature")
	}
}

func TestNotes(t *testing.T) {
	r := planningRig(t, mkFeature("a"))
	r.refuse(model.AddNote{Text: " \n "}, model.CodeInvalidArgument)
	r.do(model.AddNote{Text: "  first line\nsecond line  "})
	n := r.s.Notes[0]
	if n.Text != "first line\nsecond line" || n.Actor != "tester" || n.Seq != r.s.Seq || !n.At.Equal(r.now) {
		t.Fatalf("note %+v", n)
	}
	if h := r.s.Execution.History[len(r.s.Execution.History)-1]; strings.Contains(h.Summary, "\n") || !strings.Contains(h.Summary, "first line") {
		t.Fatalf("history summary %q should be the note's first line", h.Summary)
	}
}

func TestMaterializedListsAreBounded(t *testing.T) {
	r := readyRig(t, mkFeature("a"))
	total := 3*model.MaxNotes + 7
	for i := range total {
		r.do(model.AddNote{Text: "note " + strconv.Itoa(i)})
	}
	if r.s.NotesTotal != total {
		t.Fatalf("notes_total %d, want %d", r.s.NotesTotal, total)
	}
	if n := len(r.s.Notes); n < model.MaxNotes || n >= 2*model.MaxNotes {
		t.Fatalf("%d notes kept, want between %d and %d", n, model.MaxNotes, 2*model.MaxNotes-1)
	}
	if last := r.s.Notes[len(r.s.Notes)-1].Text; last != "note "+strconv.Itoa(total-1) {
		t.Fatalf("newest note %q lost", last)
	}
	if r.s.Execution.HistoryTotal != int(r.s.Seq) {
		t.Fatalf("history_total %d, want one per event (%d)", r.s.Execution.HistoryTotal, r.s.Seq)
	}
	if n := len(r.s.Execution.History); n < model.MaxHistory || n >= 2*model.MaxHistory {
		t.Fatalf("%d history items kept", n)
	}
	if h := r.s.Execution.History[len(r.s.Execution.History)-1]; h.Seq != r.s.Seq {
		t.Fatalf("newest history item %d, want %d", h.Seq, r.s.Seq)
	}

	// Evidence is bounded too, but the newest broad evidence survives: the
	// last feature's final gates need it.
	r.do(model.RunStart{})
	r.validate("a", model.ValidationPassed, model.ScopeBroad)
	for range 3 * model.MaxEvidencePerItem {
		r.validate("a", model.ValidationPassed, model.ScopeTargeted)
	}
	f := r.feature("a")
	if n := len(f.Validations); n > 2*model.MaxEvidencePerItem {
		t.Fatalf("%d validations kept", n)
	}
	if f.Validations[0].Scope != model.ScopeBroad {
		t.Fatalf("oldest kept evidence is %s, want the broad one", f.Validations[0].Scope)
	}
	r.review("a", model.ReviewApproved)
	r.do(model.ReviewFinal{Decision: model.ReviewApproved})
	r.do(model.RunComplete{Feature: "a", Outcome: model.OutcomeCompleted})
	r.wantSession(model.StatusCompleted, model.ApprovalApproved)
}

// Flow's habits for plan start: the same goal again changes nothing; another
// goal needs the session in progress archived first (a step of the same
// transaction, see Steps and StartReplaces).
func TestPlanStartHabits(t *testing.T) {
	r := newTestRig(t)
	r.do(model.PlanStart{ID: "s1", Goal: "Ship  it"})
	same := model.PlanStart{ID: "s2", Goal: "ship it"}
	if events, err := model.Decide(r.s, same, model.Context{}); err != nil || len(events) != 0 {
		t.Fatalf("same goal: %v, %d events", err, len(events))
	}
	if msg := model.Unchanged(same, r.s); !strings.Contains(msg, "s1") {
		t.Fatalf("message %q", msg)
	}
	if !model.StartReplaces(r.s, "another goal") || model.StartReplaces(r.s, "SHIP it") || model.StartReplaces(nil, "x") {
		t.Fatal("StartReplaces: only an in-progress session with another goal is replaced")
	}
	r.refuse(model.PlanStart{ID: "s2", Goal: "another goal"}, model.CodeSessionAlreadyActive)
	r.do(model.ResetSession{Reason: "replaced by session s2"})
	_, events, err := model.Execute(r.s, model.PlanStart{ID: "s2", Goal: "another goal", Replaces: "s1"}, model.Context{})
	if err != nil || len(events) != 1 || !strings.Contains(events[0].Summary, "replaces session s1") {
		t.Fatalf("start after archive: %v %+v", err, events)
	}
}

func TestDuplicateDependencyNamed(t *testing.T) {
	p := &model.Plan{Features: []model.Feature{mkFeature("a"), mkFeature("b", "a", "a", "a")}}
	err := model.ValidatePlan(p)
	e, ok := model.AsError(err)
	if !ok || e.Code != model.CodePlanDuplicateDependency || !strings.Contains(e.Message, "b -> a") {
		t.Fatalf("got %v", err)
	}
}

func TestNextActionRunsPlainVerificationAsWords(t *testing.T) {
	for cmd, want := range map[string]string{
		"go test ./auth/...":      "flowdeck run --feature a --scope targeted -- go test ./auth/...",
		"go test ./... | tee log": "flowdeck run --feature a --scope targeted -- sh -c 'go test ./... | tee log'",
		"CGO_ENABLED=0 go build":  "flowdeck run --feature a --scope targeted -- sh -c 'CGO_ENABLED=0 go build'",
		"pytest -k 'not slow'":    `flowdeck run --feature a --scope targeted -- sh -c 'pytest -k '\''not slow'\'''`,
		"make test && make lint":  "flowdeck run --feature a --scope targeted -- sh -c 'make test && make lint'",
	} {
		// b after a: a does not complete the session (that one validates broadly).
		r := readyRig(t, model.Feature{ID: "a", Title: "A", Verification: []string{cmd}}, model.Feature{ID: "b", Title: "B", DependsOn: []string{"a"}})
		r.do(model.RunStart{})
		if got := model.NextCommand(r.s); got != want {
			t.Errorf("%q: next %q, want %q", cmd, got, want)
		}
	}
}
