package db

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/flowdeck/flowdeck/internal/contain"
)

// fileLock is an flock(2) on a side file. bbolt's own lock polls every 50 ms,
// which makes a queue of writers crawl; a blocking flock wakes the next waiter
// the moment the holder releases, and lets readers share. A nil *fileLock is
// a reader on a read-only project, which relies on bbolt's own shared lock.
type fileLock struct{ f *os.File }

// acquire takes the lock file rel below r (path is its full name, for
// messages). A reader that may not create or write the lock file (a
// read-only project) opens it read-only, or goes without: bbolt's shared
// lock on the database still keeps writers out while it reads.
func acquire(r *os.Root, rel, path string, exclusive bool, timeout time.Duration) (*fileLock, error) {
	f, err := r.OpenFile(rel, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil && !exclusive && readOnlyFS(err) {
		f, err = r.OpenFile(rel, os.O_RDONLY, 0)
		if err != nil && (readOnlyFS(err) || errors.Is(err, fs.ErrNotExist)) {
			return nil, nil
		}
	}
	if err != nil {
		return nil, contain.Fault(r.Name(), fmt.Errorf("open lock file: %w", err))
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB) == nil {
		return &fileLock{f}, nil
	}
	done := make(chan error, 1)
	go func() { done <- flockRetry(f, how) }()
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return &fileLock{f}, nil
	case <-time.After(timeout):
		// The goroutine still waits in flock; when it gets the lock it must
		// give it back, so hand the file to it.
		go func() {
			<-done
			f.Close()
		}()
		return nil, ErrBusy{Path: path, Waited: timeout}
	}
}

// readOnlyFS reports whether err says the file may not be created or
// written: a read-only mount or a directory without write permission.
func readOnlyFS(err error) bool {
	return errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission)
}

func flockRetry(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}

func (l *fileLock) release() {
	if l == nil {
		return
	}
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
}

// ErrBusy says another process held the project's database for longer than
// the lock timeout.
type ErrBusy struct {
	Path   string
	Waited time.Duration
}

func (e ErrBusy) Error() string {
	return fmt.Sprintf("database is busy: another flowdeck process held %s for %s (raise FLOWDECK_LOCK_TIMEOUT to wait longer)", e.Path, e.Waited)
}
