package db

import (
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/flowdeck/flowdeck/model"
)

// Forget deletes output and index of the selected runs (the records stay,
// marked forgotten) and returns how many runs it touched.
func (s *Store) Forget(q model.ForgetQuery) (int, error) {
	n := 0
	err := s.update(func(tx *bolt.Tx) error {
		n = 0
		var recs []model.RunRecord
		err := tx.Bucket(bucketRuns).ForEach(func(k, v []byte) error {
			var rec model.RunRecord
			if err := json.Unmarshal(v, &rec); err != nil {
				return fmt.Errorf("run %s: decode: %w", k, err)
			}
			switch {
			case q.All, q.RunID == rec.ID, !q.Before.IsZero() && rec.Start.Before(q.Before):
				recs = append(recs, rec)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, rec := range recs {
			// A run whose capturer died is interrupted, and can be forgotten.
			if _, err := s.settleTx(tx, &rec); err != nil {
				return err
			}
			if rec.Outcome == model.RunRunning {
				continue
			}
			if err := forgetRun(tx, rec.ID); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

func forgetRun(tx *bolt.Tx, id string) error {
	for _, name := range [][]byte{bucketOutput, bucketIndex} {
		if err := tx.Bucket(name).DeleteBucket([]byte(id)); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return err
		}
	}
	rec, err := getRun(tx, id)
	if err != nil || rec == nil {
		return err
	}
	if rec.Forgotten {
		return nil // counted out already
	}
	rec.Forgotten = true
	if rec.Outcome != model.RunRunning {
		if err := addOutputBytes(tx, -rec.Bytes); err != nil {
			return err
		}
	}
	return putRun(tx, rec)
}

// keyOutputBytes counts the output bytes of finished, unforgotten runs, so
// retention need not read every record after every run.
var keyOutputBytes = []byte("output_bytes")

func outputBytes(tx *bolt.Tx) (int64, bool) {
	v := tx.Bucket(bucketMeta).Get(keyOutputBytes)
	if len(v) != 8 {
		return 0, false
	}
	return int64(getU64(v)), true
}

func setOutputBytes(tx *bolt.Tx, n int64) error {
	return tx.Bucket(bucketMeta).Put(keyOutputBytes, u64(uint64(max(n, 0))))
}

func addOutputBytes(tx *bolt.Tx, delta int64) error {
	n, known := outputBytes(tx)
	if !known {
		return nil // computed by the next retention scan
	}
	return setOutputBytes(tx, n+delta)
}

// retainTx deletes the output of the oldest finished runs until the stored
// output is at most maxBytes (counted as the commands wrote it), and returns
// how many runs it touched. RunWriter.Finish calls it in the transaction that
// stores a run's last output. A run still running neither counts nor is
// evicted (its output is counted when it finishes), so it cannot make newer
// runs be forgotten; one whose capturer died is marked interrupted here and
// counts and ages like any finished run.
func (s *Store) retainTx(tx *bolt.Tx, maxBytes int64) (int, error) {
	if maxBytes <= 0 {
		return 0, nil
	}
	if total, known := outputBytes(tx); known && total <= maxBytes {
		return 0, nil // the common case: no record is decoded
	}
	var recs []model.RunRecord
	err := tx.Bucket(bucketRuns).ForEach(func(k, v []byte) error {
		var rec model.RunRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return fmt.Errorf("run %s: decode: %w", k, err)
		}
		if !rec.Forgotten {
			recs = append(recs, rec)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	var total int64
	finished := recs[:0]
	for _, rec := range recs {
		if _, err := s.settleTx(tx, &rec); err != nil {
			return 0, err
		}
		if rec.Outcome != model.RunRunning {
			finished = append(finished, rec)
			total += rec.Bytes
		}
	}
	if err := setOutputBytes(tx, total); err != nil || total <= maxBytes {
		return 0, err
	}
	n := 0
	for _, rec := range finished { // keys sort by start time: oldest first
		if total <= maxBytes {
			break
		}
		if err := forgetRun(tx, rec.ID); err != nil {
			return n, err
		}
		total -= rec.Bytes
		n++
	}
	return n, nil
}
