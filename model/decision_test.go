package model_test

import (
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// A decision resolves once, with one of its options; the run continues
// after the decision's action, at it again for retry, at SkipTo for skip.
func TestDecisionResolve(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d := &model.Decision{ID: "d3", FlowRun: "demo-1", Kind: model.DecisionInterrupted, Status: model.DecisionPending,
		Action: 2, SkipTo: 5, Options: []model.DecisionOption{{ID: "retry"}, {ID: "skip"}, {ID: "cancel"}}}
	err := d.Resolve(model.Resolution{Option: "later", Actor: "ann", At: at})
	if e, ok := model.AsError(err); !ok || e.Code != model.CodeUnknownDecisionOption || !strings.Contains(e.Message, "retry, skip, cancel") {
		t.Fatalf("unknown option: %v", err)
	}
	for _, c := range []struct {
		option string
		next   int
	}{{"retry", 2}, {"skip", 5}, {"cancel", 3}} {
		d := *d
		if err := d.Resolve(model.Resolution{Option: c.option, Actor: "ann", At: at}); err != nil {
			t.Fatal(err)
		}
		run := &model.FlowRun{ID: "demo-1", Status: model.FlowInterrupted, Decision: "d3", StepIndex: 1}
		ev, ok := d.ResolvedEvent(run)
		if !ok || ev.Type != model.FlowEvDecisionResolved || ev.NewAction != c.next || ev.Kind != "interrupted" {
			t.Errorf("%s: %+v %v", c.option, ev, ok)
		}
		if _, ok := d.ResolvedEvent(&model.FlowRun{Status: model.FlowCancelled, Decision: "d3"}); ok {
			t.Errorf("%s: event for an ended run", c.option)
		}
		err := d.Resolve(model.Resolution{Option: "retry", Actor: "bob", At: at})
		if e, ok := model.AsError(err); !ok || e.Code != model.CodeDecisionNotPending || !strings.Contains(e.Message, `"`+c.option+`" by ann`) {
			t.Errorf("second resolution: %v", err)
		}
	}
}

// A decision falls due at its deadline; one with no fallback fails its run.
func TestDecisionDue(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d := &model.Decision{ID: "d1", Step: "ask", Status: model.DecisionPending, Deadline: &at}
	if d.Due(at.Add(-time.Second)) || !d.Due(at) {
		t.Fatal("due")
	}
	ev, ok := d.ExpiredEvent(&model.FlowRun{Status: model.FlowWaiting})
	if !ok || ev.Type != model.FlowEvFailed || !strings.Contains(ev.Error, "timed out") {
		t.Fatalf("%+v", ev)
	}
	if ev := d.CreatedEvent(&model.FlowRun{}); ev.Type != model.FlowEvDecisionCreated {
		t.Fatalf("created: %s", ev.Type)
	}
}
