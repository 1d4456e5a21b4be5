package ops

import (
	"fmt"
	"strings"
	"time"

	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
)

// Wait is one thing that waits for the person: a plan approval, a feature
// review, the final review, a blocked session or feature, an interrupted
// agent, or a flow's pending decision. Waits computes them once for the
// cockpit and the fleet (FleetGlance), so both list the same things.
type Wait struct {
	Kind    string // a FleetWait kind
	Feature string
	Reason  string // blocked, interrupted: why (bounded by WaitReasonMax)
	// Feature1: one blocked feature in a session that runs on (else the
	// session is blocked).
	Feature1 bool
	// Key names this occurrence: a new validation after needs_fix is a new
	// review request, so the evidence sequence is part of it.
	Key string
	// Label is how the session bar, the title and the fleet name it.
	Label string
	// Since is when it started waiting: the history item (or evidence,
	// interruption) that made it wait, a decision's creation.
	Since    time.Time
	Decision *model.Decision // a decision's, else nil
}

// WaitReasonMax bounds a wait's reason (an agent's summary or note, cut
// once when the waits are listed): the session bar draws it every frame.
const WaitReasonMax = 200

// DecisionWaitKey is the key of the wait for decision id.
func DecisionWaitKey(id string) string { return "decision:" + id }

// String names the wait by what it is, without what flows ask about it
// (Label says that).
func (w Wait) String() string {
	switch w.Kind {
	case FleetWaitReview:
		return "review " + w.Feature
	case FleetWaitFinal:
		return "final review"
	case FleetWaitPlan:
		return "plan approval"
	case FleetWaitInterrupted:
		if w.Reason != "" {
			return "interrupted " + w.Feature + ": " + w.Reason
		}
		return "interrupted " + w.Feature
	case FleetWaitDecision:
		d := w.Decision
		switch {
		case d.FlowRun == "":
			return "decision " + d.ID
		case d.Kind == model.DecisionInterrupted:
			return "interrupted " + d.FlowRun
		}
		return "decision " + d.FlowRun + " " + d.Step
	}
	what := "session blocked"
	if w.Feature1 {
		what = "blocked " + w.Feature
	} else if w.Feature != "" {
		what += " (" + w.Feature + ")"
	}
	if w.Reason != "" {
		what += ": " + w.Reason
	}
	return what
}

// Waits lists what waits for the person in session s with the pending
// decisions and the flow runs: the session's waits in plan order, less what
// a flow asks itself (a flow's question is counted once, as its decision),
// then the decisions, oldest first. Nothing in it is read from anywhere
// else, so the cockpit and the fleet agree.
func Waits(s *model.Session, decisions []model.Decision, runs []model.FlowRun) []Wait {
	c := waitCtx{s: s, decisions: decisions, runs: runs}
	out := c.sessionWaits()
	for i := range decisions {
		d := &decisions[i]
		w := Wait{Kind: FleetWaitDecision, Key: DecisionWaitKey(d.ID), Since: d.Created, Decision: d}
		w.Label = c.label(w)
		out = append(out, w)
	}
	return out
}

// ReviewName names the review a flow asks for on feature in s: the
// session's final review once the last feature's completion waits for it.
func ReviewName(s *model.Session, feature string) string {
	if model.AwaitingFinalReview(s) {
		return "final review"
	}
	return "review " + feature
}

// waitCtx is what the waits are a function of.
type waitCtx struct {
	s         *model.Session
	decisions []model.Decision // pending
	runs      []model.FlowRun
}

// sessionWaits are the session's waits, less the reviews a flow asks for
// itself: a review is asked once, in the flow's decision. With several
// agents, a `run` flow asks only for its own feature's review.
func (c waitCtx) sessionWaits() []Wait {
	ws := sessionWaitsOf(c.s)
	reviews := c.flowReviews()
	out := ws[:0]
	for _, w := range ws {
		switch {
		case reviews && (w.Kind == FleetWaitReview || w.Kind == FleetWaitFinal) && c.flowAsks(w.Feature):
		case w.Kind == FleetWaitInterrupted && c.flowDecides(w.Feature):
		case w.Kind == FleetWaitPlan && c.flowAsksPlanApproval():
			// The plan flow's own question is the approval: counted once.
		default:
			w.Label = w.String()
			out = append(out, w)
		}
	}
	return out
}

// sessionWaitsOf lists what waits in s, in plan order.
func sessionWaitsOf(s *model.Session) []Wait {
	if s == nil || s.Plan == nil || s.Archived {
		return nil
	}
	var out []Wait
	if s.Status != model.StatusCompleted && s.Approval != model.ApprovalApproved {
		seq := planSince(s)
		out = append(out, Wait{Kind: FleetWaitPlan, Key: fmt.Sprintf("plan:%s@%d", s.ID, seq), Since: historyAt(s, seq, s.Timestamps.Created)})
	}
	for i := range s.Plan.Features {
		f := &s.Plan.Features[i]
		if f.Status == model.FeatureInProgress && f.Interrupted != nil {
			out = append(out, Wait{Kind: FleetWaitInterrupted, Feature: f.ID, Reason: model.FirstLine(strings.TrimSpace(f.Interrupted.Summary), WaitReasonMax),
				Key: fmt.Sprintf("interrupted:%s:%s@%d", s.ID, f.ID, f.Interrupted.Seq), Since: f.Interrupted.At})
		}
		if model.StateOf(s, f) == model.StateAwaitingReview {
			seq, since := uint64(0), s.Timestamps.Updated
			if ev := model.LatestEvidence(f); ev != nil {
				seq, since = ev.Seq, ev.At
			}
			out = append(out, Wait{Kind: FleetWaitReview, Feature: f.ID, Key: fmt.Sprintf("review:%s:%s@%d", s.ID, f.ID, seq), Since: since})
		}
	}
	if model.AwaitingFinalReview(s) {
		seq, since := uint64(0), s.Timestamps.Updated
		if v := s.Execution.LastValidation; v != nil {
			seq, since = v.Seq, v.At
		}
		out = append(out, Wait{Kind: FleetWaitFinal, Feature: s.Execution.ActiveFeature, Key: fmt.Sprintf("final:%s@%d", s.ID, seq), Since: since})
	}
	if s.Status == model.StatusBlocked {
		var ids, reasons []string
		for i := range s.Plan.Features {
			if f := &s.Plan.Features[i]; f.Status == model.FeatureBlocked {
				ids = append(ids, f.ID)
				reasons = append(reasons, model.BlockReason(f, WaitReasonMax))
			}
		}
		seq := blockedSince(s)
		out = append(out, Wait{Kind: FleetWaitBlocked, Feature: strings.Join(ids, ", "), Reason: strings.Join(reasons, "; "),
			Key: fmt.Sprintf("blocked:%s@%d", s.ID, seq), Since: historyAt(s, seq, s.Timestamps.Updated)})
	} else if s.Status != model.StatusCompleted {
		// A blocked feature in a session that runs on (other features are
		// active) waits for the person as much: a reset or a replan.
		for i := range s.Plan.Features {
			if f := &s.Plan.Features[i]; f.Status == model.FeatureBlocked {
				seq := featureBlockedSince(s, f.ID)
				out = append(out, Wait{Kind: FleetWaitBlocked, Feature: f.ID, Reason: model.BlockReason(f, WaitReasonMax), Feature1: true,
					Key: fmt.Sprintf("blocked:%s:%s@%d", s.ID, f.ID, seq), Since: historyAt(s, seq, s.Timestamps.Updated)})
			}
		}
	}
	return out
}

// historyAt is when the history item seq happened; or (a history that
// no longer holds it, seq 0) otherwise.
func historyAt(s *model.Session, seq uint64, otherwise time.Time) time.Time {
	h := s.Execution.History
	for i := len(h) - 1; i >= 0 && seq != 0; i-- {
		if h[i].Seq == seq {
			return h[i].At
		}
	}
	return otherwise
}

// featureBlockedSince is the history item that blocked feature id, so that
// a feature blocked again later rings again.
func featureBlockedSince(s *model.Session, id string) uint64 {
	return lastHistorySeq(s, func(e model.HistoryItem) bool {
		return e.Feature == id && e.Type == model.EventFeatureBlocked
	})
}

// planSince is the history item that put the current plan in place, so a
// plan applied again asks again.
func planSince(s *model.Session) uint64 {
	return lastHistorySeq(s, func(e model.HistoryItem) bool {
		return e.Type == model.EventPlanApplied || e.Type == model.EventPlanSelected
	})
}

// blockedSince finds the history item that blocked the session, so that a
// session blocked again later rings again.
func blockedSince(s *model.Session) uint64 {
	return lastHistorySeq(s, func(e model.HistoryItem) bool {
		return e.Type == model.EventSessionBlocked || e.Type == model.EventFeatureBlocked
	})
}

// lastHistorySeq is the Seq of the newest history item that is, 0 when
// none is.
func lastHistorySeq(s *model.Session, is func(model.HistoryItem) bool) uint64 {
	h := s.Execution.History
	for i := len(h) - 1; i >= 0; i-- {
		if is(h[i]) {
			return h[i].Seq
		}
	}
	return 0
}

// asksPlanApproval reports whether d is a plan flow's question whether to
// approve the plan (its review step).
func (c waitCtx) asksPlanApproval(d *model.Decision) bool {
	flow := d.Flow
	if r := c.flowRun(d.FlowRun); r != nil {
		flow = r.Flow
	}
	return flow == "plan" && d.Offers("approve")
}

func (c waitCtx) flowAsksPlanApproval() bool {
	for i := range c.decisions {
		if c.asksPlanApproval(&c.decisions[i]) {
			return true
		}
	}
	return false
}

// label is how a wait is named: a flow's question by what it asks when
// that is known (the plan's approval, a review), else by its run and step.
func (c waitCtx) label(w Wait) string {
	if w.Kind != FleetWaitDecision || w.Decision.FlowRun == "" {
		return w.String()
	}
	d := w.Decision
	switch {
	case c.asksPlanApproval(d):
		return "plan approval (" + d.FlowRun + ")"
	case d.IsReview() && model.AwaitingFinalReview(c.s):
		return "final review (" + d.FlowRun + ")"
	}
	return w.String()
}

// flowDecides reports whether a pending decision of a run flow on feature
// waits (an interrupted agent's retry/reassign/reset): it counts, so the
// interruption does not count twice.
func (c waitCtx) flowDecides(feature string) bool {
	for _, d := range c.decisions {
		if r := c.flowRun(d.FlowRun); r != nil {
			if flows.RunString(r, flows.VarFeature) == feature {
				return true
			}
		}
	}
	return false
}

// reviewingFlow reports whether r is a live run of a flow that asks for
// reviews (run, auto, review).
func reviewingFlow(r *model.FlowRun) bool {
	return !model.FlowEnded(r.Status) && r.Status != model.FlowInterrupted && (r.Flow == "run" || r.Flow == "auto" || r.Flow == "review")
}

// flowAsks reports whether a flow run asks for feature's review: a pending
// review decision of a run on it, or a live run/auto/review flow on it. A
// run whose feature is not known yet (or an auto or review flow) may ask
// for any.
func (c waitCtx) flowAsks(feature string) bool {
	covers := func(r *model.FlowRun) bool {
		f := flows.RunString(r, flows.VarFeature)
		return r.Flow != "run" || f == "" || f == feature
	}
	for i := range c.decisions {
		if !c.decisions[i].IsReview() {
			continue
		}
		r := c.flowRun(c.decisions[i].FlowRun)
		if r == nil || covers(r) {
			return true
		}
	}
	for i := range c.runs {
		if r := &c.runs[i]; reviewingFlow(r) && covers(r) {
			return true
		}
	}
	return false
}

// flowRun is the flow run id, or nil.
func (c waitCtx) flowRun(id string) *model.FlowRun {
	for i := range c.runs {
		if c.runs[i].ID == id {
			return &c.runs[i]
		}
	}
	return nil
}

// FlowReviews reports whether a flow run asks for the reviews itself: a
// pending decision offers the review's verdicts, or a run of a flow that
// reviews (run, auto, review) is under way and will ask.
func FlowReviews(decisions []model.Decision, runs []model.FlowRun) bool {
	return waitCtx{decisions: decisions, runs: runs}.flowReviews()
}

func (c waitCtx) flowReviews() bool {
	for i := range c.decisions {
		if c.decisions[i].IsReview() {
			return true
		}
	}
	for i := range c.runs {
		if reviewingFlow(&c.runs[i]) {
			return true
		}
	}
	return false
}
