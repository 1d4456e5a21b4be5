package model_test

import (
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// How a run reads depends on whether a process executes it and whether a
// pause was asked for; a stored status otherwise reads as itself.
func TestFlowStateOf(t *testing.T) {
	for _, c := range []struct {
		status    model.FlowStatus
		pause     bool
		executing bool
		want      model.FlowState
	}{
		{model.FlowRunning, false, true, model.FlowStateRunning},
		{model.FlowRunning, true, true, model.FlowStatePausing},
		{model.FlowRunning, false, false, model.FlowStateInterrupted},
		{model.FlowInterrupted, true, false, model.FlowStatePaused},
		{model.FlowInterrupted, false, false, model.FlowStateInterrupted},
		{model.FlowWaiting, false, true, model.FlowStateWaiting},
		{model.FlowRefused, false, false, model.FlowStateRefused},
	} {
		r := &model.FlowRun{Status: c.status, PauseRequested: c.pause}
		if got := model.FlowStateOf(r, c.executing); got != c.want {
			t.Errorf("%s pause=%v executing=%v: %s, want %s", c.status, c.pause, c.executing, got, c.want)
		}
	}
	if !model.FlowStateCancelled.Ended() || model.FlowStatePaused.Ended() {
		t.Error("Ended")
	}
}

// An ended run takes no more events, with the refusal naming the run.
func TestApplyFlowEventEnded(t *testing.T) {
	r := &model.FlowRun{ID: "demo-1", Status: model.FlowCompleted}
	err := model.ApplyFlowEvent(r, model.FlowEvent{Type: model.FlowEvResumed})
	if e, ok := err.(model.ErrFlowRunEnded); !ok || e.ID != "demo-1" || e.Status != model.FlowCompleted {
		t.Fatalf("got %v", err)
	}
}
