package db

import (
	"fmt"
	"path/filepath"

	bolt "go.etcd.io/bbolt"

	"flowdeck/internal/contain"
	"flowdeck/model"
)

// DoctorReport is the health of a project's database.
type DoctorReport struct {
	Path string `json:"path"`
	OK   bool   `json:"ok"`
	// Fault is why the file could not be opened or read at all.
	Fault *model.Fault `json:"fault,omitempty"`
	// Integrity lists what bbolt's page check found: pages that are
	// unreachable, freed twice or out of bounds.
	Integrity []string      `json:"integrity"`
	Verify    *VerifyReport `json:"verify,omitempty"`
}

// Doctor checks the database at path without changing it: it opens only an
// existing file, checks every page (bbolt's Tx.Check) and replays every
// session's log against the stored state (Verify).
func Doctor(path string, opts Options) (*DoctorReport, error) {
	opts.Existing = true
	abs, _ := filepath.Abs(path)
	rep := &DoctorReport{Path: abs, Integrity: []string{}}
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
// goroutine of its own, where a fault could not be recovered, so a file
// shorter than the pages its meta page claims is reported first and not
// checked.
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
		for err := range tx.Check() {
			problems = append(problems, err.Error())
		}
		return nil
	})
	return problems, err
}
