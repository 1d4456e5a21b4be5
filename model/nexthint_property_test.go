package model_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// TestNextHintsAreAccepted drives random sessions (random DAG plans with
// max_parallel 1..3; accepted and refused actions of every kind, and the
// hints themselves) and after every step checks that each hint the model
// gives — NextCommand, NextSteps, and a refusal's NextAction or NextCommand —
// names a command that the session would accept right now.
func TestNextHintsAreAccepted(t *testing.T) {
	seeds := []uint64{11, uint64(time.Now().UnixNano())}
	if *propertySeed != 0 {
		seeds = []uint64{*propertySeed}
	}
	for _, seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, seed^0x6e657874))
		checked := map[string]int{}
		for run := range 300 {
			h := &hintWalk{t: t, rng: rng, tag: fmt.Sprintf("seed %d (rerun: -model.seed=%d), run %d", seed, seed, run), now: baseTime, checked: checked}
			for step := range 80 {
				h.step(step)
			}
		}
		t.Logf("seed %d: hints checked by command: %v", seed, checked)
		if seed == 11 {
			for _, c := range []string{"plan start", "plan apply", "plan approve", "run start", "run complete",
				"validate", "run --feature", "review", "review --final", "reset feature", "run resume", "land"} {
				if checked[c] == 0 {
					t.Errorf("seed 11 never checked a %q hint: the walk does not cover the model", c)
				}
			}
		}
	}
}

type hintWalk struct {
	t       *testing.T
	rng     *rand.Rand
	tag     string
	s       *model.Session // the active session; nil when none (archived sessions are not active)
	now     time.Time
	checked map[string]int
}

var hintIDs = []string{"f0", "f1", "f2", "f3", "f4", "f5", "ghost"}

func (h *hintWalk) ctx() model.Context {
	h.now = h.now.Add(time.Second)
	return model.Context{Now: h.now, Actor: "walker"}
}

// step executes one action — a random one, or (often, so that sessions get
// far) the command the model hints — and then checks every hint.
func (h *hintWalk) step(n int) {
	h.t.Helper()
	a := h.randomAction()
	if h.rng.IntN(3) == 0 {
		if acts, _, ok := h.parseHint(model.NextCommand(h.s), nil); ok && len(acts) > 0 {
			a = acts[h.rng.IntN(len(acts))]
		}
	}
	desc := fmt.Sprintf("%s %+v", a.Name(), a)
	if len(desc) > 300 {
		desc = desc[:300] + "…"
	}
	s, _, err := model.Execute(h.s, a, h.ctx())
	if s != nil && s.Archived {
		s = nil
	}
	h.s = s
	where := fmt.Sprintf("%s, step %d, after %s", h.tag, n, desc)
	h.checkHint(where+": NextCommand", model.NextCommand(h.s), nil)
	for _, st := range model.NextSteps(h.s) {
		h.checkHint(where+": NextSteps["+st.Feature+"]", st.Command, nil)
	}
	if err == nil {
		return
	}
	e, ok := model.AsError(err)
	if !ok {
		h.t.Fatalf("%s: %v is not a structured error", where, err)
	}
	var argv []string
	if e.Recovery.NextAction != nil {
		argv = e.Recovery.NextAction.Args
	}
	h.checkHint(fmt.Sprintf("%s: refusal %s (%s) recovery", where, e.Code, e.Message), e.Recovery.NextCommand, argv)
}

// checkHint asserts that the hinted command (argv when given, else the
// command's words) would be accepted on the current session.
func (h *hintWalk) checkHint(where, cmd string, argv []string) {
	h.t.Helper()
	acts, kind, ok := h.parseHint(cmd, argv)
	if !ok {
		h.t.Fatalf("%s: hint %q (argv %q) is not a command the test parser knows; teach parseHint", where, cmd, argv)
	}
	h.checked[kind]++
	if v, isRun := firstAction(acts).(model.Validate); isRun && kind == "run --feature" && h.s != nil && h.s.Plan != nil {
		// The words a shell makes of the hint run exactly the verification.
		if f := h.s.Plan.Feature(v.Feature); f != nil && len(f.Verification) > 0 && v.Command != f.Verification[0] {
			h.t.Fatalf("%s: hint %q runs %q, not the verification %q", where, cmd, v.Command, f.Verification[0])
		}
	}
	for _, a := range acts {
		if _, err := model.Decide(h.s, a, model.Context{Now: h.now, Actor: "check"}); err != nil {
			h.t.Fatalf("%s:\nhint %q (as %s %+v) is refused now: %v\nstate: %s", where, cmd, a.Name(), a, err, h.state())
		}
	}
}

func (h *hintWalk) state() string {
	s := h.s
	if s == nil {
		return "no active session"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "session %s %s/%s seq %d active %q", s.ID, s.Status, s.Approval, s.Seq, s.Execution.ActiveFeature)
	if s.Plan != nil {
		fmt.Fprintf(&b, " max_parallel %d required %d;", s.MaxParallel(), s.Plan.Required())
		for _, f := range s.Plan.Features {
			fmt.Fprintf(&b, " %s=%s(%s)", f.ID, f.Status, model.StateOf(s, &f))
			if w := model.Waiting(s.Plan, f); len(w) > 0 {
				fmt.Fprintf(&b, "[waits %s]", strings.Join(w, ","))
			}
		}
	}
	return b.String()
}

// randomPlan is a DAG over f0..f(n-1) (edges to earlier features only) with
// max_parallel 1..3; some features have a verification command, plain words
// or shell text.
func (h *hintWalk) randomPlan() model.Plan {
	n := 1 + h.rng.IntN(5)
	p := model.Plan{Summary: "random", MaxParallel: 1 + h.rng.IntN(3)}
	p.Features = randomDAG(h.rng, hintIDs[:n], 2, 3)
	for i := range p.Features {
		f := &p.Features[i]
		switch h.rng.IntN(4) {
		case 1:
			f.Verification = []string{"go test ./" + f.ID}
		case 2:
			f.Verification = []string{"go test ./... | tee 'out log'"}
		case 3:
			f.Verification = []string{"go test\t-run 'T\u202e' ./" + f.ID} // written as $'…'
		}
	}
	if h.rng.IntN(4) == 0 {
		p.Completion.MinCompletedFeatures = h.rng.IntN(n + 1)
	}
	return p
}

func (h *hintWalk) featureID() string {
	if h.s != nil && h.s.Execution.ActiveFeature != "" && h.rng.IntN(2) == 0 {
		return h.s.Execution.ActiveFeature
	}
	return hintIDs[h.rng.IntN(len(hintIDs))]
}

func (h *hintWalk) randomAction() model.Action {
	pick := func(n int) int { return h.rng.IntN(n) }
	switch pick(17) {
	case 0:
		return model.PlanStart{ID: fmt.Sprintf("s%d", pick(1000)), Goal: []string{"ship it", "other goal"}[pick(2)]}
	case 1:
		p := h.randomPlan()
		if pick(8) == 0 {
			p.Features[0].DependsOn = append(p.Features[0].DependsOn, "ghost") // invalid
		}
		return model.PlanApply{Plan: p}
	case 2:
		return model.PlanSelect{FeatureIDs: []string{h.featureID(), h.featureID()}}
	case 3:
		if h.s != nil && pick(2) == 0 { // a project in git: features get worktrees
			return model.PlanApprove{Git: &model.GitSetup{Integration: model.IntegrationBranch(h.s.ID), Base: "main",
				BaseCommit: "0123456789abcdef0123456789abcdef01234567"}}
		}
		return model.PlanApprove{}
	case 4, 5:
		if pick(2) == 0 {
			return model.RunStart{Agent: []string{"", "w1", "w2"}[pick(3)]}
		}
		return model.RunStart{Feature: h.featureID()}
	case 6, 7:
		st := []model.ValidationStatus{model.ValidationPassed, model.ValidationPassed, model.ValidationFailed, model.ValidationPartial}[pick(4)]
		return model.Validate{Feature: h.featureID(), Status: st, Scope: []model.Scope{model.ScopeTargeted, model.ScopeBroad}[pick(2)], Command: "go test ./..."}
	case 8, 9:
		d := []model.ReviewDecision{model.ReviewApproved, model.ReviewApproved, model.ReviewNeedsFix, model.ReviewBlocked}[pick(4)]
		return model.ReviewFeature{Feature: h.featureID(), Decision: d}
	case 10:
		return model.ReviewFinal{Decision: []model.ReviewDecision{model.ReviewApproved, model.ReviewNeedsFix, model.ReviewBlocked}[pick(3)]}
	case 11, 12:
		o := []model.Outcome{model.OutcomeCompleted, model.OutcomeCompleted, model.OutcomeReplanRequired, model.OutcomeBlocked, model.OutcomeNeedsInput}[pick(5)]
		return model.RunComplete{Feature: h.featureID(), Outcome: o}
	case 13:
		return model.ResetFeature{Feature: h.featureID()}
	case 14:
		if pick(3) == 0 {
			return model.ResetSession{Reason: "walk"}
		}
	case 15:
		return h.oversized()
	case 16:
		switch pick(4) {
		case 0: // a merge that conflicted (refused with merge_conflict)
			return model.RecordConflict{Feature: h.featureID(), Files: []string{"a.go"}}
		case 1: // a crashed worker
			return model.RunInterrupt{Feature: h.featureID(), Summary: "agent exited 137"}
		case 2:
			return model.RunResume{Feature: h.featureID()}
		case 3: // flow land's record of what git did
			return model.Land{Branch: "main", Commit: "89abcdef0123456789abcdef0123456789abcdef"}
		}
	}
	return model.AddNote{Text: []string{"a note", " "}[pick(2)]}
}

// oversized is an action refused for a text over model.MaxTextBytes.
func (h *hintWalk) oversized() model.Action {
	long := strings.Repeat("x", model.MaxTextBytes+1)
	switch h.rng.IntN(4) {
	case 0:
		return model.AddNote{Text: long}
	case 1:
		return model.RunComplete{Feature: h.featureID(), Outcome: model.OutcomeCompleted, Summary: long}
	case 2:
		p := h.randomPlan()
		p.Features[0].Title = long
		return model.PlanApply{Plan: p}
	}
	return model.PlanStart{ID: "s-long", Goal: long}
}

func firstAction(acts []model.Action) model.Action {
	if len(acts) == 0 {
		return nil
	}
	return acts[0]
}
