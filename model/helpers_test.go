package model_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// baseTime is the fixed clock every test starts from; testRig advances it by
// one minute per action.
var baseTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// randomDAG is one feature per id, each depending on earlier ones only (so
// acyclic): an edge with chance 1/edge, a blocked_by one for 1/blocked of
// those, else depends_on. The property walks share it.
func randomDAG(rng *rand.Rand, ids []string, edge, blocked int) []model.Feature {
	out := make([]model.Feature, 0, len(ids))
	for i, id := range ids {
		f := mkFeature(id)
		for _, d := range ids[:i] {
			if rng.IntN(edge) == 0 {
				if rng.IntN(blocked) == 0 {
					f.BlockedBy = append(f.BlockedBy, d)
				} else {
					f.DependsOn = append(f.DependsOn, d)
				}
			}
		}
		out = append(out, f)
	}
	return out
}

// mkFeature builds a feature whose depends_on is deps.
func mkFeature(id string, deps ...string) model.Feature {
	return model.Feature{ID: id, Title: "Feature " + id, DependsOn: deps}
}

// blockedBy returns f with blocked_by set to ids.
func blockedBy(f model.Feature, ids ...string) model.Feature {
	f.BlockedBy = ids
	return f
}

// mkPlan builds a plan of features.
func mkPlan(features ...model.Feature) model.Plan {
	return model.Plan{Summary: "test plan", Features: features}
}

// testRig drives one session through model.Execute with a fixed clock and
// keeps every event, so that each test also checks that replaying its log
// gives back the session it ended with.
type testRig struct {
	t      *testing.T
	s      *model.Session
	events []model.Event
	now    time.Time
	actor  string
}

// newTestRig returns a rig with no session yet.
func newTestRig(t *testing.T) *testRig {
	t.Helper()
	r := &testRig{t: t, now: baseTime, actor: "tester"}
	t.Cleanup(func() {
		if r.s != nil && len(r.events) > 0 {
			assertReplayEqual(t, r.events, r.s)
		}
	})
	return r
}

// planningRig returns a rig whose session has the plan of features applied.
func planningRig(t *testing.T, features ...model.Feature) *testRig {
	t.Helper()
	r := newTestRig(t)
	r.do(model.PlanStart{ID: "s1", Goal: "ship it"})
	r.do(model.PlanApply{Plan: mkPlan(features...)})
	return r
}

// readyRig returns a rig whose session has the plan approved.
func readyRig(t *testing.T, features ...model.Feature) *testRig {
	t.Helper()
	r := planningRig(t, features...)
	r.do(model.PlanApprove{})
	return r
}

// tick advances the clock and returns the context for the next action.
func (r *testRig) tick() model.Context {
	r.now = r.now.Add(time.Minute)
	return model.Context{Now: r.now, Actor: r.actor}
}

// exec executes a and records its events.
func (r *testRig) exec(a model.Action) ([]model.Event, error) {
	r.t.Helper()
	s, events, err := model.Execute(r.s, a, r.tick())
	if _, ok := a.(model.PlanStart); ok && len(events) > 0 {
		r.events = nil
	}
	r.s = s
	r.events = append(r.events, events...)
	for _, e := range events {
		if !e.At.Equal(r.now) || e.Actor != r.actor || e.Session != r.s.ID {
			r.t.Fatalf("%s: event %+v does not carry the action's clock, actor and session", a.Name(), e)
		}
	}
	return events, err
}

// do executes a and fails the test when it is refused.
func (r *testRig) do(a model.Action) []model.Event {
	r.t.Helper()
	events, err := r.exec(a)
	if err != nil {
		r.t.Fatalf("%s %+v: unexpected error: %v", a.Name(), a, err)
	}
	if len(events) == 0 {
		r.t.Fatalf("%s %+v: accepted but produced no event", a.Name(), a)
	}
	return events
}

// refuse executes a, asserts that it is refused with code, that it changed
// nothing, and that the error is well formed. It returns the error.
func (r *testRig) refuse(a model.Action, code string) *model.Error {
	r.t.Helper()
	before := sessionJSON(r.t, r.s)
	events, err := r.exec(a)
	e := r.checkRefusal(a, err, code)
	if len(events) > 0 {
		r.t.Fatalf("%s: refused with %s but produced events %v", a.Name(), code, eventTypes(events))
	}
	if after := sessionJSON(r.t, r.s); after != before {
		r.t.Fatalf("%s: refused with %s but changed the session", a.Name(), code)
	}
	return e
}

// refuseRecorded is refuse for the refusals that still write one event (a
// rejected completion, a session that turns out to be blocked).
func (r *testRig) refuseRecorded(a model.Action, code string, want model.EventType) (*model.Error, model.Event) {
	r.t.Helper()
	events, err := r.exec(a)
	e := r.checkRefusal(a, err, code)
	if len(events) != 1 || events[0].Type != want {
		r.t.Fatalf("%s: refused with %s, events %v, want exactly one %s", a.Name(), code, eventTypes(events), want)
	}
	return e, events[0]
}

func (r *testRig) checkRefusal(a model.Action, err error, code string) *model.Error {
	r.t.Helper()
	if err == nil {
		r.t.Fatalf("%s %+v: accepted, want %s", a.Name(), a, code)
	}
	e, ok := model.AsError(err)
	if !ok {
		r.t.Fatalf("%s: error %v is not a *model.Error", a.Name(), err)
	}
	if e.Code != code {
		r.t.Fatalf("%s: code %s (%s), want %s", a.Name(), e.Code, e.Message, code)
	}
	checkErrorShape(r.t, r.s, e)
	return e
}

// checkErrorShape asserts what rule 10 promises of every refusal: a message, a
// next command, and a next action only when it can be executed right now.
func checkErrorShape(t *testing.T, s *model.Session, e *model.Error) {
	t.Helper()
	if e.Message == "" || e.Recovery.NextCommand == "" || e.Recovery.Hint == "" || e.Recovery.Prerequisite == "" {
		t.Fatalf("%s: incomplete error %+v", e.Code, e)
	}
	if !strings.HasPrefix(e.Recovery.NextCommand, "flowdeck ") {
		t.Fatalf("%s: next_command %q is not a flowdeck command", e.Code, e.Recovery.NextCommand)
	}
	na := e.Recovery.NextAction
	if na == nil {
		return
	}
	if na.Command != "flowdeck" || e.Recovery.NextCommand != "flowdeck "+model.ShellJoin(na.Args) {
		t.Fatalf("%s: next_action %+v disagrees with next_command %q", e.Code, na, e.Recovery.NextCommand)
	}
	a := actionFromArgs(t, na.Args)
	if _, err := model.Decide(s, a, model.Context{Now: baseTime, Actor: "check"}); err != nil {
		t.Fatalf("%s: next_action %v cannot be executed now: %v", e.Code, na.Args, err)
	}
}

// actionFromArgs turns a next_action argv back into the action it names.
func actionFromArgs(t *testing.T, args []string) model.Action {
	t.Helper()
	switch cmd := strings.Join(args, " "); {
	case cmd == "flow plan approve":
		return model.PlanApprove{}
	case cmd == "flow reset session":
		return model.ResetSession{}
	case len(args) == 6 && strings.HasPrefix(cmd, "flow run complete ") && args[4] == "--outcome":
		return model.RunComplete{Feature: args[3], Outcome: model.Outcome(args[5])}
	case len(args) == 4 && strings.HasPrefix(cmd, "flow reset feature "):
		return model.ResetFeature{Feature: args[3]}
	case len(args) == 9 && args[0] == "run" && args[1] == "--feature" && args[3] == "--scope" && args[5] == "--" && args[6] == "sh":
		// flowdeck run records observed evidence on the feature.
		return model.Validate{Feature: args[2], Status: model.ValidationPassed, Scope: model.Scope(args[4]),
			Command: args[8], Source: model.SourceObserved}
	case len(args) > 6 && args[0] == "run" && args[1] == "--feature" && args[3] == "--scope" && args[5] == "--":
		return model.Validate{Feature: args[2], Status: model.ValidationPassed, Scope: model.Scope(args[4]),
			Command: model.ShellJoin(args[6:]), Source: model.SourceObserved}
	}
	t.Fatalf("next_action %q: the test does not know this command; teach actionFromArgs", args)
	return nil
}

// validate records evidence for feature id.
func (r *testRig) validate(id string, st model.ValidationStatus, scope model.Scope) {
	r.t.Helper()
	r.do(model.Validate{Feature: id, Status: st, Scope: scope, Command: "go test ./..."})
}

// review records a feature review.
func (r *testRig) review(id string, d model.ReviewDecision) {
	r.t.Helper()
	r.do(model.ReviewFeature{Feature: id, Decision: d, Findings: []string{"looked at " + id}})
}

// finish starts feature id and takes it through every gate to completed.
func (r *testRig) finish(id string) {
	r.t.Helper()
	r.do(model.RunStart{Feature: id})
	r.pass(id)
}

// pass takes the active feature id through the gates and completes it.
func (r *testRig) pass(id string) {
	r.t.Helper()
	r.validate(id, model.ValidationPassed, model.ScopeBroad)
	r.review(id, model.ReviewApproved)
	if g := model.CompletionGate(r.s, r.feature(id)); g != nil && g.Code == model.CodeMissingFinalReview {
		r.do(model.ReviewFinal{Decision: model.ReviewApproved})
	}
	r.do(model.RunComplete{Feature: id, Outcome: model.OutcomeCompleted})
}

// feature returns the feature id of the rig's session, failing when absent.
func (r *testRig) feature(id string) *model.Feature {
	r.t.Helper()
	f := r.s.Plan.Feature(id)
	if f == nil {
		r.t.Fatalf("feature %s is not in the plan", id)
	}
	return f
}

// statuses returns "id=status" for every feature, in plan order.
func (r *testRig) statuses() string {
	var out []string
	for _, f := range r.s.Plan.Features {
		out = append(out, f.ID+"="+string(f.Status))
	}
	return strings.Join(out, " ")
}

// wantSession asserts the session's status and approval.
func (r *testRig) wantSession(st model.SessionStatus, ap model.Approval) {
	r.t.Helper()
	if r.s.Status != st || r.s.Approval != ap {
		r.t.Fatalf("session is %s/%s, want %s/%s", r.s.Status, r.s.Approval, st, ap)
	}
}

// wantNext asserts the session's next command.
func (r *testRig) wantNext(want string) {
	r.t.Helper()
	if got := model.NextCommand(r.s); got != want {
		r.t.Fatalf("NextCommand = %q, want %q", got, want)
	}
}

// wantMentions asserts that msg names every id.
func wantMentions(t *testing.T, msg string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if !strings.Contains(msg, id) {
			t.Errorf("message %q does not name %q", msg, id)
		}
	}
}

func eventTypes(events []model.Event) []model.EventType {
	out := make([]model.EventType, len(events))
	for i, e := range events {
		out[i] = e.Type
	}
	return out
}

func sessionJSON(t *testing.T, s *model.Session) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertReplayEqual replays events, after a JSON round trip as the store
// keeps them, and compares the result with want.
func assertReplayEqual(t *testing.T, events []model.Event, want *model.Session) {
	t.Helper()
	stored := make([]model.Event, len(events))
	for i, e := range events {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &stored[i]); err != nil {
			t.Fatal(err)
		}
	}
	got, err := model.Replay(stored)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if g, w := sessionJSON(t, got), sessionJSON(t, want); g != w {
		t.Fatalf("replayed session differs from the executed one:\nreplayed %s\nexecuted %s\nfirst difference at byte %d", g, w, firstDiff(g, w))
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// historyTypes returns the event types of the session's history.
func historyTypes(s *model.Session) []model.EventType {
	out := make([]model.EventType, len(s.Execution.History))
	for i, h := range s.Execution.History {
		out[i] = h.Type
	}
	return out
}
