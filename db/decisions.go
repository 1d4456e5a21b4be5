package db

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

// Decisions (model.Decision) are stored in bucket `decisions`, key = id (d1,
// d2, ...), value = the decision (JSON). A decision is resolved once:
// resolving it and recording that on its flow run happen in one
// transaction, and a second resolution is refused (model decides which).
var bucketDecisions = []byte("decisions")

func init() { extraBuckets = append(extraBuckets, bucketDecisions) }

// CreateDecision stores a pending decision (d.ID is assigned) and, when it
// belongs to a flow run, records decision_created on the run in the same
// transaction.
func (s *Store) CreateDecision(d *model.Decision, actor string, now time.Time) (*model.Decision, *model.FlowRun, error) {
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
		out.Status, out.Created, out.Actor, out.Resolution = model.DecisionPending, now, actor, nil
		if out.FlowRun != "" {
			r, err := loadFlowRun(tx, out.FlowRun)
			if err != nil {
				return err
			}
			if err := putFlowEvents(tx, r, actor, now, out.CreatedEvent(r)); err != nil {
				return err
			}
			run = r
		}
		return s.putDecision(tx, &out)
	})
	if err != nil {
		return nil, nil, err
	}
	return &out, run, nil
}

// putDecision stores d and the status digest, whose HUD lists the
// pending decisions.
func (s *Store) putDecision(tx *bolt.Tx, d *model.Decision) error {
	raw, err := json.Marshal(d)
	if err != nil {
		return err
	}
	b, err := tx.CreateBucketIfNotExists(bucketDecisions)
	if err != nil {
		return err
	}
	if err := b.Put([]byte(d.ID), raw); err != nil {
		return err
	}
	return s.storeDigest(tx, nil)
}

func loadDecision(tx *bolt.Tx, id string) (*model.Decision, error) {
	b := tx.Bucket(bucketDecisions)
	var raw []byte
	if b != nil {
		raw = b.Get([]byte(id))
	}
	if raw == nil {
		return nil, model.UnknownDecision(id)
	}
	var d model.Decision
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("decision %s: decode: %w", id, err)
	}
	return &d, nil
}

// Decision returns a stored decision.
func (s *Store) Decision(id string) (*model.Decision, error) {
	var d *model.Decision
	err := s.view(func(tx *bolt.Tx) (err error) {
		d, err = loadDecision(tx, id)
		return err
	})
	return d, err
}

// Decisions lists decisions, oldest first; pendingOnly keeps the pending.
func (s *Store) Decisions(pendingOnly bool) ([]model.Decision, error) {
	var out []model.Decision
	err := s.view(func(tx *bolt.Tx) (err error) {
		out, err = decisionsTx(tx, pendingOnly)
		return err
	})
	return out, err
}

func decisionsTx(tx *bolt.Tx, pendingOnly bool) ([]model.Decision, error) {
	var out []model.Decision
	b := tx.Bucket(bucketDecisions)
	if b == nil {
		return nil, nil
	}
	err := b.ForEach(func(k, v []byte) error {
		var d model.Decision
		if err := json.Unmarshal(v, &d); err != nil {
			return fmt.Errorf("decision %s: decode: %w", k, err)
		}
		if !pendingOnly || d.Status == model.DecisionPending {
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
func (s *Store) ResolveDecision(id string, res model.Resolution) (*model.Decision, *model.FlowRun, error) {
	var d *model.Decision
	var run *model.FlowRun
	err := s.update(func(tx *bolt.Tx) error {
		var err error
		run = nil
		if d, err = loadDecision(tx, id); err != nil {
			return err
		}
		if err := d.Resolve(res); err != nil {
			return err
		}
		if d.FlowRun != "" {
			if run, err = loadFlowRun(tx, d.FlowRun); err != nil {
				return err
			}
			if ev, ok := d.ResolvedEvent(run); ok {
				if err := putFlowEvents(tx, run, res.Actor, res.At, ev); err != nil {
					return err
				}
			}
		}
		return s.putDecision(tx, d)
	})
	if err != nil {
		return nil, nil, err
	}
	return d, run, nil
}

// ExpireDecision settles a pending decision whose deadline has passed: with
// its fallback when it has one, else it expires and its flow run fails. It
// does nothing to a decision that is not pending or not yet due.
func (s *Store) ExpireDecision(id string, now time.Time) (*model.Decision, error) {
	d, err := s.Decision(id)
	if err != nil || !d.Due(now) {
		return d, err
	}
	if d.Fallback != "" {
		d, _, err = s.ResolveDecision(id, d.TimeoutResolution(now))
		if _, refused := model.AsError(err); refused {
			return s.Decision(id)
		}
		return d, err
	}
	err = s.update(func(tx *bolt.Tx) error {
		if d, err = loadDecision(tx, id); err != nil {
			return err
		}
		if d.Status != model.DecisionPending {
			return nil
		}
		d.Status = model.DecisionExpired
		if d.FlowRun != "" {
			run, err := loadFlowRun(tx, d.FlowRun)
			if err != nil {
				return err
			}
			if ev, ok := d.ExpiredEvent(run); ok {
				if err := putFlowEvents(tx, run, "timeout", now, ev); err != nil {
					return err
				}
			}
		}
		return s.putDecision(tx, d)
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
			if d, err := loadDecision(tx, r.Decision); err == nil && d.Status == model.DecisionPending {
				d.Status = model.DecisionCancelled
				if err := s.putDecision(tx, d); err != nil {
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
