package model_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// TestParallelClaimsProperty: on random DAGs with a random max_parallel of
// 1..4, random claims, validations, reviews, completions, blocks and resets
// never start a feature before what it waits for is completed, never have
// more than max_parallel features active, keep ActiveFeature the latest
// claim, and, driven to the end, always reach completion or a blocked state
// that names its reasons. Replaying the events gives back the state.
func TestParallelClaimsProperty(t *testing.T) {
	seeds := []uint64{7, uint64(time.Now().UnixNano())}
	if *propertySeed != 0 {
		seeds = []uint64{*propertySeed}
	}
	for _, seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, seed^0x51ed27))
		completed, blocked, maxSeen := 0, 0, 0
		for run := range 200 {
			p := &parallelWalk{t: t, rng: rng, tag: fmt.Sprintf("seed %d, run %d", seed, run)}
			p.start()
			for range 60 {
				p.step(p.randomAction())
			}
			if p.drain() {
				completed++
			} else {
				blocked++
			}
			maxSeen = max(maxSeen, p.maxActive)
			assertReplayEqual(t, p.log, p.s)
		}
		t.Logf("seed %d (rerun: -model.seed=%d): %d completed, %d blocked, at most %d active at once", seed, seed, completed, blocked, maxSeen)
		if seed == 7 && (completed == 0 || blocked == 0 || maxSeen < 3) {
			t.Errorf("seed 7 did not cover the model: %d completed, %d blocked, max %d active", completed, blocked, maxSeen)
		}
	}
}

type parallelWalk struct {
	t         *testing.T
	rng       *rand.Rand
	tag       string
	s         *model.Session
	log       []model.Event
	now       time.Time
	maxActive int
}

var parallelAgents = []string{"", "w1", "w2", "w3", "w4"}

// start begins a session on a random DAG of 2..8 features (edges only to
// earlier features, so acyclic) with max_parallel 1..4.
func (p *parallelWalk) start() {
	n := 2 + p.rng.IntN(7)
	plan := model.Plan{Summary: "random DAG", MaxParallel: 1 + p.rng.IntN(4)}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("f%d", i)
	}
	plan.Features = randomDAG(p.rng, ids, 4, 4)
	if p.rng.IntN(5) == 0 {
		plan.Completion.MinCompletedFeatures = 1 + p.rng.IntN(n)
	}
	p.now = baseTime
	p.must(model.PlanStart{ID: "s1", Goal: "parallel"})
	p.must(model.PlanApply{Plan: plan})
	p.must(model.PlanApprove{})
}

func (p *parallelWalk) fatalf(format string, args ...any) {
	p.t.Helper()
	p.t.Fatalf("%s: %s", p.tag, fmt.Sprintf(format, args...))
}

// someID is mostly an active feature, else any feature of the plan.
func (p *parallelWalk) someID() string {
	if claims := model.ActiveClaims(p.s); len(claims) > 0 && p.rng.IntN(3) > 0 {
		return claims[p.rng.IntN(len(claims))].Feature
	}
	return p.s.Plan.Features[p.rng.IntN(len(p.s.Plan.Features))].ID
}

func (p *parallelWalk) randomAction() model.Action {
	agent := parallelAgents[p.rng.IntN(len(parallelAgents))]
	switch p.rng.IntN(12) {
	case 0, 1:
		return model.RunStart{Agent: agent}
	case 2:
		return model.RunStart{Feature: p.someID(), Agent: agent}
	case 3, 4:
		st := []model.ValidationStatus{model.ValidationPassed, model.ValidationPassed, model.ValidationFailed}[p.rng.IntN(3)]
		sc := []model.Scope{model.ScopeTargeted, model.ScopeBroad}[p.rng.IntN(2)]
		return model.Validate{Feature: p.someID(), Status: st, Scope: sc, Command: "go test ./..."}
	case 5, 6:
		d := []model.ReviewDecision{model.ReviewApproved, model.ReviewApproved, model.ReviewNeedsFix, model.ReviewBlocked}[p.rng.IntN(4)]
		return model.ReviewFeature{Feature: p.someID(), Decision: d}
	case 7:
		return model.ReviewFinal{Decision: []model.ReviewDecision{model.ReviewApproved, model.ReviewNeedsFix}[p.rng.IntN(2)]}
	case 8, 9:
		return model.RunComplete{Feature: p.someID(), Outcome: model.OutcomeCompleted}
	case 10:
		return model.RunComplete{Feature: p.someID(), Outcome: []model.Outcome{model.OutcomeBlocked, model.OutcomeNeedsInput}[p.rng.IntN(2)]}
	}
	return model.ResetFeature{Feature: p.someID()}
}

// step executes a (refusals are fine) and checks the invariants.
func (p *parallelWalk) step(a model.Action) ([]model.Event, error) {
	p.t.Helper()
	p.now = p.now.Add(time.Second)
	before := p.s
	var waiting map[string][]string
	if before != nil && before.Plan != nil {
		waiting = map[string][]string{}
		for _, f := range before.Plan.Features {
			waiting[f.ID] = model.Waiting(before.Plan, f)
		}
	}
	s, events, err := model.Execute(p.s, a, model.Context{Now: p.now, Actor: "agent"})
	for _, e := range events {
		if e.Type == model.EventFeatureStarted && len(waiting[e.Feature]) > 0 {
			p.fatalf("%s started while it waits for %v", e.Feature, waiting[e.Feature])
		}
	}
	if err != nil {
		if _, ok := model.AsError(err); !ok {
			p.fatalf("%s: %v is not a structured error", a.Name(), err)
		}
	}
	p.s = s
	p.log = append(p.log, events...)
	p.check(a)
	return events, err
}

func (p *parallelWalk) must(a model.Action) {
	p.t.Helper()
	if _, err := p.step(a); err != nil {
		p.fatalf("%s %+v: %v", a.Name(), a, err)
	}
}

func (p *parallelWalk) check(a model.Action) {
	p.t.Helper()
	s := p.s
	if s == nil || s.Plan == nil {
		return
	}
	claims := model.ActiveClaims(s)
	p.maxActive = max(p.maxActive, len(claims))
	if len(claims) > s.MaxParallel() {
		p.fatalf("after %s: %d active features (%s), max_parallel %d", a.Name(), len(claims), model.ClaimsText(s), s.MaxParallel())
	}
	want := ""
	if len(claims) > 0 {
		want = claims[len(claims)-1].Feature
	}
	if s.Execution.ActiveFeature != want {
		p.fatalf("after %s: active feature %q, want the latest claim %q", a.Name(), s.Execution.ActiveFeature, want)
	}
	if s.Status == model.StatusRunning && len(claims) == 0 || len(claims) > 0 && s.Status != model.StatusRunning && s.Status != model.StatusCompleted {
		p.fatalf("after %s: status %s with active %s", a.Name(), s.Status, model.ClaimsText(s))
	}
	for _, f := range s.Plan.Features {
		if f.Status == model.FeatureInProgress || f.Status == model.FeatureCompleted {
			if w := model.Waiting(s.Plan, f); len(w) > 0 {
				p.fatalf("after %s: %s is %s while it waits for %v", a.Name(), f.ID, f.Status, w)
			}
		}
	}
}

// drain acts like diligent agents: claim while the plan allows, take every
// active feature through its gates, until the session completes (true) or
// nothing can be claimed and nothing is active (false, checked to be a
// named blocked state).
func (p *parallelWalk) drain() bool {
	p.t.Helper()
	for range 200 {
		if p.s.Status == model.StatusCompleted {
			return true
		}
		for {
			events, err := p.step(model.RunStart{Agent: parallelAgents[1+p.rng.IntN(4)]})
			if err == nil {
				if len(events) > 0 && events[len(events)-1].Type == model.EventSessionCompleted {
					return true
				}
				continue
			}
			e, _ := model.AsError(err)
			switch e.Code {
			case model.CodeMaxParallelReached, model.CodeFeatureAlreadyActive:
			case model.CodeNoRunnableFeature:
				if len(model.ActiveClaims(p.s)) == 0 {
					p.checkBlocked(e)
					return false
				}
			default:
				p.fatalf("drain: run start refused with %v", err)
			}
			break
		}
		for _, c := range model.ActiveClaims(p.s) {
			p.pass(c.Feature)
			if p.s.Status == model.StatusCompleted {
				return true
			}
		}
	}
	p.fatalf("drain did not end: %s", model.ClaimsText(p.s))
	return false
}

func (p *parallelWalk) pass(id string) {
	p.t.Helper()
	p.must(model.Validate{Feature: id, Status: model.ValidationPassed, Scope: model.ScopeBroad, Command: "go test ./..."})
	p.must(model.ReviewFeature{Feature: id, Decision: model.ReviewApproved})
	if g := model.CompletionGate(p.s, p.s.Plan.Feature(id)); g != nil && g.Code == model.CodeMissingFinalReview {
		p.must(model.ReviewFinal{Decision: model.ReviewApproved})
	}
	p.must(model.RunComplete{Feature: id, Outcome: model.OutcomeCompleted})
}

func (p *parallelWalk) checkBlocked(e *model.Error) {
	p.t.Helper()
	why := model.BlockReasons(p.s.Plan)
	if p.s.Status != model.StatusBlocked || why == "" || !strings.Contains(e.Message, why) {
		p.fatalf("not a named blocked state: status %s, reasons %q, refusal %q", p.s.Status, why, e.Message)
	}
	if !strings.Contains(why, " is blocked") {
		p.fatalf("blocked without a blocked feature: %s", why)
	}
}

// TestCrewScheduleProperty walks random DAGs as the crew scheduler
// (flows.Crew) drives them: up to `slots` agents each claim the first
// feature of ClaimOrder, and the active features finish in a random order —
// completed, or now and then blocked. Every claim takes the claim order's
// head, no feature starts before what it waits for (step checks it), never
// more than min(slots, max_parallel) are active, and every walk ends
// completed or in a named blocked state.
func TestCrewScheduleProperty(t *testing.T) {
	seeds := []uint64{11, uint64(time.Now().UnixNano())}
	if *propertySeed != 0 {
		seeds = []uint64{*propertySeed}
	}
	for _, seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, seed^0xc4e3))
		completed, blocked := 0, 0
		for run := range 300 {
			p := &parallelWalk{t: t, rng: rng, tag: fmt.Sprintf("crew seed %d, run %d", seed, run)}
			p.start()
			if p.crewDrain(1+rng.IntN(4), rng.IntN(4) == 0) {
				completed++
			} else {
				blocked++
			}
			assertReplayEqual(t, p.log, p.s)
		}
		t.Logf("seed %d (rerun: -model.seed=%d): %d completed, %d blocked", seed, seed, completed, blocked)
		if seed == 11 && (completed == 0 || blocked == 0) {
			t.Errorf("seed 11 did not cover both ends: %d completed, %d blocked", completed, blocked)
		}
	}
}

// crewDrain schedules like the crew: claim while a slot is free, then one
// random active feature ends (blocked with probability 1/8 when failures
// is set). It reports whether the session completed.
func (p *parallelWalk) crewDrain(slots int, failures bool) bool {
	p.t.Helper()
	limit := min(slots, p.s.MaxParallel())
	for range 400 {
		for len(model.ActiveClaims(p.s)) < limit && p.s.Status != model.StatusCompleted {
			order := model.ClaimOrder(p.s)
			if len(order) == 0 {
				break
			}
			events, err := p.step(model.RunStart{Agent: fmt.Sprintf("worker-%d", len(model.ActiveClaims(p.s))+1)})
			if err != nil {
				p.fatalf("claim with %v claimable refused: %v", order, err)
			}
			if len(events) > 0 && events[0].Type == model.EventFeatureStarted && events[0].Feature != order[0] {
				p.fatalf("claimed %s, not the head of the claim order %v", events[0].Feature, order)
			}
		}
		if p.s.Status == model.StatusCompleted {
			return true
		}
		claims := model.ActiveClaims(p.s)
		if len(claims) > limit {
			p.fatalf("%d active with %d slots", len(claims), limit)
		}
		if len(claims) == 0 {
			_, err := p.step(model.RunStart{Agent: "worker-1"})
			e, ok := model.AsError(err)
			if !ok || e.Code != model.CodeNoRunnableFeature {
				p.fatalf("nothing active, nothing claimable, but run start says %v", err)
			}
			p.checkBlocked(e)
			return false
		}
		id := claims[p.rng.IntN(len(claims))].Feature
		if failures && p.rng.IntN(8) == 0 {
			p.must(model.RunComplete{Feature: id, Outcome: model.OutcomeBlocked, Summary: "the agent failed"})
			continue
		}
		p.pass(id)
	}
	p.fatalf("the crew did not finish: %s", model.ClaimsText(p.s))
	return false
}
