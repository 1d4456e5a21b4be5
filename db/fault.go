package db

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/flowdeck/flowdeck/internal/contain"
	"github.com/flowdeck/flowdeck/model"
)

// leaked holds the files whose bolt.Open panicked in this process, by path.
var leaked sync.Map

var (
	errEmpty   = errors.New("the file is empty (zero bytes); flowdeck does not re-initialise it, since an empty database is a damaged one")
	errForeign = errors.New("the file is a bbolt database of some other program")
)

// corrupt is the database_corrupt fault for this store's file.
func (s *Store) corrupt(cause error) *model.Fault {
	return &model.Fault{
		Code:    model.CodeDatabaseCorrupt,
		Path:    s.path,
		Message: fmt.Sprintf("%s is not a readable flowdeck database: %v", s.path, cause),
		Hint:    "run 'flowdeck doctor' to check it; if an export exists, move the file aside and 'flowdeck import' it; else move it aside to start afresh",
		Err:     cause,
	}
}

// boltOpen opens the bbolt file rel below r. The file is opened through r
// (no symlink out of the project) and never created: bbolt initialises an
// empty file silently, so an empty file is refused unless fresh says this
// process just made it.
func (s *Store) boltOpen(r *os.Root, rel string, fresh bool, opts *bolt.Options) (b *bolt.DB, err error) {
	var size int64
	var opened *os.File
	opts.OpenFile = func(_ string, flag int, mode os.FileMode) (*os.File, error) {
		f, err := r.OpenFile(rel, flag&^os.O_CREATE, mode)
		if err != nil {
			return nil, contain.Fault(s.project, err)
		}
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
		if size == 0 && !fresh {
			f.Close()
			return nil, s.corrupt(errEmpty)
		}
		if flag&os.O_RDWR != 0 && !fresh {
			if err := precheckFreelist(f, size); err != nil {
				f.Close()
				return nil, s.corrupt(err)
			}
		}
		opened = f
		return f, nil
	}
	err = s.guard(func() error {
		b, err = bolt.Open(filepath.Join(s.project, rel), 0o644, opts)
		return err
	})
	var bp boltPanic
	if errors.As(err, &bp) && b == nil && opened != nil {
		// bbolt does not close the file when it panics while opening. Its
		// map keeps the file, and its flock, until this process exits (the
		// freelist precheck avoids the usual cause); remember why, so that
		// a later open here says damaged rather than busy.
		opened.Close()
		f, _ := model.AsFault(err)
		leaked.Store(s.path, f)
	}
	if err == nil && !fresh {
		err = s.checkSize(b, size)
	}
	if err == nil {
		return b, nil
	}
	if _, ok := model.AsFault(err); ok {
		return nil, err
	}
	if errors.Is(err, berrors.ErrTimeout) {
		if f, ok := leaked.Load(s.path); ok {
			return nil, f.(*model.Fault)
		}
		return nil, ErrBusy{Path: s.path, Waited: s.timeout}
	}
	for _, bad := range []error{berrors.ErrInvalid, berrors.ErrVersionMismatch, berrors.ErrChecksum, berrors.ErrInvalidMapping} {
		if errors.Is(err, bad) {
			return nil, s.corrupt(err)
		}
	}
	return nil, fmt.Errorf("open %s: %w", s.path, err)
}

// stored classifies the error of a transaction: a value in the file that
// does not decode is damage to the file (every function run in a
// transaction of this package decodes only what it reads from it).
func (s *Store) stored(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		if _, ok := model.AsFault(err); !ok {
			return s.corrupt(err)
		}
	}
	return err
}

// checkSize refuses a file shorter than the pages its meta page counts: it
// was truncated, and reading the missing pages would fault.
func (s *Store) checkSize(b *bolt.DB, size int64) error {
	err := s.guard(func() error {
		return b.View(func(tx *bolt.Tx) error {
			if size < tx.Size() {
				return s.corrupt(fmt.Errorf("the file has %d bytes but its pages need %d: it was truncated", size, tx.Size()))
			}
			return nil
		})
	})
	if err != nil {
		s.closeBolt(b)
	}
	return err
}

func (s *Store) closeBolt(b *bolt.DB) error {
	err := s.guard(b.Close)
	if _, ok := model.AsFault(err); err != nil && !ok {
		err = fmt.Errorf("close %s: %w", s.path, err)
	}
	return err
}

// guard runs fn and turns a panic or a memory fault inside bbolt (its
// assertions on a damaged page, a read past the end of a truncated file)
// into a database_corrupt fault. A panic from flowdeck's own code is a bug
// and stays a panic.
func (s *Store) guard(fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if !fromBolt(r) {
			panic(r)
		}
		err = s.corrupt(boltPanic{r})
	}()
	return fn()
}

// boltPanic is the cause of a fault recovered from a panic in bbolt.
type boltPanic struct{ value any }

func (p boltPanic) Error() string { return fmt.Sprintf("bbolt failed reading it: %v", p.value) }

// fromBolt reports whether the panic being recovered was raised in bbolt, or
// is a fault on mapped memory (an address far from nil), which only bbolt's
// map of the file can cause here. Called from the deferred function, while
// the panicking frames are still on the stack.
func fromBolt(r any) bool {
	if re, ok := r.(runtime.Error); ok {
		if a, ok := re.(interface{ Addr() uintptr }); ok && a.Addr() > 64<<10 {
			return true
		}
	}
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(0, pcs)])
	panicking := false
	for {
		f, more := frames.Next()
		if f.Function == "runtime.gopanic" {
			panicking = true
		} else if panicking && !strings.HasPrefix(f.Function, "runtime.") {
			return strings.HasPrefix(f.Function, "go.etcd.io/bbolt")
		}
		if !more {
			return false
		}
	}
}
