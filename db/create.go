package db

import (
	"errors"
	"io/fs"
	"os"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/internal/contain"
)

// create makes a new database: bbolt initialises and migrates a temporary
// file, which is then renamed into place, so the database file never exists
// half-made (and an empty one can be refused as damaged).
func (s *Store) create(r *os.Root) error {
	l, err := acquire(r, s.lockRel, s.lock, true, s.timeout)
	if err != nil {
		return err
	}
	defer l.release()
	return s.createLocked(r)
}

// createLocked is create for a caller that holds the exclusive lock.
func (s *Store) createLocked(r *os.Root) error {
	if _, err := r.Stat(s.dbRel); err == nil {
		return nil // another process made it while we waited
	} else if !errors.Is(err, fs.ErrNotExist) {
		return contain.Fault(s.project, err)
	}
	f, tmp, err := contain.CreateTemp(r, s.flowRel, ".flowdeck.db-new-", 0o644)
	if err != nil {
		return err
	}
	f.Close()
	defer r.Remove(tmp) // gone after the rename; left behind only on failure
	b, err := s.boltOpen(r, tmp, true, &bolt.Options{Timeout: s.timeout, NoSync: s.noSync})
	if err != nil {
		return err
	}
	err = s.guard(func() error { return b.Update(s.migrate) })
	if cerr := s.closeBolt(b); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := r.Rename(tmp, s.dbRel); err != nil {
		return contain.Fault(s.project, err)
	}
	if d, err := r.Open(s.flowRel); err == nil { // make the rename durable
		if !s.noSync {
			d.Sync()
		}
		d.Close()
	}
	return nil
}
