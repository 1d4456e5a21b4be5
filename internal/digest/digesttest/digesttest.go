// Package digesttest writes project databases that hold a given status
// digest, as a damaged file or an agent with write access to the project
// could leave them, for the tests of the packages that read digests.
package digesttest

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/internal/digest"
	"github.com/flowdeck/flowdeck/internal/rootdir"
)

// Project makes a project directory whose database has schema, the change
// counter changes and, unless raw is nil, raw as its digest, with the side
// lock file db makes, and returns the directory.
func Project(t testing.TB, schema string, changes uint64, raw []byte) string {
	t.Helper()
	root := t.TempDir()
	path := filepath.Join(root, rootdir.DBFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucket(digest.Bucket)
		if err == nil {
			err = meta.Put([]byte("schema"), []byte(schema))
		}
		if err == nil {
			err = meta.Put(digest.CounterKey, binary.BigEndian.AppendUint64(nil, changes))
		}
		if err == nil && raw != nil {
			err = meta.Put(digest.Key, raw)
		}
		return err
	})
	if cerr := b.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.WriteFile(path+".lock", nil, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// Stored returns the status digest as it is in the database file at path
// and, given put, writes put[0] in its place (nil deletes it), without
// moving the change counter: what a flowdeck that does not know of the
// digest leaves after its write, or what an agent with write access to the
// project plants.
func Stored(t testing.TB, path string, put ...[]byte) []byte {
	t.Helper()
	b, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var raw []byte
	err = b.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(digest.Bucket)
		raw = bytes.Clone(meta.Get(digest.Key))
		switch {
		case len(put) == 0:
			return nil
		case put[0] == nil:
			return meta.Delete(digest.Key)
		}
		return meta.Put(digest.Key, put[0])
	})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
