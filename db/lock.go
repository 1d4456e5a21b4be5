package db

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// fileLock is an flock(2) on a side file. bbolt's own lock polls every 50 ms,
// which makes a queue of writers crawl; a blocking flock wakes the next waiter
// the moment the holder releases, and lets readers share.
type fileLock struct{ f *os.File }

func acquire(path string, exclusive bool, timeout time.Duration) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
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

func flockRetry(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}

func (l *fileLock) release() {
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
