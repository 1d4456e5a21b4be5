package model_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// TestManualFlow drives one session by hand from plan start to completed with
// a final review, the way a person at the command line would, checking the
// state, timestamps and the suggested next command after every step.
func TestManualFlow(t *testing.T) {
	r := newTestRig(t)
	r.wantNext("flowdeck flow plan start GOAL")

	type step struct {
		action   model.Action
		status   model.SessionStatus
		approval model.Approval
		features string // statuses after the step
		next     string
	}
	const (
		validateTargeted = "flowdeck flow validate %s --status passed --scope targeted --command CMD"
		validateBroad    = "flowdeck flow validate %s --status passed --scope broad --command CMD"
		reviewFeature    = "flowdeck flow review %s --decision approved|needs_fix|blocked"
		reviewFinal      = "flowdeck flow review --final --decision approved|needs_fix|blocked"
		complete         = "flowdeck flow run complete %s --outcome completed"
		runStart         = "flowdeck flow run start"
	)
	plan := mkPlan(mkFeature("store"), mkFeature("cli", "store"))
	plan.Requirements = []string{"one binary"}
	plan.Decisions = []string{"bbolt"}
	passed := func(id string, scope model.Scope) model.Action {
		return model.Validate{Feature: id, Status: model.ValidationPassed, Scope: scope, Command: "go test ./..."}
	}
	approve := func(id string) model.Action {
		return model.ReviewFeature{Feature: id, Decision: model.ReviewApproved}
	}
	steps := []step{
		{model.PlanStart{ID: "cockpit", Goal: "build the cockpit"}, model.StatusPlanning, model.ApprovalPending, "", "flowdeck flow plan apply FILE"},
		{model.PlanApply{Plan: plan}, model.StatusPlanning, model.ApprovalPending, "store=pending cli=pending", "flowdeck flow plan approve"},
		{model.AddNote{Text: "approved after a read-through"}, model.StatusPlanning, model.ApprovalPending, "store=pending cli=pending", "flowdeck flow plan approve"},
		{model.PlanApprove{}, model.StatusReady, model.ApprovalApproved, "store=pending cli=pending", runStart},
		{model.RunStart{}, model.StatusRunning, model.ApprovalApproved, "store=in_progress cli=pending", fmt.Sprintf(validateTargeted, "store")},
		{passed("store", model.ScopeTargeted), model.StatusRunning, model.ApprovalApproved, "store=in_progress cli=pending", fmt.Sprintf(reviewFeature, "store")},
		{approve("store"), model.StatusRunning, model.ApprovalApproved, "store=in_progress cli=pending", fmt.Sprintf(complete, "store")},
		{model.RunComplete{Feature: "store", Outcome: model.OutcomeCompleted, Summary: "store done"}, model.StatusReady, model.ApprovalApproved, "store=completed cli=pending", runStart},
		// The feature that completes the session validates broadly first:
		// one review, then the final review (issue 23).
		{model.RunStart{}, model.StatusRunning, model.ApprovalApproved, "store=completed cli=in_progress", fmt.Sprintf(validateBroad, "cli")},
		{passed("cli", model.ScopeBroad), model.StatusRunning, model.ApprovalApproved, "store=completed cli=in_progress", fmt.Sprintf(reviewFeature, "cli")},
		{approve("cli"), model.StatusRunning, model.ApprovalApproved, "store=completed cli=in_progress", reviewFinal},
		{model.ReviewFinal{Decision: model.ReviewApproved, Findings: []string{"ship it"}}, model.StatusRunning, model.ApprovalApproved, "store=completed cli=in_progress", fmt.Sprintf(complete, "cli")},
		{model.RunComplete{Feature: "cli", Outcome: model.OutcomeCompleted}, model.StatusCompleted, model.ApprovalApproved, "store=completed cli=completed", "flowdeck flow plan start GOAL"},
	}
	var approvedAt, completedAt time.Time
	for i, st := range steps {
		events := r.do(st.action)
		if r.s.Status != st.status || r.s.Approval != st.approval {
			t.Fatalf("step %d (%s): session %s/%s, want %s/%s", i, st.action.Name(), r.s.Status, r.s.Approval, st.status, st.approval)
		}
		if st.features != "" {
			if got := r.statuses(); got != st.features {
				t.Fatalf("step %d (%s): features %s, want %s", i, st.action.Name(), got, st.features)
			}
		}
		if got := model.NextCommand(r.s); got != st.next {
			t.Fatalf("step %d (%s): NextCommand %q, want %q", i, st.action.Name(), got, st.next)
		}
		if !r.s.Timestamps.Created.Equal(baseTime.Add(time.Minute)) || !r.s.Timestamps.Updated.Equal(r.now) {
			t.Fatalf("step %d: timestamps %+v", i, r.s.Timestamps)
		}
		if r.s.Seq != events[len(events)-1].Seq || r.s.Execution.HistoryTotal != int(r.s.Seq) {
			t.Fatalf("step %d: seq %d, history %d", i, r.s.Seq, r.s.Execution.HistoryTotal)
		}
		if _, ok := st.action.(model.PlanApprove); ok {
			approvedAt = r.now
		}
		if i == len(steps)-1 {
			completedAt = r.now
		}
		switch {
		case r.s.Approval == model.ApprovalApproved && (r.s.Timestamps.Approved == nil || !r.s.Timestamps.Approved.Equal(approvedAt)):
			t.Fatalf("step %d: approved timestamp %v, want %v", i, r.s.Timestamps.Approved, approvedAt)
		case r.s.Approval == model.ApprovalPending && r.s.Timestamps.Approved != nil:
			t.Fatalf("step %d: approved timestamp set before approval", i)
		case (r.s.Status == model.StatusCompleted) != (r.s.Timestamps.Completed != nil):
			t.Fatalf("step %d: completed timestamp %v with status %s", i, r.s.Timestamps.Completed, r.s.Status)
		}
	}
	if !r.s.Timestamps.Completed.Equal(completedAt) {
		t.Fatalf("completed at %v, want %v", r.s.Timestamps.Completed, completedAt)
	}
	x := r.s.Execution
	if x.ActiveFeature != "" || x.LastFeature != "cli" || x.LastOutcome != model.OutcomeCompleted ||
		x.LastValidation == nil || x.LastValidation.Scope != model.ScopeBroad ||
		x.LastReview == nil || !x.LastReview.Final || len(x.FinalReviews) != 1 {
		t.Fatalf("final execution state %+v", x)
	}
	if f := r.feature("store"); f.OutcomeNote != "store done" || len(f.Validations) != 1 || len(f.Reviews) != 1 {
		t.Fatalf("store %+v", f)
	}
	want := []model.EventType{
		model.EventSessionStarted, model.EventPlanApplied, model.EventNoteAdded, model.EventPlanApproved,
		model.EventFeatureStarted, model.EventValidationRecorded, model.EventReviewRecorded, model.EventFeatureCompleted,
		model.EventFeatureStarted, model.EventValidationRecorded,
		model.EventReviewRecorded, model.EventReviewRecorded, model.EventFeatureCompleted, model.EventSessionCompleted,
	}
	got := historyTypes(r.s)
	if len(got) != len(want) {
		t.Fatalf("history %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] || r.s.Execution.History[i].Seq != uint64(i+1) || r.s.Execution.History[i].Actor != "tester" {
			t.Fatalf("history[%d] = %+v, want %s", i, r.s.Execution.History[i], want[i])
		}
	}
	for _, id := range []string{"store", "cli"} {
		if st := model.StateOf(r.s, r.feature(id)); st != model.StateCompleted {
			t.Errorf("StateOf(%s) = %s", id, st)
		}
	}
	// A completed session accepts notes and a reset, and nothing that would
	// run work.
	r.do(model.AddNote{Text: "retro: went fine"})
	r.refuse(model.RunStart{}, model.CodeSessionCompleted)
	r.refuse(model.PlanApply{Plan: plan}, model.CodeSessionCompleted)
	r.refuse(model.ReviewFinal{Decision: model.ReviewApproved}, model.CodeSessionCompleted)
	r.refuse(model.Validate{Feature: "cli", Status: model.ValidationPassed, Scope: model.ScopeBroad, Command: "x"}, model.CodeSessionCompleted)
}
