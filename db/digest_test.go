package db_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/digest"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
)

// TestDigestNeverFailsAWrite: the digest is a copy for the lean binary. A
// record it cannot read (a damaged decision) costs the digest, which is
// deleted, not the write, which is stored.
func TestDigestNeverFailsAWrite(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, db.DBFile)
	st, err := db.Open(path, db.Options{NoSync: true, Digest: ops.Digest})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Do(model.PlanStart{Goal: "digest"}, "t", time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := digest.Read(root); err != nil {
		t.Fatalf("no digest after a write: %v", err)
	}
	b, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		d, err := tx.CreateBucketIfNotExists([]byte("decisions"))
		if err == nil {
			err = d.Put([]byte("d99"), []byte("{not json"))
		}
		return err
	})
	if cerr := b.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	out, err := st.Do(model.AddNote{Text: "stored anyway"}, "t", time.Now())
	if err != nil || len(out.Events) != 1 {
		t.Fatalf("a damaged decision failed the write: %v", err)
	}
	if _, err := digest.Read(root); !errors.Is(err, digest.ErrUnavailable) {
		t.Fatalf("the digest outlived a state it could not render: %v", err)
	}
}

// TestDigestReadsThisSchema: the lean binary reads a digest only from a
// database of the schema it knows, which must be this code's.
func TestDigestReadsThisSchema(t *testing.T) {
	if digest.SchemaVersion != db.SchemaVersion {
		t.Fatalf("digest reads schema %d, db writes %d", digest.SchemaVersion, db.SchemaVersion)
	}
}
