package db

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

var (
	bucketRuns   = []byte("runs")
	bucketOutput = []byte("output")
	bucketIndex  = []byte("index")
)

func init() { extraBuckets = append(extraBuckets, bucketRuns, bucketOutput, bucketIndex) }

// NewRunID returns a new run id: sortable by start time (millisecond
// resolution), with a random tail so two processes never collide.
func NewRunID(start time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return start.UTC().Format("20060102-150405.000") + "-" + hex.EncodeToString(b[:])
}

func putRun(tx *bolt.Tx, rec *model.RunRecord) error {
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketRuns).Put([]byte(rec.ID), raw)
}

func getRun(tx *bolt.Tx, id string) (*model.RunRecord, error) {
	b := tx.Bucket(bucketRuns)
	if b == nil {
		return nil, nil
	}
	raw := b.Get([]byte(id))
	if raw == nil {
		return nil, nil
	}
	var rec model.RunRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, fmt.Errorf("run %s: decode: %w", id, err)
	}
	return &rec, nil
}

// Runs lists up to limit runs (0 = all), newest first. Runs whose
// capturing process died are marked interrupted first.
func (s *Store) Runs(limit int) ([]model.RunRecord, error) { return s.RunsOf(limit, true) }

// RunsOf is Runs without the flows' plumbing (model.RunRecord.Internal)
// unless internal: limit counts the runs listed, so plumbing does not
// crowd the person's runs out of the list.
func (s *Store) RunsOf(limit int, internal bool) ([]model.RunRecord, error) {
	var out []model.RunRecord
	read := func() error {
		return s.view(func(tx *bolt.Tx) (err error) {
			out, err = runsTx(tx, limit, internal)
			return err
		})
	}
	if err := read(); err != nil {
		return nil, err
	}
	// A failure to mark (a read-only project) leaves the list as it is.
	if marked, _ := s.settle(out); !marked {
		return out, nil
	}
	return out, read()
}

func runsTx(tx *bolt.Tx, limit int, internal bool) ([]model.RunRecord, error) {
	var out []model.RunRecord
	b := tx.Bucket(bucketRuns)
	if b == nil {
		return nil, nil
	}
	c := b.Cursor()
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		var rec model.RunRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return nil, fmt.Errorf("run %s: decode: %w", k, err)
		}
		if rec.Internal && !internal {
			continue
		}
		out = append(out, rec)
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return out, nil
}

// Run returns one run record, or nil; marked interrupted first if its
// capturing process died.
func (s *Store) Run(id string) (*model.RunRecord, error) {
	var rec *model.RunRecord
	read := func() error {
		return s.view(func(tx *bolt.Tx) (err error) {
			rec, err = getRun(tx, id)
			return err
		})
	}
	if err := read(); err != nil || rec == nil {
		return rec, err
	}
	if marked, _ := s.settle([]model.RunRecord{*rec}); !marked {
		return rec, nil
	}
	return rec, read()
}

// ReadOutput returns up to max bytes of a run's raw output from offset, and
// the offset after them. At the end of what is stored so far it returns no
// data and next == offset.
func (s *Store) ReadOutput(id string, offset int64, max int) ([]byte, int64, error) {
	var out []byte
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketOutput).Bucket([]byte(id))
		if b == nil {
			return nil
		}
		_, dec := codecs()
		c := b.Cursor()
		k, v := c.Seek(u64(uint64(offset)))
		if k == nil || int64(getU64(k)) > offset {
			// The chunk holding offset starts before it.
			k, v = c.Prev()
			if k == nil {
				k, v = c.First()
			}
		}
		for ; k != nil && len(out) < max; k, v = c.Next() {
			start := int64(getU64(k))
			data, err := dec.DecodeAll(v, nil)
			if err != nil {
				return fmt.Errorf("run %s: output chunk at %d: %w", id, start, err)
			}
			if skip := offset - start; skip > 0 {
				if skip >= int64(len(data)) {
					continue
				}
				data = data[skip:]
			}
			need := max - len(out)
			if len(data) > need {
				data = data[:need]
			}
			out = append(out, data...)
			offset += int64(len(data))
		}
		return nil
	})
	return out, offset, err
}
