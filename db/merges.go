package db

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// keyMergeIntent keys, in the meta bucket, the merge into an integration
// branch that is under way: there is at most one, as merges are made one at
// a time under the git lock.
var keyMergeIntent = []byte("merge_intent")

// MergeIntent is a merge into an integration branch that a completion is
// about to make: recorded before the branch moves from Old to New and
// cleared once the completion is stored (or the merge undone). One still
// recorded when the git lock is next taken belongs to a process that died in
// between: the merge goes unless its completion was stored.
type MergeIntent struct {
	Session string `json:"session"`
	Feature string `json:"feature"`
	Branch  string `json:"branch"`
	Old     string `json:"old"`
	New     string `json:"new"`
}

// IntendMerge records m as the merge under way. One already recorded is
// refused: it has not been reconciled yet.
func (s *Store) IntendMerge(m MergeIntent) error {
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return s.update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if old := meta.Get(keyMergeIntent); old != nil {
			return fmt.Errorf("a merge is already under way: %s", old)
		}
		return meta.Put(keyMergeIntent, raw)
	})
}

// PendingMerge is the merge recorded as under way (nil: none).
func (s *Store) PendingMerge() (*MergeIntent, error) {
	var m *MergeIntent
	err := s.view(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketMeta).Get(keyMergeIntent)
		if raw == nil {
			return nil
		}
		m = &MergeIntent{}
		if err := json.Unmarshal(raw, m); err != nil {
			return fmt.Errorf("the merge under way: decode: %w", err)
		}
		return nil
	})
	return m, err
}

// EndMerge clears the merge under way if it is m (another one is left for
// its own reconciliation).
func (s *Store) EndMerge(m MergeIntent) error {
	return s.update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		raw := meta.Get(keyMergeIntent)
		if raw == nil {
			return nil
		}
		var cur MergeIntent
		if err := json.Unmarshal(raw, &cur); err == nil && cur != m {
			return nil
		}
		return meta.Delete(keyMergeIntent)
	})
}
