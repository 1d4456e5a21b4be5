package db

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

// Reaper, when set, is given what a dead run's capturer recorded with
// SetRemains when the run is marked interrupted. capture sets it to kill
// what of the run survived (db knows nothing of processes).
var Reaper func(remains []byte)

// A capturing process holds an flock on .flow/runs/ID.lock for the whole run
// and removes the file when the run's final record is committed. The kernel
// drops the lock when the process dies, so a run whose record says running
// and whose lock is free (or whose file is gone) lost its capturer: no pid
// guess, no heartbeat.
const runLockDir = "runs"

type runLock struct{ f *os.File }

func runLockName(id string) (string, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return "", fmt.Errorf("run id %q: not a valid run id", id)
	}
	return runLockDir + "/" + id + ".lock", nil
}

// lockRun creates and takes the run's liveness lock.
func (s *Store) lockRun(id string) (*runLock, error) {
	name, err := runLockName(id)
	if err != nil {
		return nil, err
	}
	f, err := s.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("run %s: liveness lock: %w", id, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("run %s: liveness lock %s is held by another process", id, f.Name())
	}
	return &runLock{f}, nil
}

// release removes the lock file, then drops the lock: a process that opened
// the file before the removal takes the lock after it and finds the run's
// record already final.
func (s *Store) releaseRun(id string, l *runLock) {
	if name, err := runLockName(id); err == nil {
		s.Remove(filepath.Join(s.Dir(), name))
	}
	l.f.Close() // closing drops the flock
}

// probeRun reports whether the capturer of run id is gone. When it is and
// the lock file exists, the lock is returned held, with the remains the
// capturer recorded.
func (s *Store) probeRun(id string) (l *runLock, remains []byte, dead bool) {
	name, err := runLockName(id)
	if err != nil {
		return nil, nil, true
	}
	f, err := s.OpenFile(name, os.O_RDONLY, 0) // flock needs no write access
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, true
	}
	if err != nil {
		return nil, nil, false // cannot tell: say alive, nothing is lost
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return nil, nil, false
	}
	remains, _ = io.ReadAll(io.LimitReader(f, 64<<10))
	return &runLock{f}, remains, true
}

// SetRemains records in the run's lock file where its processes are, for
// the Reaper of a later process should this one die.
func (w *RunWriter) SetRemains(data []byte) error {
	if w.lock == nil {
		return nil
	}
	if err := w.lock.f.Truncate(0); err != nil {
		return err
	}
	_, err := w.lock.f.WriteAt(data, 0)
	return err
}

// settleTx marks rec interrupted if it says running and its capturer died,
// and then lets the Reaper kill what is left of it.
func (s *Store) settleTx(tx *bolt.Tx, rec *model.RunRecord) (bool, error) {
	if rec.Outcome != model.RunRunning {
		return false, nil
	}
	l, remains, dead := s.probeRun(rec.ID)
	if !dead {
		return false, nil
	}
	rec.Outcome, rec.ExitCode, rec.Class = model.RunInterrupted, -1, "failure"
	rec.Summary = "interrupted: the flowdeck process that ran it died; output kept up to its last commit"
	err := putRun(tx, rec)
	if err == nil {
		err = addOutputBytes(tx, rec.Bytes)
	}
	if l != nil {
		if err == nil && Reaper != nil && len(remains) > 0 {
			Reaper(remains)
		}
		s.releaseRun(rec.ID, l)
	}
	return err == nil, err
}

// settle marks interrupted the runs among recs whose capturer died, and
// reports whether it marked any (the caller then reads again). Checking a
// lock is an open and a failed flock, so listing costs next to nothing
// while runs are alive.
func (s *Store) settle(recs []model.RunRecord) (bool, error) {
	var ids []string
	for _, r := range recs {
		if r.Outcome != model.RunRunning {
			continue
		}
		if l, _, dead := s.probeRun(r.ID); dead {
			if l != nil {
				l.f.Close()
			}
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		return false, nil
	}
	marked := false
	err := s.update(func(tx *bolt.Tx) error {
		for _, id := range ids {
			rec, err := getRun(tx, id)
			if err != nil || rec == nil {
				return err
			}
			ok, err := s.settleTx(tx, rec)
			if err != nil {
				return err
			}
			marked = marked || ok
		}
		return nil
	})
	return marked, err
}
