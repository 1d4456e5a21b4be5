package db

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

// boltFile writes a bbolt file at path whose transaction fill made.
func boltFile(t *testing.T, path string, fill func(tx *bolt.Tx) error) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	b, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Update(fill); err != nil {
		t.Fatal(err)
	}
	b.Close()
}

// TestDeferCheckOpensNothing: with DeferCheck, Open of an existing database
// neither opens it nor takes its lock, so a writer holding the lock does not
// make it wait; the first transaction then waits as any would.
func TestDeferCheckOpensNothing(t *testing.T) {
	st, _ := populated(t)
	r, err := os.OpenRoot(st.project)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	held, err := acquire(r, st.lockRel, st.lock, true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(st.path, Options{LockTimeout: 100 * time.Millisecond}); !errors.As(err, new(ErrBusy)) {
		held.release()
		t.Fatalf("Open without DeferCheck under a held lock: %v, want ErrBusy", err)
	}
	lazy, err := Open(st.path, Options{LockTimeout: 100 * time.Millisecond, DeferCheck: true})
	if err != nil {
		held.release()
		t.Fatalf("Open with DeferCheck under a held lock: %v", err)
	}
	_, err = lazy.Active()
	held.release()
	if !errors.As(err, new(ErrBusy)) {
		t.Fatalf("first read under a held lock: %v, want ErrBusy", err)
	}
	if ss, err := lazy.Sessions(); err != nil || len(ss) != 3 {
		t.Fatalf("read after the lock was released: %d sessions, %v", len(ss), err)
	}
}

// TestDeferCheckRefusesWhatOpenRefuses: the first read or write of a
// deferred store refuses the files Open refuses, with the same fault, and
// changes none of them.
func TestDeferCheckRefusesWhatOpenRefuses(t *testing.T) {
	cases := map[string]func(t *testing.T, path string){
		"text": func(t *testing.T, path string) {
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(strings.Repeat("not a database\n", 1000)), 0o644)
		},
		"other bbolt": func(t *testing.T, path string) {
			boltFile(t, path, func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("other-program")); return err })
		},
		"newer schema": func(t *testing.T, path string) {
			boltFile(t, path, func(tx *bolt.Tx) error {
				m, _ := tx.CreateBucket(bucketMeta)
				return m.Put(keySchema, []byte("99"))
			})
		},
	}
	ops := map[string]func(st *Store) error{
		"read":  func(st *Store) error { _, err := st.Active(); return err },
		"write": func(st *Store) error { _, err := st.Do(model.PlanStart{Goal: "g"}, "tester", t0); return err },
		"check": func(st *Store) error { return st.Check() },
	}
	for name, make := range cases {
		for opName, op := range ops {
			t.Run(name+"/"+opName, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), DBFile)
				make(t, path)
				before, _ := os.ReadFile(path)
				_, want := Open(path, Options{})
				if want == nil {
					t.Fatal("Open accepted the file")
				}
				st, err := Open(path, Options{DeferCheck: true})
				if err != nil {
					t.Fatalf("Open with DeferCheck: %v", err)
				}
				err = op(st)
				if err == nil || err.Error() != want.Error() {
					t.Fatalf("first %s: %v, want Open's error %v", opName, err, want)
				}
				if f, ok := model.AsFault(want); ok {
					wantCorrupt(t, err, f.Path)
				}
				if after, _ := os.ReadFile(path); string(after) != string(before) {
					t.Fatal("the refused file was changed")
				}
			})
		}
	}
}

// TestDeferCheckMigratesAnOlderSchema: the first read or write of a
// deferred store migrates a schema-0 file, as Open would have.
func TestDeferCheckMigratesAnOlderSchema(t *testing.T) {
	for _, first := range []string{"read", "write"} {
		t.Run(first, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), DBFile)
			boltFile(t, path, func(tx *bolt.Tx) error { _, err := tx.CreateBucket(bucketMeta); return err })
			st, err := Open(path, Options{DeferCheck: true})
			if err != nil {
				t.Fatal(err)
			}
			if first == "read" {
				if s, err := st.Active(); err != nil || s != nil {
					t.Fatalf("first read: %v, %v", s, err)
				}
			}
			mustDo(t, st, model.PlanStart{Goal: "after migration"})
			if _, err := st.Runs(1); err != nil {
				t.Fatalf("the runs bucket of the migration: %v", err)
			}
			var version int
			if err := st.view(func(tx *bolt.Tx) error { version = schemaOf(tx); return nil }); err != nil || version != SchemaVersion {
				t.Fatalf("schema after the first %s: %d, %v", first, version, err)
			}
		})
	}
}
