package model

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Decisions are the points where a flow waits for a person: a decision step,
// a form for a human step, a task for a role with no agent, and the
// retry/skip/cancel question after an interrupted action. A decision is
// resolved once; db stores it and the events below on its flow run in one
// transaction.

// DecisionKind says what a decision asks.
type DecisionKind string

// Decision kinds.
const (
	DecisionChoice      DecisionKind = "decision"    // a decision step: options or free text
	DecisionForm        DecisionKind = "form"        // a person answers a step's parse variables
	DecisionTask        DecisionKind = "task"        // a person does what the step asks (no agent for its role)
	DecisionInterrupted DecisionKind = "interrupted" // retry, skip or cancel an action that was cut off
)

// DecisionStatus is where a decision stands.
type DecisionStatus string

// Decision statuses.
const (
	DecisionPending   DecisionStatus = "pending"
	DecisionResolved  DecisionStatus = "resolved"
	DecisionExpired   DecisionStatus = "expired"
	DecisionCancelled DecisionStatus = "cancelled"
)

// Error codes of decision refusals.
const (
	CodeUnknownDecision       = "unknown_decision"
	CodeDecisionNotPending    = "decision_not_pending"
	CodeUnknownDecisionOption = "unknown_decision_option"
)

// Decision is one question for a person.
type Decision struct {
	ID       string           `json:"id"`
	FlowRun  string           `json:"flow_run,omitempty"`
	Flow     string           `json:"flow,omitempty"`
	Step     string           `json:"step,omitempty"`
	Kind     DecisionKind     `json:"kind"`
	Prompt   string           `json:"prompt"`
	Options  []DecisionOption `json:"options,omitempty"`
	Fields   []DecisionField  `json:"fields,omitempty"`
	Fallback string           `json:"fallback,omitempty"`
	Deadline *time.Time       `json:"deadline,omitempty"`
	// Action is the step action the decision belongs to; the run continues
	// at Action+1 (at Action after "retry", at SkipTo after "skip").
	Action     int            `json:"action"`
	SkipTo     int            `json:"skip_to,omitempty"`
	Status     DecisionStatus `json:"status"`
	Created    time.Time      `json:"created"`
	Actor      string         `json:"actor"`
	Resolution *Resolution    `json:"resolution,omitempty"`
}

// Offers reports whether d offers every one of the option ids.
func (d *Decision) Offers(ids ...string) bool {
	for _, id := range ids {
		if !slices.ContainsFunc(d.Options, func(o DecisionOption) bool { return o.ID == id }) {
			return false
		}
	}
	return true
}

// IsReview reports whether d is a review: it offers the review's verdicts.
// The cockpit and the fleet ask it (which waits a flow's review covers).
func (d *Decision) IsReview() bool { return d.Offers("approved", "needs_fix") }

// DecisionOption is one choice.
type DecisionOption struct {
	ID          string `json:"id"`
	Description string `json:"description,omitempty"`
}

// DecisionField is one value of a form (a step's parse variable).
type DecisionField struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Enum        []string `json:"enum,omitempty"`
	Description string   `json:"description,omitempty"`
}

// Resolution is how a decision was resolved.
type Resolution struct {
	Option  string         `json:"option,omitempty"`
	Note    string         `json:"note,omitempty"`
	Vars    map[string]any `json:"vars,omitempty"`
	Actor   string         `json:"actor"`
	Via     string         `json:"via,omitempty"` // where the answer came from (Context.Via)
	At      time.Time      `json:"at"`
	Timeout bool           `json:"timeout,omitempty"`
}

// UnknownDecision refuses a decision id that does not exist.
func UnknownDecision(id string) *Error {
	return &Error{Code: CodeUnknownDecision, Message: "no decision " + id,
		Recovery: Recovery{Hint: "flowdeck decisions lists the pending decisions.", NextCommand: "flowdeck decisions"}}
}

// CreatedEvent is the event a new decision records on run r: the run waits
// for it, or, for an interrupted action, stands interrupted until it is
// answered.
func (d *Decision) CreatedEvent(r *FlowRun) FlowEvent {
	ev := FlowEvent{Type: FlowEvDecisionCreated, Step: d.Step, StepIndex: r.StepIndex, Action: d.Action, Decision: d.ID, Kind: string(d.Kind)}
	if d.Kind == DecisionInterrupted {
		ev.Type = FlowEvInterrupted
	}
	return ev
}

// Resolve resolves a pending decision with res, refusing one that is not
// pending or an option it does not offer (when it offers any).
func (d *Decision) Resolve(res Resolution) error {
	if d.Status != DecisionPending {
		return d.notPending()
	}
	if len(d.Options) > 0 {
		ok := false
		var ids []string
		for _, o := range d.Options {
			ok = ok || o.ID == res.Option
			ids = append(ids, o.ID)
		}
		if !ok {
			return &Error{Code: CodeUnknownDecisionOption,
				Message: fmt.Sprintf("decision %s has no option %q (options: %s)", d.ID, res.Option, strings.Join(ids, ", ")),
				Recovery: Recovery{Hint: "Choose one of the options.",
					NextCommand: "flowdeck decide " + d.ID + " " + ids[0]}}
		}
	}
	d.Status, d.Resolution = DecisionResolved, &res
	return nil
}

// ResolvedEvent is the event a resolved decision records on run r, and
// false when r no longer waits for it (it ended, or moved on).
func (d *Decision) ResolvedEvent(r *FlowRun) (FlowEvent, bool) {
	res := d.Resolution
	if res == nil || r.Decision != d.ID || FlowEnded(r.Status) {
		return FlowEvent{}, false
	}
	next := d.Action + 1
	switch {
	case d.Kind == DecisionInterrupted && res.Option == "retry":
		next = d.Action
	case d.Kind == DecisionInterrupted && res.Option == "skip":
		next = d.SkipTo
	}
	return FlowEvent{Type: FlowEvDecisionResolved, Step: d.Step, StepIndex: r.StepIndex, Decision: d.ID,
		Kind: string(d.Kind), Option: res.Option, Note: res.Note, Vars: res.Vars, NewAction: next}, true
}

// Due reports whether a pending decision's deadline has passed at now.
func (d *Decision) Due(now time.Time) bool {
	return d.Status == DecisionPending && d.Deadline != nil && !now.Before(*d.Deadline)
}

// TimeoutResolution is how a due decision with a fallback resolves.
func (d *Decision) TimeoutResolution(now time.Time) Resolution {
	return Resolution{Option: d.Fallback, Actor: "timeout", At: now, Timeout: true,
		Vars: map[string]any{"decision": map[string]any{"option": d.Fallback, "note": "", "actor": "timeout"}}}
}

// ExpiredEvent is the event that fails run r when d timed out with no
// fallback, and false when r already ended.
func (d *Decision) ExpiredEvent(r *FlowRun) (FlowEvent, bool) {
	if FlowEnded(r.Status) {
		return FlowEvent{}, false
	}
	return FlowEvent{Type: FlowEvFailed, Step: d.Step, StepIndex: r.StepIndex, Decision: d.ID,
		Error: fmt.Sprintf("decision %s (step %s) timed out at %s with no fallback", d.ID, d.Step, d.Deadline.Format(time.RFC3339))}, true
}

func (d *Decision) notPending() *Error {
	msg := fmt.Sprintf("decision %s is %s", d.ID, d.Status)
	if r := d.Resolution; r != nil {
		how := r.Option
		if how == "" {
			how = "an answer"
		}
		msg = fmt.Sprintf("decision %s was already resolved with %q by %s at %s", d.ID, how, r.Actor, r.At.Format(time.RFC3339))
		if r.Timeout {
			msg = fmt.Sprintf("decision %s was already resolved with %q when it timed out at %s", d.ID, how, r.At.Format(time.RFC3339))
		}
	}
	return &Error{Code: CodeDecisionNotPending, Message: msg,
		Recovery: Recovery{Hint: "A decision is resolved once; list the pending ones.", NextCommand: "flowdeck decisions"}}
}
