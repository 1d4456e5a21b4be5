package model_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

var propertySeed = flag.Uint64("model.seed", 0, "seed for TestRandomActionsReplay (0: a fixed seed plus one from the clock)")

// TestRandomActionsReplay executes 1,000 random actions, valid and invalid,
// and checks the invariants after each one and that replaying the event log
// rebuilds exactly the session that execution produced.
func TestRandomActionsReplay(t *testing.T) {
	seeds := []uint64{1, uint64(time.Now().UnixNano())}
	if *propertySeed != 0 {
		seeds = []uint64{*propertySeed}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Logf("seed %d (rerun with: go test ./model/ -run TestRandomActionsReplay -model.seed=%d)", seed, seed)
			w := newWalker(t, seed)
			for step := range 1000 {
				w.step(step)
			}
			w.checkReplay()
			t.Logf("seed %d: %d sessions, %d events, %d refusals, events by type: %v", seed, w.sessions, w.total, w.refused, w.seen)
			// With the fixed seed the walk is deterministic: make sure it
			// went everywhere, so that the invariants were checked there.
			if seed == 1 {
				for _, typ := range allEventTypes {
					if w.seen[typ] == 0 {
						t.Errorf("seed 1 never produced %s: the walk does not cover the model", typ)
					}
				}
			}
		})
	}
}

var allEventTypes = []model.EventType{
	model.EventSessionStarted, model.EventPlanApplied, model.EventPlanSelected, model.EventPlanApproved,
	model.EventFeatureStarted, model.EventValidationRecorded, model.EventReviewRecorded, model.EventFeatureCompleted,
	model.EventCompletionRejected, model.EventReplanRequired, model.EventFeatureBlocked, model.EventSessionCompleted,
	model.EventSessionBlocked, model.EventFeaturesReset, model.EventSessionArchived, model.EventSessionActivated,
	model.EventNoteAdded,
}

type walker struct {
	t        *testing.T
	seed     uint64
	rng      *rand.Rand
	s        *model.Session
	log      []model.Event // events of the current session
	now      time.Time
	sessions int
	total    int
	refused  int
	seen     map[model.EventType]int
}

func newWalker(t *testing.T, seed uint64) *walker {
	return &walker{t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), now: baseTime, seen: map[model.EventType]int{}}
}

func (w *walker) fatalf(step int, format string, args ...any) {
	w.t.Helper()
	w.t.Fatalf("seed %d, step %d: %s", w.seed, step, fmt.Sprintf(format, args...))
}

var walkIDs = []string{"a", "b", "c", "d", "e", "zz", "Bad"}

func (w *walker) pick(xs ...string) string { return xs[w.rng.IntN(len(xs))] }

// featureID picks mostly the active feature or a plan feature, sometimes an
// unknown or invalid id.
func (w *walker) featureID() string {
	if w.s != nil && w.s.Execution.ActiveFeature != "" && w.rng.IntN(2) == 0 {
		return w.s.Execution.ActiveFeature
	}
	return w.pick(walkIDs...)
}

// randomPlan is usually a valid DAG over some of a..e, sometimes broken.
func (w *walker) randomPlan() model.Plan {
	n := 1 + w.rng.IntN(5)
	p := model.Plan{Summary: "random", Features: randomDAG(w.rng, walkIDs[:n], 3, 3)}
	if w.rng.IntN(4) == 0 {
		p.Completion.MinCompletedFeatures = w.rng.IntN(n + 1)
	}
	switch w.rng.IntN(12) {
	case 0:
		p.Features = nil
	case 1:
		p.Features[0].DependsOn = append(p.Features[0].DependsOn, p.Features[n-1].ID) // cycle (or self)
	case 2:
		p.Features = append(p.Features, p.Features[0]) // duplicate
	case 3:
		p.Features[0].BlockedBy = []string{"ghost"}
	case 4:
		p.Features[0].ID = "Bad"
	case 5:
		p.Completion.MinCompletedFeatures = -1
	}
	return p
}

func (w *walker) randomAction() model.Action {
	status := []model.ValidationStatus{model.ValidationPassed, model.ValidationPassed, model.ValidationFailed, model.ValidationPartial, "bogus"}
	scope := []model.Scope{model.ScopeTargeted, model.ScopeBroad, model.ScopeBroad, ""}
	decision := []model.ReviewDecision{model.ReviewApproved, model.ReviewApproved, model.ReviewNeedsFix, model.ReviewBlocked, "meh"}
	outcome := []model.Outcome{model.OutcomeCompleted, model.OutcomeCompleted, model.OutcomeReplanRequired, model.OutcomeBlocked, model.OutcomeNeedsInput, ""}
	switch w.rng.IntN(20) {
	case 0:
		return model.PlanStart{ID: w.pick("s1", "s2", "Bad ID"), Goal: w.pick("goal", " ")}
	case 1:
		return model.PlanApply{Plan: w.randomPlan()}
	case 2:
		var keep []string
		if w.s != nil && w.s.Plan != nil && w.rng.IntN(2) == 0 {
			// a selection closed under dependencies
			f := w.s.Plan.Features[w.rng.IntN(len(w.s.Plan.Features))]
			keep = append(model.Upstream(w.s.Plan.Features, f.ID), f.ID)
		} else {
			for _, id := range walkIDs[:5] {
				if w.rng.IntN(2) == 0 {
					keep = append(keep, id)
				}
			}
		}
		return model.PlanSelect{FeatureIDs: keep}
	case 3, 4:
		return model.PlanApprove{}
	case 5, 6, 7:
		if w.rng.IntN(2) == 0 {
			return model.RunStart{}
		}
		return model.RunStart{Feature: w.featureID()}
	case 8, 9, 10:
		return model.Validate{
			Feature: w.featureID(), Status: status[w.rng.IntN(len(status))], Scope: scope[w.rng.IntN(len(scope))],
			Command: w.pick("go test ./...", "make check", ""),
		}
	case 11, 12:
		return model.ReviewFeature{Feature: w.featureID(), Decision: decision[w.rng.IntN(len(decision))], Findings: []string{w.pick("", "nit")}}
	case 13:
		return model.ReviewFinal{Decision: decision[w.rng.IntN(len(decision))]}
	case 14, 15:
		return model.RunComplete{Feature: w.featureID(), Outcome: outcome[w.rng.IntN(len(outcome))], Summary: "done"}
	case 16:
		return model.ResetFeature{Feature: w.featureID()}
	case 17:
		if w.rng.IntN(2) == 0 {
			return model.ResetSession{}
		}
		id := w.pick("s1", "nope", "Not Valid")
		if w.s != nil && w.rng.IntN(3) > 0 {
			id = w.s.ID
		}
		return model.ActivateSession{ID: id}
	default:
		switch w.rng.IntN(3) {
		case 0: // a crashed worker, and its retry
			return model.RunInterrupt{Feature: w.featureID(), Summary: w.pick("", "exit 137")}
		case 1:
			return model.RunResume{Feature: w.featureID()}
		}
		return model.AddNote{Text: w.pick("note", "", "line one\nline two")}
	}
}

// plausibleAction is something a person or agent might well do in the
// session's current state, right or wrong.
func (w *walker) plausibleAction() model.Action {
	s := w.s
	if s == nil || s.Plan == nil || s.Archived {
		return w.randomAction()
	}
	someID := func() string { return s.Plan.Features[w.rng.IntN(len(s.Plan.Features))].ID }
	switch s.Status {
	case model.StatusPlanning:
		switch w.rng.IntN(3) {
		case 0:
			id := someID()
			return model.PlanSelect{FeatureIDs: append(model.Upstream(s.Plan.Features, id), id)}
		case 1:
			return model.PlanApprove{}
		}
		return model.PlanApply{Plan: w.randomPlan()}
	case model.StatusReady, model.StatusBlocked:
		switch w.rng.IntN(4) {
		case 0:
			return model.RunStart{Feature: someID()}
		case 1:
			return model.ResetFeature{Feature: someID()}
		}
		// What an agent does whatever NextCommand says: this is how a
		// session finds out that it is blocked.
		return model.RunStart{}
	case model.StatusRunning:
		id := s.Execution.ActiveFeature
		switch w.rng.IntN(6) {
		case 0, 1:
			return model.Validate{Feature: id, Status: []model.ValidationStatus{model.ValidationPassed, model.ValidationFailed}[w.rng.IntN(2)],
				Scope: []model.Scope{model.ScopeTargeted, model.ScopeBroad}[w.rng.IntN(2)], Command: "go test ./..."}
		case 2:
			return model.ReviewFeature{Feature: id, Decision: []model.ReviewDecision{model.ReviewApproved, model.ReviewNeedsFix, model.ReviewBlocked}[w.rng.IntN(3)]}
		case 3:
			return model.ReviewFinal{Decision: []model.ReviewDecision{model.ReviewApproved, model.ReviewNeedsFix}[w.rng.IntN(2)]}
		case 4:
			return model.RunComplete{Feature: id, Outcome: model.OutcomeCompleted}
		}
		return model.RunComplete{Feature: id, Outcome: []model.Outcome{model.OutcomeReplanRequired, model.OutcomeBlocked, model.OutcomeNeedsInput}[w.rng.IntN(3)]}
	}
	return model.ResetFeature{Feature: someID()}
}

// guidedAction follows NextCommand, the way an obedient agent would. Every
// command NextCommand suggests must be accepted when followed.
func (w *walker) guidedAction(step int) model.Action {
	next := model.NextCommand(w.s)
	f := strings.Fields(strings.TrimPrefix(next, "flowdeck flow "))
	switch {
	case next == "flowdeck flow plan start GOAL":
		return model.PlanStart{ID: fmt.Sprintf("s%d", w.sessions+1), Goal: "goal"}
	case next == "flowdeck flow plan apply FILE":
		for {
			p := w.randomPlan()
			if model.ValidatePlan(&p) == nil && p.Completion.MinCompletedFeatures >= 0 {
				return model.PlanApply{Plan: p}
			}
		}
	case next == "flowdeck flow plan approve":
		return model.PlanApprove{}
	case next == "flowdeck flow run start":
		return model.RunStart{}
	case next == "flowdeck flow status":
		return model.AddNote{Text: "checked the status"}
	case len(f) == 8 && f[0] == "validate" && f[2] == "--status" && f[4] == "--scope":
		return model.Validate{Feature: f[1], Status: model.ValidationStatus(f[3]), Scope: model.Scope(f[5]), Command: "go test ./..."}
	case len(f) == 4 && f[0] == "review" && f[1] == "--final":
		return model.ReviewFinal{Decision: model.ReviewApproved}
	case len(f) == 4 && f[0] == "review":
		return model.ReviewFeature{Feature: f[1], Decision: model.ReviewApproved}
	case len(f) == 5 && f[0] == "run" && f[1] == "complete":
		return model.RunComplete{Feature: f[2], Outcome: model.Outcome(f[4])}
	case len(f) == 3 && f[0] == "reset" && f[1] == "feature":
		return model.ResetFeature{Feature: f[2]}
	case len(f) == 3 && f[0] == "run" && f[1] == "resume":
		return model.RunResume{Feature: f[2]}
	}
	w.fatalf(step, "NextCommand %q is not a command the walker knows", next)
	return nil
}

func (w *walker) step(step int) {
	w.t.Helper()
	// A third of the steps follow NextCommand, a third do something that
	// makes sense in the current state, a third anything at all.
	var a model.Action
	guided := false
	switch w.rng.IntN(3) {
	case 0:
		a, guided = w.guidedAction(step), true
	case 1:
		a = w.plausibleAction()
	default:
		a = w.randomAction()
	}
	w.now = w.now.Add(time.Duration(1+w.rng.IntN(90)) * time.Second)
	c := model.Context{Now: w.now, Actor: w.pick("human", "agent")}

	// Decide is pure: it must not touch the session it looks at. (Checked
	// on every fourth step: the JSON encoding is most of the test's cost.)
	purity := w.s != nil && step%4 == 0
	var before string
	if purity {
		before = sessionJSON(w.t, w.s)
	}
	decided, derr := model.Decide(w.s, a, c)
	if purity && sessionJSON(w.t, w.s) != before {
		w.fatalf(step, "Decide(%s) mutated the session", a.Name())
	}

	prev := w.s
	s, events, err := model.Execute(w.s, a, c)
	if (err == nil) != (derr == nil) || len(events) != len(decided) {
		w.fatalf(step, "Execute and Decide disagree on %s: %v/%v, %d/%d events", a.Name(), err, derr, len(events), len(decided))
	}
	if guided && err != nil {
		w.fatalf(step, "following NextCommand %q (%s %+v) was refused: %v", model.NextCommand(prev), a.Name(), a, err)
	}
	if _, ok := a.(model.PlanStart); ok && len(events) > 0 {
		if prev != nil {
			w.checkReplay()
		}
		if s == prev {
			w.fatalf(step, "plan start reused the old session")
		}
		w.log = nil
		w.sessions++
	}
	if err != nil {
		w.refused++
		w.checkRefusal(step, s, a, err, events)
	} else if len(events) == 0 && model.Unchanged(a, prev) == "" {
		w.fatalf(step, "%s accepted without an event", a.Name())
	}
	for _, e := range events {
		w.seen[e.Type]++
		if want := uint64(len(w.log) + 1); e.Seq != want {
			w.fatalf(step, "event %s has seq %d, want %d", e.Type, e.Seq, want)
		}
		if !e.At.Equal(w.now) || e.Actor != c.Actor || e.Session != s.ID {
			w.fatalf(step, "event %+v does not carry the action's clock, actor and session", e)
		}
		w.log = append(w.log, e)
	}
	w.total += len(events)
	w.s = s
	if w.s != nil {
		w.checkInvariants(step)
	}
	if step%100 == 99 && w.s != nil {
		w.checkReplay()
	}
}

func (w *walker) checkRefusal(step int, s *model.Session, a model.Action, err error, events []model.Event) {
	w.t.Helper()
	e, ok := model.AsError(err)
	if !ok {
		w.fatalf(step, "%s: error %v is not a *model.Error", a.Name(), err)
	}
	checkErrorShape(w.t, s, e)
	switch {
	case len(events) == 0:
	case len(events) == 1 && events[0].Type == model.EventCompletionRejected && events[0].Code == e.Code:
	case len(events) == 1 && events[0].Type == model.EventSessionBlocked && e.Code == model.CodeNoRunnableFeature:
	default:
		w.fatalf(step, "%s refused with %s but recorded %v", a.Name(), e.Code, eventTypes(events))
	}
}

func (w *walker) checkInvariants(step int) {
	w.t.Helper()
	s := w.s
	if s.Seq != uint64(len(w.log)) || s.Execution.HistoryTotal != len(w.log) {
		w.fatalf(step, "seq %d, history total %d, %d events", s.Seq, s.Execution.HistoryTotal, len(w.log))
	}
	if n := len(s.Execution.History); n == 0 || n >= 2*model.MaxHistory || s.Execution.History[n-1].Seq != s.Seq {
		w.fatalf(step, "history of %d items does not end at seq %d", n, s.Seq)
	}
	if (s.Approval == model.ApprovalApproved) != (s.Timestamps.Approved != nil) {
		w.fatalf(step, "approval %s with approved timestamp %v", s.Approval, s.Timestamps.Approved)
	}
	if (s.Status == model.StatusCompleted) != (s.Timestamps.Completed != nil) {
		w.fatalf(step, "status %s with completed timestamp %v", s.Status, s.Timestamps.Completed)
	}
	if s.Approval == model.ApprovalPending && s.Status != model.StatusPlanning {
		w.fatalf(step, "unapproved session in status %s", s.Status)
	}
	if (s.Status == model.StatusRunning) != (s.Execution.ActiveFeature != "") {
		w.fatalf(step, "status %s with active feature %q", s.Status, s.Execution.ActiveFeature)
	}
	if s.Plan == nil {
		if s.Execution.ActiveFeature != "" {
			w.fatalf(step, "active feature without a plan")
		}
		return
	}
	if err := model.ValidatePlan(s.Plan); err != nil {
		w.fatalf(step, "the stored plan became invalid: %v", err)
	}
	var inProgress []string
	for _, f := range s.Plan.Features {
		if f.Status == model.FeatureInProgress {
			inProgress = append(inProgress, f.ID)
		}
		if f.Status == model.FeatureCompleted || f.Status == model.FeatureInProgress {
			if waiting := model.Waiting(s.Plan, f); len(waiting) > 0 {
				w.fatalf(step, "%s is %s while it waits for %v", f.ID, f.Status, waiting)
			}
		}
		if f.Interrupted != nil && (f.Status != model.FeatureInProgress || f.Interrupted.Seq <= f.StartedSeq) {
			w.fatalf(step, "%s is %s, started at %d, with an interruption %+v", f.ID, f.Status, f.StartedSeq, f.Interrupted)
		}
		for i := 1; i < len(f.Validations); i++ {
			if f.Validations[i].Seq <= f.Validations[i-1].Seq {
				w.fatalf(step, "%s: evidence out of order", f.ID)
			}
		}
	}
	switch {
	case len(inProgress) > 1:
		w.fatalf(step, "several features in progress: %v", inProgress)
	case len(inProgress) == 1 && inProgress[0] != s.Execution.ActiveFeature:
		w.fatalf(step, "%s in progress but the active feature is %q", inProgress[0], s.Execution.ActiveFeature)
	case len(inProgress) == 0 && s.Execution.ActiveFeature != "":
		w.fatalf(step, "active feature %q is not in progress", s.Execution.ActiveFeature)
	}
	if s.Status == model.StatusCompleted && s.Plan.CompletedCount() < s.Plan.Required() {
		w.fatalf(step, "session completed with %d of %d required features", s.Plan.CompletedCount(), s.Plan.Required())
	}
}

func (w *walker) checkReplay() {
	w.t.Helper()
	if len(w.log) == 0 {
		return
	}
	assertReplayEqual(w.t, w.log, w.s)
}
