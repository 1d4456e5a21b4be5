package db

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/internal/contain"
	"github.com/flowdeck/flowdeck/model"
)

// BadExport is an export that import refuses to read: not an export, or a
// line that does not decode or replay. It names the line.
type BadExport struct{ Err error }

func (e *BadExport) Error() string { return e.Err.Error() }
func (e *BadExport) Unwrap() error { return e.Err }

// imported is one session rebuilt from an export.
type imported struct {
	id      string
	events  [][]byte // as stored: each event re-encoded
	session *model.Session
}

// Import rebuilds the database at path from an export read from r, by
// replaying every session's events through model.Apply, the code that made
// them. The whole export is checked before anything is written. An existing
// database is refused (database_exists) unless force, which moves it aside
// (renamed, never deleted) first.
func Import(path string, r io.Reader, force bool, now time.Time, opts Options) (*model.ImportReport, error) {
	head, sessions, err := readExport(r)
	if err != nil {
		return nil, &BadExport{err}
	}
	s, err := configure(path, opts)
	if err != nil {
		return nil, err
	}
	root, err := contain.Open(s.project)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if err := root.MkdirAll(s.flowRel, 0o755); err != nil {
		return nil, contain.Fault(s.project, err)
	}
	l, err := acquire(root, s.lockRel, s.lock, true, s.timeout)
	if err != nil {
		return nil, err
	}
	defer l.release()
	rep := &model.ImportReport{Path: s.path}
	if rep.MovedAside, err = s.moveAside(root, force, now); err != nil {
		return nil, err
	}
	if err := s.createLocked(root); err != nil {
		return nil, err
	}
	b, err := s.boltOpen(root, s.dbRel, false, &bolt.Options{Timeout: s.timeout, NoSync: s.noSync})
	if err != nil {
		return nil, err
	}
	err = s.guard(func() error {
		return b.Update(func(tx *bolt.Tx) error {
			if err := storeImport(tx, head, sessions, rep); err != nil {
				return err
			}
			return s.storeDigest(tx, nil)
		})
	})
	if cerr := s.closeBolt(b); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	for _, imp := range sessions {
		s.refreshDocs(docsJob{session: imp.session}) // a zero before: every doc
	}
	return rep, nil
}

// moveAside renames an existing database to flowdeck.db.replaced-TIME when
// force is set, and refuses otherwise.
func (s *Store) moveAside(r *os.Root, force bool, now time.Time) (string, error) {
	if _, err := r.Lstat(s.dbRel); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	} else if err != nil {
		return "", contain.Fault(s.project, err)
	}
	if !force {
		return "", &model.Fault{Code: model.CodeDatabaseExists, Path: s.path,
			Message: fmt.Sprintf("%s already exists; import builds a new database", s.path),
			Hint:    "pass --force to move the existing file aside (it is renamed, not deleted)"}
	}
	aside := s.dbRel + ".replaced-" + now.UTC().Format("20060102-150405")
	for n := 2; ; n++ { // never over an earlier one
		if _, err := r.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
			break
		} else if err != nil {
			return "", contain.Fault(s.project, err)
		}
		aside = fmt.Sprintf("%s.replaced-%s-%d", s.dbRel, now.UTC().Format("20060102-150405"), n)
	}
	if err := r.Rename(s.dbRel, aside); err != nil {
		return "", contain.Fault(s.project, err)
	}
	return s.project + string(os.PathSeparator) + aside, nil
}

func storeImport(tx *bolt.Tx, head ExportHeader, sessions []*imported, rep *model.ImportReport) error {
	for _, imp := range sessions {
		log, err := tx.Bucket(bucketEvents).CreateBucket([]byte(imp.id))
		if err != nil {
			return fmt.Errorf("events of %s: %w", imp.id, err)
		}
		for i, raw := range imp.events {
			if err := log.Put(u64(uint64(i+1)), raw); err != nil {
				return err
			}
		}
		state, err := json.Marshal(imp.session)
		if err != nil {
			return fmt.Errorf("encode session %s: %w", imp.id, err)
		}
		if err := tx.Bucket(bucketSessions).Put([]byte(imp.id), state); err != nil {
			return err
		}
		rep.Sessions++
		rep.Events += len(imp.events)
		if imp.id == head.Active && !imp.session.Archived {
			rep.Active = imp.id
		}
	}
	meta := tx.Bucket(bucketMeta)
	if rep.Active != "" {
		if err := meta.Put(keyActive, []byte(rep.Active)); err != nil {
			return err
		}
	}
	return meta.Put(keyChanges, u64(getU64(meta.Get(keyChanges))+1))
}

// readExport reads and replays an export. Errors name the line.
func readExport(r io.Reader) (ExportHeader, []*imported, error) {
	var head ExportHeader
	br := bufio.NewReader(r)
	var sessions []*imported
	byID := map[string]*imported{}
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return head, nil, fmt.Errorf("read export: %w", err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if n == 1 {
				if jerr := json.Unmarshal(line, &head); jerr != nil || head.Format != ExportFormat {
					return head, nil, fmt.Errorf("line 1: not a flowdeck export (want a %q header)", ExportFormat)
				}
			} else if perr := replayLine(line, byID, &sessions); perr != nil {
				return head, nil, fmt.Errorf("line %d: %w", n, perr)
			}
		}
		if err == io.EOF {
			break
		}
	}
	if head.Format == "" {
		return head, nil, fmt.Errorf("the export is empty")
	}
	return head, sessions, nil
}

func replayLine(line []byte, byID map[string]*imported, sessions *[]*imported) error {
	var rec storedEvent
	if err := json.Unmarshal(line, &rec); err != nil {
		return err
	}
	if !model.ValidSessionID(rec.Session) {
		return fmt.Errorf("session id %q is not valid", rec.Session)
	}
	imp := byID[rec.Session]
	if imp == nil {
		imp = &imported{id: rec.Session, session: &model.Session{}}
		byID[rec.Session] = imp
		*sessions = append(*sessions, imp)
	}
	if want := uint64(len(imp.events) + 1); rec.Seq != want {
		return fmt.Errorf("session %s: event %d where event %s was due", rec.Session, rec.Seq, strconv.FormatUint(want, 10))
	}
	if err := model.Apply(imp.session, rec.Event); err != nil {
		return fmt.Errorf("session %s event %d does not replay: %w", rec.Session, rec.Seq, err)
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	imp.events = append(imp.events, raw)
	return nil
}
