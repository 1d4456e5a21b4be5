package db

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"flowdeck/model"
)

// Decisions are the points where a flow waits for a person: a decision step,
// a form for a human step, a task for a role with no agent, and the
// retry/skip/cancel question after an interrupted action. Bucket
// `decisions`, key = id (d1, d2, ...), value = the decision (JSON). A
// decision is resolved once: resolving it and recording that on its flow run
// happen in one transaction, and a second resolution is refused.
var bucketDecisions = []byte("decisions")

func init() { extraBuckets = append(extraBuckets, bucketDecisions) }

// Decision kinds.
const (
	DecisionChoice      = "decision"    // a decision step: options or free text
	DecisionForm        = "form"        // a person answers a step's parse variables
	DecisionTask        = "task"        // a person does what the step asks (no agent for its role)
	DecisionInterrupted = "interrupted" // retry, skip or cancel an action that was cut off
)

// Decision statuses.
const (
	DecisionPending   = "pending"
	DecisionResolved  = "resolved"
	DecisionExpired   = "expired"
	DecisionCancelled = "cancelled"
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
	Kind     string           `json:"kind"`
	Prompt   string           `json:"prompt"`
	Options  []DecisionOption `json:"options,omitempty"`
	Fields   []DecisionField  `json:"fields,omitempty"`
	Fallback string           `json:"fallback,omitempty"`
	Deadline *time.Time       `json:"deadline,omitempty"`
	// Action is the step action the decision belongs to; the run continues
	// at Action+1 (at Action after "retry", at SkipTo after "skip").
	Action     int         `json:"action"`
	SkipTo     int         `json:"skip_to,omitempty"`
	Status     string      `json:"status"`
	Created    time.Time   `json:"created"`
	Actor      string      `json:"actor"`
	Resolution *Resolution `json:"resolution,omitempty"`
}

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
	At      time.Time      `json:"at"`
	Timeout bool           `json:"timeout,omitempty"`
}

// CreateDecision stores a pending decision (d.ID is assigned) and, when it
// belongs to a flow run, records decision_created on the run in the same
// transaction.
func (s *Store) CreateDecision(d *Decision, actor string, now time.Time) (*Decision, *model.FlowRun, error) {
	var run *model.FlowRun
	out := *d
	err := s.update(func(tx *bolt.Tx) error {
		run = nil
		b, err := tx.CreateBucketIfNotExists(bucketDecisions)
		if err != nil {
			return err
		}
		n, err := b.NextSequence()
		if err != nil {
			return err
		}
		out.ID = "d" + strconv.FormatUint(n, 10)
		out.Status, out.Created, out.Actor, out.Resolution = DecisionPending, now, actor, nil
		if out.FlowRun != "" {
			r, err := loadFlowRun(tx, out.FlowRun)
			if err != nil {
				return err
			}
			ev := model.FlowEvent{Type: model.FlowEvDecisionCreated, Step: out.Step, StepIndex: r.StepIndex, Action: out.Action, Decision: out.ID, Kind: out.Kind}
			if out.Kind == DecisionInterrupted {
				ev.Type = model.FlowEvInterrupted
			}
			if err := putFlowEvents(tx, r, actor, now, ev); err != nil {
				return err
			}
			run = r
		}
		return putDecision(tx, &out)
	})
	if err != nil {
		return nil, nil, err
	}
	return &out, run, nil
}

func putDecision(tx *bolt.Tx, d *Decision) error {
	raw, err := json.Marshal(d)
	if err != nil {
		return err
	}
	b, err := tx.CreateBucketIfNotExists(bucketDecisions)
	if err != nil {
		return err
	}
	return b.Put([]byte(d.ID), raw)
}

func loadDecision(tx *bolt.Tx, id string) (*Decision, error) {
	b := tx.Bucket(bucketDecisions)
	var raw []byte
	if b != nil {
		raw = b.Get([]byte(id))
	}
	if raw == nil {
		return nil, &model.Error{Code: CodeUnknownDecision, Message: "no decision " + id,
			Recovery: model.Recovery{Hint: "flowdeck decisions lists the pending decisions.", NextCommand: "flowdeck decisions"}}
	}
	var d Decision
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("decision %s: decode: %w", id, err)
	}
	return &d, nil
}

// Decision returns a stored decision.
func (s *Store) Decision(id string) (*Decision, error) {
	var d *Decision
	err := s.view(func(tx *bolt.Tx) (err error) {
		d, err = loadDecision(tx, id)
		return err
	})
	return d, err
}

// Decisions lists decisions, oldest first; pendingOnly keeps the pending.
func (s *Store) Decisions(pendingOnly bool) ([]Decision, error) {
	var out []Decision
	err := s.view(func(tx *bolt.Tx) (err error) {
		out, err = decisionsTx(tx, pendingOnly)
		return err
	})
	return out, err
}

func decisionsTx(tx *bolt.Tx, pendingOnly bool) ([]Decision, error) {
	var out []Decision
	b := tx.Bucket(bucketDecisions)
	if b == nil {
		return nil, nil
	}
	err := b.ForEach(func(k, v []byte) error {
		var d Decision
		if err := json.Unmarshal(v, &d); err != nil {
			return fmt.Errorf("decision %s: decode: %w", k, err)
		}
		if !pendingOnly || d.Status == DecisionPending {
			out = append(out, d)
		}
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool {
		a, _ := strconv.Atoi(strings.TrimPrefix(out[i].ID, "d"))
		b, _ := strconv.Atoi(strings.TrimPrefix(out[j].ID, "d"))
		return a < b
	})
	return out, err
}

// ResolveDecision resolves a pending decision once and records the answer
// on its flow run, in one transaction. The option must be one of the
// decision's options when it has any. A decision that is no longer pending
// is refused with a *model.Error saying who resolved it and how.
func (s *Store) ResolveDecision(id string, res Resolution) (*Decision, *model.FlowRun, error) {
	var d *Decision
	var run *model.FlowRun
	err := s.update(func(tx *bolt.Tx) error {
		var err error
		run = nil
		if d, err = loadDecision(tx, id); err != nil {
			return err
		}
		if d.Status != DecisionPending {
			return notPending(d)
		}
		if len(d.Options) > 0 {
			ok := false
			var ids []string
			for _, o := range d.Options {
				ok = ok || o.ID == res.Option
				ids = append(ids, o.ID)
			}
			if !ok {
				return &model.Error{Code: CodeUnknownDecisionOption,
					Message: fmt.Sprintf("decision %s has no option %q (options: %s)", id, res.Option, strings.Join(ids, ", ")),
					Recovery: model.Recovery{Hint: "Choose one of the options.",
						NextCommand: "flowdeck decide " + id + " " + ids[0]}}
			}
		}
		r := res
		d.Status, d.Resolution = DecisionResolved, &r
		if d.FlowRun != "" {
			if run, err = loadFlowRun(tx, d.FlowRun); err != nil {
				return err
			}
			if run.Decision == d.ID && !model.FlowEnded(run.Status) {
				next := d.Action + 1
				switch {
				case d.Kind == DecisionInterrupted && res.Option == "retry":
					next = d.Action
				case d.Kind == DecisionInterrupted && res.Option == "skip":
					next = d.SkipTo
				}
				ev := model.FlowEvent{Type: model.FlowEvDecisionResolved, Step: d.Step, StepIndex: run.StepIndex, Decision: d.ID,
					Kind: d.Kind, Option: res.Option, Note: res.Note, Vars: res.Vars, NewAction: next}
				if err := putFlowEvents(tx, run, res.Actor, res.At, ev); err != nil {
					return err
				}
			}
		}
		return putDecision(tx, d)
	})
	if err != nil {
		return nil, nil, err
	}
	return d, run, nil
}

func notPending(d *Decision) *model.Error {
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
	return &model.Error{Code: CodeDecisionNotPending, Message: msg,
		Recovery: model.Recovery{Hint: "A decision is resolved once; list the pending ones.", NextCommand: "flowdeck decisions"}}
}

// ExpireDecision settles a pending decision whose deadline has passed: with
// its fallback when it has one, else it expires and its flow run fails. It
// does nothing to a decision that is not pending or not yet due.
func (s *Store) ExpireDecision(id string, now time.Time) (*Decision, error) {
	d, err := s.Decision(id)
	if err != nil || d.Status != DecisionPending || d.Deadline == nil || now.Before(*d.Deadline) {
		return d, err
	}
	if d.Fallback != "" {
		d, _, err = s.ResolveDecision(id, Resolution{Option: d.Fallback, Actor: "timeout", At: now, Timeout: true,
			Vars: map[string]any{"decision": map[string]any{"option": d.Fallback, "note": "", "actor": "timeout"}}})
		if _, refused := model.AsError(err); refused {
			return s.Decision(id)
		}
		return d, err
	}
	err = s.update(func(tx *bolt.Tx) error {
		if d, err = loadDecision(tx, id); err != nil {
			return err
		}
		if d.Status != DecisionPending {
			return nil
		}
		d.Status = DecisionExpired
		if d.FlowRun != "" {
			run, err := loadFlowRun(tx, d.FlowRun)
			if err != nil {
				return err
			}
			if !model.FlowEnded(run.Status) {
				ev := model.FlowEvent{Type: model.FlowEvFailed, Step: d.Step, StepIndex: run.StepIndex, Decision: d.ID,
					Error: fmt.Sprintf("decision %s (step %s) timed out at %s with no fallback", d.ID, d.Step, d.Deadline.Format(time.RFC3339))}
				if err := putFlowEvents(tx, run, "timeout", now, ev); err != nil {
					return err
				}
			}
		}
		return putDecision(tx, d)
	})
	return d, err
}

// CancelFlowRun cancels a run that has not ended, and its pending decision,
// in one transaction.
func (s *Store) CancelFlowRun(id, reason, actor string, now time.Time) (*model.FlowRun, error) {
	var run *model.FlowRun
	err := s.update(func(tx *bolt.Tx) error {
		r, err := loadFlowRun(tx, id)
		if err != nil {
			return err
		}
		if model.FlowEnded(r.Status) {
			return model.ErrFlowRunEnded{ID: r.ID, Status: r.Status}
		}
		if r.Decision != "" {
			if d, err := loadDecision(tx, r.Decision); err == nil && d.Status == DecisionPending {
				d.Status = DecisionCancelled
				if err := putDecision(tx, d); err != nil {
					return err
				}
			}
		}
		if err := putFlowEvents(tx, r, actor, now, model.FlowEvent{Type: model.FlowEvCancelled, Step: r.Step, StepIndex: r.StepIndex, Note: reason}); err != nil {
			return err
		}
		run = r
		return nil
	})
	return run, err
}
