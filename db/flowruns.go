package db

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

// Flow runs: the state of each literate-flow run, event-logged like
// sessions. `flowruns` holds the materialized run (JSON) by id; `flowevents`
// holds one sub-bucket per run with its events by big-endian sequence.
// Package flows decides what happens and model.ApplyFlowEvent folds it; this
// file stores it, applying events in the same transaction that appends them.
var (
	bucketFlowRuns   = []byte("flowruns")
	bucketFlowEvents = []byte("flowevents")
)

func init() { extraBuckets = append(extraBuckets, bucketFlowRuns, bucketFlowEvents) }

// ReserveFlowRunID returns a new run id, name-N, unique in this project. Ids
// are handed out before the run is stored so that the executing process can
// lock the run first.
func (s *Store) ReserveFlowRunID(name string) (string, error) {
	var id string
	err := s.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketFlowRuns)
		if err != nil {
			return err
		}
		n, err := b.NextSequence()
		if err != nil {
			return err
		}
		id = slugify(name, 30)
		if id == "" {
			id = "flow"
		}
		id += "-" + strconv.FormatUint(n, 10)
		return nil
	})
	return id, err
}

// CreateFlowRun stores a new run (r.ID from ReserveFlowRunID) and its
// flow_started event; first and vars are its first step and variables.
func (s *Store) CreateFlowRun(r *model.FlowRun, first string, vars map[string]any, actor string, now time.Time) (*model.FlowRun, error) {
	var out *model.FlowRun
	err := s.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketFlowRuns)
		if err != nil {
			return err
		}
		if b.Get([]byte(r.ID)) != nil {
			return fmt.Errorf("flow run %s exists", r.ID)
		}
		run := *r
		run.Created, run.Actor, run.Vars = now, actor, map[string]any{}
		if meta := tx.Bucket(bucketMeta); meta != nil {
			run.Session = string(meta.Get(keyActive))
		}
		if err := putFlowEvents(tx, &run, actor, now, model.FlowEvent{Type: model.FlowEvStarted, Step: first, Vars: vars}); err != nil {
			return err
		}
		out = &run
		return nil
	})
	return out, err
}

// AppendFlowEvents applies and stores events on a run in one transaction.
func (s *Store) AppendFlowEvents(id, actor string, now time.Time, evs ...model.FlowEvent) (*model.FlowRun, error) {
	var out *model.FlowRun
	err := s.update(func(tx *bolt.Tx) error {
		r, err := loadFlowRun(tx, id)
		if err != nil {
			return err
		}
		if err := putFlowEvents(tx, r, actor, now, evs...); err != nil {
			return err
		}
		out = r
		return nil
	})
	return out, err
}

func loadFlowRun(tx *bolt.Tx, id string) (*model.FlowRun, error) {
	b := tx.Bucket(bucketFlowRuns)
	var raw []byte
	if b != nil {
		raw = b.Get([]byte(id))
	}
	if raw == nil {
		return nil, model.ErrNoFlowRun{ID: id}
	}
	var r model.FlowRun
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("flow run %s: decode: %w", id, err)
	}
	return &r, nil
}

// putFlowEvents numbers, applies and appends events, then stores the run.
func putFlowEvents(tx *bolt.Tx, r *model.FlowRun, actor string, now time.Time, evs ...model.FlowEvent) error {
	logs, err := tx.CreateBucketIfNotExists(bucketFlowEvents)
	if err != nil {
		return err
	}
	log, err := logs.CreateBucketIfNotExists([]byte(r.ID))
	if err != nil {
		return err
	}
	for _, e := range evs {
		e.Seq, e.Run, e.At, e.Actor = r.Seq+1, r.ID, now, actor
		if err := model.ApplyFlowEvent(r, e); err != nil {
			return err
		}
		raw, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode flow event: %w", err)
		}
		if err := log.Put(u64(e.Seq), raw); err != nil {
			return err
		}
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode flow run %s: %w", r.ID, err)
	}
	b, err := tx.CreateBucketIfNotExists(bucketFlowRuns)
	if err != nil {
		return err
	}
	return b.Put([]byte(r.ID), raw)
}

// FlowRun returns a stored run.
func (s *Store) FlowRun(id string) (*model.FlowRun, error) {
	var r *model.FlowRun
	err := s.view(func(tx *bolt.Tx) (err error) {
		r, err = loadFlowRun(tx, id)
		return err
	})
	return r, err
}

// FlowRuns lists every run, newest first, without the flow text.
func (s *Store) FlowRuns() ([]model.FlowRun, error) {
	var out []model.FlowRun
	err := s.view(func(tx *bolt.Tx) (err error) {
		out, err = flowRunsTx(tx)
		return err
	})
	return out, err
}

func flowRunsTx(tx *bolt.Tx) ([]model.FlowRun, error) {
	var out []model.FlowRun
	b := tx.Bucket(bucketFlowRuns)
	if b == nil {
		return nil, nil
	}
	err := b.ForEach(func(k, v []byte) error {
		var r model.FlowRun
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("flow run %s: decode: %w", k, err)
		}
		r.Text = ""
		out = append(out, r)
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.After(out[j].Created) })
	return out, err
}

// FlowEvents returns a run's events with seq >= from (at most limit; 0 =
// all), oldest first.
func (s *Store) FlowEvents(id string, from uint64, limit int) ([]model.FlowEvent, error) {
	var out []model.FlowEvent
	err := s.view(func(tx *bolt.Tx) error {
		logs := tx.Bucket(bucketFlowEvents)
		if logs == nil {
			return nil
		}
		log := logs.Bucket([]byte(id))
		if log == nil {
			return nil
		}
		c := log.Cursor()
		for k, v := c.Seek(u64(from)); k != nil; k, v = c.Next() {
			var e model.FlowEvent
			if err := json.Unmarshal(v, &e); err != nil {
				return fmt.Errorf("flow run %s event %d: decode: %w", id, getU64(k), err)
			}
			out = append(out, e)
			if limit > 0 && len(out) >= limit {
				break
			}
		}
		return nil
	})
	return out, err
}
