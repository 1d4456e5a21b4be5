package db

import (
	"fmt"
	"path/filepath"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/internal/contain"
	"github.com/flowdeck/flowdeck/model"
)

// Doctor checks the database at path without changing it: it opens only an
// existing file, checks every page (bbolt's Tx.Check) and replays every
// session's log against the stored state, and with opts.Digest the status
// digest against a fresh render (Verify).
func Doctor(path string, opts Options) (*model.DoctorReport, error) {
	opts.Existing = true
	abs, _ := filepath.Abs(path)
	rep := &model.DoctorReport{Path: abs, Integrity: []string{}}
	s, err := Open(path, opts)
	if err == nil {
		rep.Integrity, err = s.integrity()
	}
	if err == nil {
		rep.Verify, err = s.Verify()
	}
	if f, ok := model.AsFault(err); ok {
		rep.Fault = f
		return rep, nil
	}
	if err != nil {
		return nil, err
	}
	rep.OK = len(rep.Integrity) == 0 && len(rep.Verify.Problems) == 0
	return rep, nil
}

// integrity runs bbolt's consistency check. The check reads pages on a
// goroutine of its own, where a fault could not be recovered, so first every
// reachable page is read here, under guard: a page number pointing outside
// the file is a database_corrupt fault before the check could crash on it.
func (s *Store) integrity() ([]string, error) {
	problems := []string{}
	err := s.view(func(tx *bolt.Tx) error {
		r, err := contain.Open(s.project)
		if err != nil {
			return err
		}
		defer r.Close()
		fi, err := r.Stat(s.dbRel)
		if err != nil {
			return contain.Fault(s.project, err)
		}
		if fi.Size() < tx.Size() {
			return s.corrupt(fmt.Errorf("the file has %d bytes but its pages need %d: it was truncated", fi.Size(), tx.Size()))
		}
		var sum byte
		if err := tx.ForEach(func(_ []byte, b *bolt.Bucket) error { return touch(b, &sum) }); err != nil {
			return err
		}
		for err := range tx.Check() {
			problems = append(problems, err.Error())
		}
		return nil
	})
	return problems, err
}

// touch reads every key and value of b and its nested buckets, to fault on
// any page that is not in the file.
func touch(b *bolt.Bucket, sum *byte) error {
	return b.ForEach(func(k, v []byte) error {
		if v == nil {
			if nested := b.Bucket(k); nested != nil {
				return touch(nested, sum)
			}
			return nil
		}
		if len(v) > 0 {
			*sum ^= v[0] ^ v[len(v)-1]
		}
		return nil
	})
}
