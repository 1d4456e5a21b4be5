package db_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/digest"
	"github.com/flowdeck/flowdeck/internal/digest/digesttest"
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

// TestDigestFollowsTheCounter: a write that changes nothing the digest
// shows (an agent's event) carries it to the new counter; a write that
// changes the state without rendering it (an older flowdeck: the digest
// left as it was) retires it, and verify says so, naming the file; the
// next action through flowdeck renders it again.
func TestDigestFollowsTheCounter(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, db.DBFile)
	st, err := db.Open(path, db.Options{NoSync: true, Digest: ops.Digest})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Do(model.PlanStart{Goal: "counter"}, "t", time.Now()); err != nil {
		t.Fatal(err)
	}
	first, err := digest.Read(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.RecordAgentEvent(model.AgentEvent{Agent: "a", Event: "turn", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	carried, err := digest.Read(root)
	if err != nil || carried.Changes != first.Changes+1 || !bytes.Equal(carried.StatusText, first.StatusText) {
		t.Fatalf("an agent's event did not carry the digest: %+v %v", carried, err)
	}

	// An older flowdeck: the state moves on, the digest stays as it was.
	kept := digesttest.Stored(t, path)
	older, err := db.Open(path, db.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := older.Do(model.AddNote{Text: "by an older flowdeck"}, "t", time.Now()); err != nil {
		t.Fatal(err)
	}
	digesttest.Stored(t, path, kept)
	if _, err := digest.Read(root); !errors.Is(err, digest.ErrUnavailable) {
		t.Fatalf("a digest behind the counter was read: %v", err)
	}
	// Nor does a write that changes nothing it shows bring it back.
	if err := st.RecordAgentEvent(model.AgentEvent{Agent: "a", Event: "turn", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := digest.Read(root); !errors.Is(err, digest.ErrUnavailable) {
		t.Fatalf("a write carried a retired digest: %v", err)
	}
	rep, err := st.Verify()
	if err != nil || len(rep.Problems) != 1 || rep.Problems[0].File == "" ||
		!strings.Contains(rep.Problems[0].String(), path) || !strings.Contains(rep.Problems[0].String(), "status digest") {
		t.Fatalf("verify did not name the stale digest: %+v %v", rep, err)
	}
	if _, err := st.Do(model.AddNote{Text: "again"}, "t", time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := digest.Read(root); err != nil {
		t.Fatalf("the next action did not render the digest: %v", err)
	}
	if rep, err := st.Verify(); err != nil || len(rep.Problems) != 0 {
		t.Fatalf("verify after a fresh render: %+v %v", rep, err)
	}
}

// TestVerifyCatchesAPlantedDigest: a digest in the format flowdeck
// writes, with the database's counter, whose content is not what the state
// renders is reported by verify and doctor, naming the file and the part.
func TestVerifyCatchesAPlantedDigest(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, db.DBFile)
	st, err := db.Open(path, db.Options{NoSync: true, Digest: ops.Digest})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Do(model.PlanStart{Goal: "planted"}, "t", time.Now()); err != nil {
		t.Fatal(err)
	}
	d, err := digest.Decode(digesttest.Stored(t, path))
	if err != nil {
		t.Fatal(err)
	}
	d.StatusText = []byte("Session s\n  goal:     all done, nothing to review\n")
	digesttest.Stored(t, path, digest.Encode(d))
	rep, err := st.Verify()
	if err != nil || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].String(), path) ||
		!strings.Contains(rep.Problems[0].Message, "flow status") {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	doc, err := db.Doctor(path, db.Options{Digest: ops.Digest})
	if err != nil || doc.OK || len(doc.Verify.Problems) != 1 || doc.Verify.Problems[0].File == "" {
		t.Fatalf("doctor: %+v %v", doc, err)
	}
}
