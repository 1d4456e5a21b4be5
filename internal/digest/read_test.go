package digest_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/flowdeck/flowdeck/internal/digest"
	"github.com/flowdeck/flowdeck/internal/digest/digesttest"
	"github.com/flowdeck/flowdeck/internal/rootdir"
)

func sample() digest.Digest {
	return digest.Digest{Changes: 7, StatusText: []byte("Session s\n  goal:     g\n"), StatusJSON: []byte("{\n  \"ok\": true\n}\n")}
}

func TestReadAnswersFromAGoodDatabase(t *testing.T) {
	root := digesttest.Project(t, "1", 7, digest.Encode(sample()))
	d, err := digest.Read(root)
	if err != nil || string(d.StatusText) != string(sample().StatusText) {
		t.Fatalf("%+v %v", d, err)
	}
}

// TestReadLeavesTheRestToTheFullCode: every case the full code must see
// (and report) is digest.ErrUnavailable, never a wrong answer or a panic.
func TestReadLeavesTheRestToTheFullCode(t *testing.T) {
	cases := map[string]func(t *testing.T) string{
		"no database":    func(t *testing.T) string { return t.TempDir() },
		"no digest":      func(t *testing.T) string { return digesttest.Project(t, "1", 7, nil) },
		"another schema": func(t *testing.T) string { return digesttest.Project(t, "2", 7, digest.Encode(sample())) },
		// A write that did not render the digest moved the counter on.
		"a digest of an earlier change": func(t *testing.T) string { return digesttest.Project(t, "1", 8, digest.Encode(sample())) },
		"damaged digest": func(t *testing.T) string {
			return digesttest.Project(t, "1", 7, []byte("flowdeck-digest 4\n\x00\x00\x00\x00\x00\x00\x00\x07\x05ab"))
		},
		"no lock file yet": func(t *testing.T) string {
			r := digesttest.Project(t, "1", 7, digest.Encode(sample()))
			os.Remove(filepath.Join(r, rootdir.DBFile+".lock"))
			return r
		},
		"empty file": func(t *testing.T) string {
			r := digesttest.Project(t, "1", 7, digest.Encode(sample()))
			os.Truncate(filepath.Join(r, rootdir.DBFile), 0)
			return r
		},
		"not bbolt": func(t *testing.T) string {
			r := digesttest.Project(t, "1", 7, digest.Encode(sample()))
			os.WriteFile(filepath.Join(r, rootdir.DBFile), bytes.Repeat([]byte("flowdeck"), 4096), 0o644)
			return r
		},
		"overwritten pages": func(t *testing.T) string {
			r := digesttest.Project(t, "1", 7, digest.Encode(sample()))
			path := filepath.Join(r, rootdir.DBFile)
			fi, _ := os.Stat(path)
			f, _ := os.OpenFile(path, os.O_WRONLY, 0)
			f.WriteAt(bytes.Repeat([]byte{0xff}, int(fi.Size())-8192), 8192) // every page past the two valid meta pages
			f.Close()
			return r
		},
		"database outside the project": func(t *testing.T) string {
			elsewhere := digesttest.Project(t, "1", 7, digest.Encode(sample()))
			r := t.TempDir()
			os.Symlink(filepath.Join(elsewhere, ".flow"), filepath.Join(r, ".flow"))
			return r
		},
		"a writer holds the lock": func(t *testing.T) string {
			r := digesttest.Project(t, "1", 7, digest.Encode(sample()))
			f, err := os.OpenFile(filepath.Join(r, rootdir.DBFile+".lock"), os.O_RDWR, 0)
			if err != nil || syscall.Flock(int(f.Fd()), syscall.LOCK_EX) != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return r
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := digest.Read(mk(t)); !errors.Is(err, digest.ErrUnavailable) {
				t.Fatalf("err %v, want digest.ErrUnavailable", err)
			}
		})
	}
}
