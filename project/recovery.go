package project

import (
	"context"
	"errors"
	"io"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/demo"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
)

// The recovery path for a damaged database (export what can be read,
// import it into a new file, check the result) and the demo's seeding:
// what works on the database file itself rather than through a Store.

// DatabasePath is the project's database file.
func (p *Project) DatabasePath() string { return p.dbPath() }

// Export writes every session's event log to w as JSONL. It opens only an
// existing database, as it is (no schema migration).
func (p *Project) Export(w io.Writer) (*model.ExportReport, error) {
	st, err := db.Open(p.dbPath(), db.Options{Existing: true})
	if err != nil {
		return nil, err
	}
	return st.Export(w)
}

// BadExportError is an export that Import refuses to read; it names the
// line.
type BadExportError struct{ Err error }

func (e *BadExportError) Error() string { return e.Err.Error() }
func (e *BadExportError) Unwrap() error { return e.Err }

// Import rebuilds the database from an export (force: an existing one is
// moved aside, never deleted) and verifies the result. An unreadable export
// is a *BadExportError.
func (p *Project) Import(r io.Reader, force bool) (*model.ImportReport, *model.VerifyReport, error) {
	rep, err := db.Import(p.dbPath(), r, force, p.Now(), db.Options{Digest: ops.Digest})
	var bad *db.BadExport
	if errors.As(err, &bad) {
		return nil, nil, &BadExportError{Err: err}
	} else if err != nil {
		return nil, nil, err
	}
	st, err := db.Open(p.dbPath(), db.Options{Existing: true, Digest: ops.Digest})
	if err != nil {
		return rep, nil, err
	}
	v, err := st.Verify()
	return rep, v, err
}

// Doctor checks the database without changing it; nil when there is none.
// With the renderer it also checks the status digest against the state.
func (p *Project) Doctor() (*model.DoctorReport, error) {
	if !p.HasDatabase() {
		return nil, nil
	}
	return db.Doctor(p.dbPath(), db.Options{Digest: ops.Digest})
}

// Contents counts the project's sessions and says whether it has a stored
// run (a project without a database has neither; none is created).
func (p *Project) Contents() (sessions int, runs bool, err error) {
	st, err := p.reader()
	if err != nil || st == nil {
		return 0, false, err
	}
	list, err := st.Sessions()
	if err != nil {
		return 0, false, err
	}
	rs, err := st.Runs(1)
	if err != nil {
		return 0, false, err
	}
	return len(list), len(rs) > 0, nil
}

// SeedDemo writes the demo project's files into the root and seeds its
// session and runs (demo.Seed).
func (p *Project) SeedDemo(ctx context.Context) error {
	st, err := p.store()
	if err != nil {
		return err
	}
	return demo.Seed(ctx, st, p.root, p.Patterns())
}
