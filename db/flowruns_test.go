package db

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

func flowStore(t *testing.T) *Store {
	t.Helper()
	st, err := Open(filepath.Join(t.TempDir(), ".flow", "flowdeck.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func newRun(t *testing.T, st *Store) *model.FlowRun {
	t.Helper()
	id, err := st.ReserveFlowRunID("demo flow")
	if err != nil || !strings.HasPrefix(id, "demo-flow-") {
		t.Fatalf("id %q %v", id, err)
	}
	r, err := st.CreateFlowRun(&model.FlowRun{ID: id, Flow: "demo", Text: "src", MaxSteps: 10}, "a", map[string]any{"x": 1.0}, "t", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The materialized run is what replaying its event log gives.
func TestFlowRunEventsReplayToTheStoredRun(t *testing.T) {
	st := flowStore(t)
	r := newRun(t, st)
	out := "hello"
	exit := 0
	next := 1
	end := -1
	st.AppendFlowEvents(r.ID, "t", time.Now(),
		model.FlowEvent{Type: model.FlowEvActionStarted, Step: "a", Action: 0, Kind: "exec", Label: "exec block 1"},
		model.FlowEvent{Type: model.FlowEvActionFinished, Step: "a", Action: 0, Kind: "exec", RunID: "r1", Exit: &exit, Output: &out, Vars: map[string]any{"y": "z"}},
		model.FlowEvent{Type: model.FlowEvStepFinished, Step: "a", Next: &next, NextStep: "b", Outcome: "done"})
	r, err := st.AppendFlowEvents(r.ID, "t", time.Now(), model.FlowEvent{Type: model.FlowEvStepFinished, Step: "b", StepIndex: 1, Next: &end, Outcome: "done"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != model.FlowCompleted || r.StepsRun != 2 || len(r.History) != 2 || r.History[0].Runs[0] != "r1" || r.Vars["y"] != "z" {
		t.Fatalf("run: %+v", r)
	}
	events, _ := st.FlowEvents(r.ID, 1, 0)
	replay := &model.FlowRun{ID: r.ID, Vars: map[string]any{}}
	for _, e := range events {
		if err := model.ApplyFlowEvent(replay, e); err != nil {
			t.Fatal(err)
		}
	}
	if replay.Status != r.Status || replay.Seq != r.Seq || len(replay.History) != len(r.History) || replay.Vars["x"] != 1.0 {
		t.Fatalf("replay %+v differs from %+v", replay, r)
	}
	if _, err := st.AppendFlowEvents(r.ID, "t", time.Now(), model.FlowEvent{Type: model.FlowEvResumed}); err == nil {
		t.Fatal("an event was appended to a completed run")
	}
	list, _ := st.FlowRuns()
	if len(list) != 1 || list[0].Text != "" {
		t.Fatalf("list %+v", list)
	}
}

func TestDecisionIsResolvedOnceUnderConcurrency(t *testing.T) {
	st := flowStore(t)
	r := newRun(t, st)
	d, run, err := st.CreateDecision(&model.Decision{FlowRun: r.ID, Step: "a", Kind: model.DecisionChoice, Prompt: "?",
		Options: []model.DecisionOption{{ID: "yes"}, {ID: "no"}}, Action: 1}, "t", time.Now())
	if err != nil || d.ID != "d1" || run.Status != model.FlowWaiting || run.Decision != "d1" {
		t.Fatalf("create: %v %+v %+v", err, d, run)
	}
	var wg sync.WaitGroup
	wins := make(chan string, 8)
	for i := range 8 {
		wg.Go(func() {
			opt := []string{"yes", "no"}[i%2]
			if _, _, err := st.ResolveDecision("d1", model.Resolution{Option: opt, Actor: opt, At: time.Now()}); err == nil {
				wins <- opt
			} else if me, ok := model.AsError(err); !ok || me.Code != model.CodeDecisionNotPending || !strings.Contains(me.Message, "already resolved") {
				t.Errorf("loser got %v", err)
			}
		})
	}
	wg.Wait()
	close(wins)
	if len(wins) != 1 {
		t.Fatalf("%d resolutions won", len(wins))
	}
	run, _ = st.FlowRun(r.ID)
	if run.Status != model.FlowRunning || run.Decision != "" || run.Action != 2 {
		t.Fatalf("run after resolution: %+v", run)
	}
	if _, _, err := st.ResolveDecision("d9", model.Resolution{}); err == nil {
		t.Fatal("an unknown decision resolved")
	}
}

func TestDecisionExpiry(t *testing.T) {
	st := flowStore(t)
	r := newRun(t, st)
	past := time.Now().Add(-time.Second)
	st.CreateDecision(&model.Decision{FlowRun: r.ID, Kind: model.DecisionChoice, Options: []model.DecisionOption{{ID: "a"}, {ID: "b"}}, Fallback: "b", Deadline: &past}, "t", time.Now())
	d, err := st.ExpireDecision("d1", time.Now())
	if err != nil || d.Status != model.DecisionResolved || !d.Resolution.Timeout || d.Resolution.Option != "b" {
		t.Fatalf("fallback: %v %+v", err, d)
	}
	r2 := newRun(t, st)
	st.CreateDecision(&model.Decision{FlowRun: r2.ID, Step: "s", Kind: model.DecisionChoice, Deadline: &past}, "t", time.Now())
	if d, err = st.ExpireDecision("d2", time.Now()); err != nil || d.Status != model.DecisionExpired {
		t.Fatalf("expire: %v %+v", err, d)
	}
	run, _ := st.FlowRun(r2.ID)
	if run.Status != model.FlowFailed || !strings.Contains(run.Error, "timed out") {
		t.Fatalf("run after expiry: %+v", run)
	}
	if pending, _ := st.Decisions(true); len(pending) != 0 {
		t.Fatalf("pending: %+v", pending)
	}
}
