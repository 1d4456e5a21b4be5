package db

import (
	"path/filepath"

	"github.com/flowdeck/flowdeck/internal/contain"
)

// LockFile takes an exclusive flock on name, a side file relative to .flow
// (made if missing, beneath the project), waiting at most the store's lock
// timeout: a holder that hangs (a stuck git under .flow/git.lock) fails the
// waiters with ErrBusy instead of stalling every one of them. It returns
// the lock's release.
func (s *Store) LockFile(name string) (func(), error) {
	r, err := contain.Open(s.project)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rel := filepath.Join(s.flowRel, name)
	if err := r.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return nil, contain.Fault(s.project, err)
	}
	l, err := acquire(r, rel, filepath.Join(s.project, rel), true, s.timeout)
	if err != nil {
		return nil, err
	}
	return l.release, nil
}
