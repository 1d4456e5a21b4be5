package db

import bolt "go.etcd.io/bbolt"

// What only tests read from a store or feed a run, kept out of its API.

// changes is the change counter in the meta bucket: every committed write
// moves it.
func (s *Store) changes() (uint64, error) {
	var n uint64
	err := s.view(func(tx *bolt.Tx) error {
		if meta := tx.Bucket(bucketMeta); meta != nil {
			n = getU64(meta.Get(keyChanges))
		}
		return nil
	})
	return n, err
}

// writeRaw appends raw output to a run, as capture does.
func writeRaw(w *RunWriter, p []byte) error { return w.Append(p, nil, 0) }

// indexLine adds one line of text (no newline) to a run's recall index, cut
// at MaxIndexLine as capture cuts it.
func indexLine(w *RunWriter, line string) {
	if len(line) > MaxIndexLine {
		line = line[:MaxIndexLine]
	}
	w.Append(nil, []byte(line+"\n"), 1)
}
