// Package db keeps a project's flowdeck state in one bbolt file: the event log
// of every session, the materialized sessions, flow runs and decisions,
// command runs with their output and index, and a change counter that every
// committed write moves. It stores what model decides: buckets, transactions
// and JSON.
//
// No process keeps the file open while idle. Every read or write opens the
// file, does one transaction and closes it again, under an flock on a side
// file (exclusive for writers, shared for readers), so the cockpit, agents'
// CLI calls and an MCP server can all use one project at once.
package db

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/internal/contain"
	"github.com/flowdeck/flowdeck/internal/digest"
)

// SchemaVersion is the layout of the buckets this code reads and writes.
const SchemaVersion = 1

var (
	bucketMeta     = []byte("meta")
	bucketSessions = []byte("sessions")
	bucketEvents   = []byte("events")

	keySchema  = []byte("schema")
	keyActive  = []byte("active")
	keyChanges = digest.CounterKey // what the lean binary compares a digest with
)

// DefaultLockTimeout is how long a writer waits for another process.
const DefaultLockTimeout = 10 * time.Second

// Options tune a Store.
type Options struct {
	// LockTimeout bounds the wait for another process; zero means
	// $FLOWDECK_LOCK_TIMEOUT or DefaultLockTimeout.
	LockTimeout time.Duration
	// NoSync skips fsync; only for benchmarks and tests that measure other
	// things.
	NoSync bool
	// Existing opens only a database that is already there, as it is: no
	// file is created and no schema migrated (export, doctor).
	Existing bool
	// DeferCheck leaves the checks of an existing file (a readable
	// flowdeck database of a schema this code knows, migrated if older)
	// to the first transaction, which makes them in its own open of the
	// file: a process that does one thing opens the database once, not
	// twice. Errors Open would return come from that transaction instead.
	// Ignored with Existing.
	DeferCheck bool
	// Digest renders the status digest from what the HUD reads (the
	// active session, the pending decisions, the agents' events) in every
	// transaction that changes one of them (see package digest). A store
	// without one deletes the digest in those transactions instead, so the
	// lean binary never reads a stale one.
	Digest func(*Glance) (digest.Digest, error)
}

// Store is a handle on a project's database file. It holds no open file and
// no lock between calls, so it is cheap to keep and safe to share.
//
// Every file it touches is reached through an os.Root on the project
// directory (the parent of .flow), so no write, rename or delete can follow
// a symlink out of the project.
type Store struct {
	path    string // the database file, absolute
	lock    string // the side lock file, absolute
	project string // the directory that holds .flow
	flowRel string // .flow, relative to project
	digest  func(*Glance) (digest.Digest, error)
	dbRel   string // .flow/flowdeck.db, relative to project
	lockRel string
	timeout time.Duration
	noSync  bool
	// unchecked: Open deferred the schema check (Options.DeferCheck) and
	// no transaction has made it yet.
	unchecked atomic.Bool
}

// Open prepares the database at path (creating its directory, the file and
// the buckets if needed, migrating an older schema) and returns a Store.
// A file that exists but is empty or not a flowdeck database is refused
// with a database_corrupt fault, never re-initialised.
func Open(path string, opts Options) (*Store, error) {
	s, err := configure(path, opts)
	if err != nil {
		return nil, err
	}
	// The project directory itself is the person's choice (--dir); all
	// below it goes through the root.
	if !opts.Existing {
		if err := os.MkdirAll(s.project, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", s.project, err)
		}
	}
	if err := s.prepare(opts.Existing, opts.DeferCheck && !opts.Existing); err != nil {
		return nil, err
	}
	return s, nil
}

// configure makes the Store for path without touching the file.
func configure(path string, opts Options) (*Store, error) {
	timeout := opts.LockTimeout
	if timeout == 0 {
		timeout = DefaultLockTimeout
		if v := os.Getenv("FLOWDECK_LOCK_TIMEOUT"); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				return nil, fmt.Errorf("FLOWDECK_LOCK_TIMEOUT=%q: %w", v, err)
			}
			timeout = d
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	flowDir := filepath.Dir(abs)
	s := &Store{
		path: abs, lock: abs + ".lock", project: filepath.Dir(flowDir),
		flowRel: filepath.Base(flowDir), timeout: timeout, noSync: opts.NoSync,
		digest: opts.Digest,
	}
	s.dbRel = filepath.Join(s.flowRel, filepath.Base(abs))
	s.lockRel = s.dbRel + ".lock"
	return s, nil
}

// Dir is the .flow directory that holds the database and the docs.
func (s *Store) Dir() string { return filepath.Dir(s.path) }

// prepare checks the schema with a shared lock and only takes the write lock
// when the file is new or older than this code. With deferCheck an existing
// file is left to the first transaction (checkSchema).
func (s *Store) prepare(existing, deferCheck bool) error {
	r, err := contain.Open(s.project)
	if err != nil {
		return err
	}
	defer r.Close()
	if _, err := r.Stat(s.flowRel); errors.Is(err, fs.ErrNotExist) && !existing {
		if err := r.MkdirAll(s.flowRel, 0o755); err != nil {
			return contain.Fault(s.project, err)
		}
	} else if err != nil {
		return contain.Fault(s.project, err)
	}
	fi, err := r.Stat(s.dbRel)
	if errors.Is(err, fs.ErrNotExist) {
		if existing {
			return fmt.Errorf("no flowdeck database at %s: %w", s.path, err)
		}
		return s.create(r)
	}
	if err != nil {
		return contain.Fault(s.project, err)
	}
	if fi.Size() == 0 {
		return s.corrupt(errEmpty)
	}
	if deferCheck {
		s.unchecked.Store(true)
		return nil
	}
	var version int
	if err := s.view(func(tx *bolt.Tx) error { version = schemaOf(tx); return nil }); err != nil {
		return err
	}
	if version == SchemaVersion || existing && version < SchemaVersion {
		return nil
	}
	if version > SchemaVersion {
		return s.tooNew(version)
	}
	return s.update(func(tx *bolt.Tx) error { return s.migrate(tx) })
}

func (s *Store) tooNew(version int) error {
	return fmt.Errorf("%s has schema version %d; this flowdeck understands up to %d: upgrade flowdeck", s.path, version, SchemaVersion)
}

func schemaOf(tx *bolt.Tx) int {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return 0
	}
	v, _ := strconv.Atoi(string(meta.Get(keySchema)))
	return v
}

// migrate brings the buckets from any older schema to SchemaVersion. Version
// 0 is a new file. A bbolt file with buckets but no meta bucket belongs to
// some other program: it is refused, not adopted.
func (s *Store) migrate(tx *bolt.Tx) error {
	version := schemaOf(tx)
	if version > SchemaVersion {
		return s.tooNew(version)
	}
	if tx.Bucket(bucketMeta) == nil && tx.ForEach(func([]byte, *bolt.Bucket) error { return errForeign }) != nil {
		return s.corrupt(errForeign)
	}
	for _, name := range [][]byte{bucketMeta, bucketSessions, bucketEvents} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	if err := createExtraBuckets(tx); err != nil {
		return err
	}
	return tx.Bucket(bucketMeta).Put(keySchema, []byte(strconv.Itoa(SchemaVersion)))
}

// extraBuckets are created by other files of this package (runs, output).
var extraBuckets [][]byte

func createExtraBuckets(tx *bolt.Tx) error {
	for _, name := range extraBuckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	return nil
}

// openBolt opens the database through r under the side lock. The file must
// exist and be non-empty: bbolt would silently initialise an empty one.
func (s *Store) openBolt(r *os.Root, readOnly bool) (*bolt.DB, *fileLock, error) {
	l, err := acquire(r, s.lockRel, s.lock, !readOnly, s.timeout)
	if err != nil {
		return nil, nil, err
	}
	// The side lock serializes us, so bbolt's own flock never waits; the
	// timeout only guards against a process that does not use the side lock.
	b, err := s.boltOpen(r, s.dbRel, false, &bolt.Options{
		Timeout:  s.timeout,
		ReadOnly: readOnly,
		NoSync:   s.noSync,
	})
	if err != nil {
		l.release()
		return nil, nil, err
	}
	return b, l, nil
}

// update runs fn in one write transaction and moves the change counter.
func (s *Store) update(fn func(tx *bolt.Tx) error) error {
	return s.updateThen(fn, nil)
}

// updateThen runs fn in one write transaction, then, after the commit and
// still under the exclusive lock, runs after. Derived files are written there
// so that two processes cannot write them out of order.
func (s *Store) updateThen(fn func(tx *bolt.Tx) error, after func()) error {
	return s.updateRoot(func(_ *os.Root, tx *bolt.Tx) error { return fn(tx) }, after)
}

// updateRoot is updateThen with the project root at hand, for transactions
// that must check a path before they commit.
func (s *Store) updateRoot(fn func(r *os.Root, tx *bolt.Tx) error, after func()) error {
	r, err := contain.Open(s.project)
	if err != nil {
		return err
	}
	defer r.Close()
	b, l, err := s.openBolt(r, false)
	if err != nil {
		return err
	}
	defer l.release()
	checking := s.unchecked.Load()
	err = s.guard(func() error {
		return b.Update(func(tx *bolt.Tx) error {
			if checking {
				if err := s.checkSchema(tx); err != nil {
					return err
				}
			}
			meta := tx.Bucket(bucketMeta)
			if meta == nil {
				return fn(r, tx)
			}
			// The counter moves first, so that a digest rendered in fn
			// carries the value this transaction commits.
			before := getU64(meta.Get(keyChanges))
			if err := meta.Put(keyChanges, u64(before+1)); err != nil {
				return err
			}
			if err := fn(r, tx); err != nil {
				return err
			}
			return carryDigest(meta, before, before+1)
		})
	})
	err = s.stored(err)
	if cerr := s.closeBolt(b); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil && checking {
		s.unchecked.Store(false)
	}
	if err == nil && after != nil {
		after()
	}
	return err
}

// checkSchema is the check Open makes, made by the first write
// transaction when Open deferred it: a newer schema is refused, an older
// one (or a new file's none) migrated in the same transaction.
func (s *Store) checkSchema(tx *bolt.Tx) error {
	if v := schemaOf(tx); v > SchemaVersion {
		return s.tooNew(v)
	} else if v < SchemaVersion {
		return s.migrate(tx)
	}
	return nil
}

// Check makes the checks Open deferred (Options.DeferCheck) now, for a
// caller that hands the store on and wants a bad file refused first.
func (s *Store) Check() error {
	if !s.unchecked.Load() {
		return nil
	}
	return s.view(func(*bolt.Tx) error { return nil })
}

// errMigrate stops a read that found an older schema while the check was
// deferred: view migrates in a write transaction and reads again.
var errMigrate = errors.New("the database needs migrating first")

// view runs fn in one read transaction under a shared lock. When Open
// deferred the schema check and the file turns out older than this code, it
// migrates it (as Open would have) and reads again.
func (s *Store) view(fn func(tx *bolt.Tx) error) error {
	err := s.viewOnce(fn)
	if errors.Is(err, errMigrate) {
		if err = s.update(func(*bolt.Tx) error { return nil }); err != nil {
			return err
		}
		err = s.viewOnce(fn)
	}
	return err
}

func (s *Store) viewOnce(fn func(tx *bolt.Tx) error) error {
	r, err := contain.Open(s.project)
	if err != nil {
		return err
	}
	defer r.Close()
	if _, err := r.Stat(s.dbRel); err != nil {
		return contain.Fault(s.project, fmt.Errorf("open %s: %w", s.path, err))
	}
	b, l, err := s.openBolt(r, true)
	if err != nil {
		return err
	}
	defer l.release()
	err = s.guard(func() error {
		return b.View(func(tx *bolt.Tx) error {
			if v := schemaOf(tx); v > SchemaVersion {
				return s.tooNew(v)
			} else if s.unchecked.Load() {
				if v < SchemaVersion {
					return errMigrate
				}
				s.unchecked.Store(false)
			}
			return fn(tx)
		})
	})
	err = s.stored(err)
	if cerr := s.closeBolt(b); err == nil && cerr != nil {
		err = cerr
	}
	return err
}

// Stamp is a cheap fingerprint of the database file (size and modification
// time). When it is unchanged no write has happened, so a watcher can poll it
// without opening the file or taking a lock.
func (s *Store) Stamp() (string, error) {
	fi, err := os.Stat(s.path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d/%d", fi.Size(), fi.ModTime().UnixNano()), nil
}

func u64(n uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, n)
	return b
}

func getU64(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}
