package db

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

// populated is a store with a few sessions and runs, closed, and the bytes
// of its file.
func populated(t testing.TB) (*Store, []byte) {
	t.Helper()
	st := newStore(t)
	for i := range 3 {
		mustDo(t, st, model.PlanStart{Goal: "goal " + strings.Repeat("x", i)})
		mustDo(t, st, model.PlanApply{Plan: twoFeaturePlan()})
		for range 20 {
			mustDo(t, st, model.AddNote{Text: strings.Repeat("note ", 200)})
		}
		mustDo(t, st, model.ResetSession{})
	}
	data, err := os.ReadFile(st.path)
	if err != nil {
		t.Fatal(err)
	}
	return st, data
}

// exercise reads everything a command may read, and one write.
func exercise(st *Store) error {
	if _, err := st.Active(); err != nil {
		return err
	}
	if _, err := st.Sessions(); err != nil {
		return err
	}
	if _, err := st.Verify(); err != nil {
		return err
	}
	_, err := st.Do(model.PlanStart{Goal: "after"}, "tester", t0)
	return err
}

// wantCorrupt asserts err is a database_corrupt fault naming path.
func wantCorrupt(t *testing.T, err error, path string) {
	t.Helper()
	f, ok := model.AsFault(err)
	if !ok || f.Code != model.CodeDatabaseCorrupt {
		t.Fatalf("err = %v, want %s", err, model.CodeDatabaseCorrupt)
	}
	if f.Path != path || !strings.Contains(f.Message, path) {
		t.Fatalf("fault %q does not name %s", f.Message, path)
	}
}

func TestEmptyOrForeignFileIsRefusedNotReinitialised(t *testing.T) {
	foreignBolt := func(path string) {
		b, err := bolt.Open(path, 0o644, nil)
		if err != nil {
			t.Fatal(err)
		}
		b.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("other-program")); return err })
		b.Close()
	}
	cases := map[string]func(path string){
		"zero-length": func(path string) { os.WriteFile(path, nil, 0o644) },
		"text":        func(path string) { os.WriteFile(path, []byte(strings.Repeat("not a database\n", 1000)), 0o644) },
		"short":       func(path string) { os.WriteFile(path, []byte("x"), 0o644) },
		"other bbolt": foreignBolt,
	}
	for name, make := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), DBFile)
			os.MkdirAll(filepath.Dir(path), 0o755)
			make(path)
			before, _ := os.ReadFile(path)
			_, err := Open(path, Options{})
			wantCorrupt(t, err, path)
			after, _ := os.ReadFile(path)
			if string(after) != string(before) {
				t.Fatalf("the refused file was changed (%d bytes, was %d)", len(after), len(before))
			}
		})
	}
}

func TestDamagedDatabaseIsAFaultNotAPanic(t *testing.T) {
	st, good := populated(t)
	page := os.Getpagesize()
	cases := map[string]func([]byte) []byte{
		"truncated to half":    func(b []byte) []byte { return b[:len(b)/2] },
		"truncated to 3 pages": func(b []byte) []byte { return b[:3*page] },
		"both meta pages":      func(b []byte) []byte { return overwrite(b, 0, 2*page) },
		"root and freelist":    func(b []byte) []byte { return overwrite(b, 2*page, 2*page) },
		"every page header": func(b []byte) []byte {
			for off := 2 * page; off < len(b); off += page {
				b = overwrite(b, off, 16)
			}
			return b
		},
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			data := damage(append([]byte(nil), good...))
			if err := os.WriteFile(st.path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Open(st.path, Options{})
			if err == nil {
				err = exercise(s)
			}
			wantCorrupt(t, err, st.path)
		})
	}
}

// overwrite fills n bytes at off with a pattern no valid page has.
func overwrite(b []byte, off, n int) []byte {
	for i := off; i < off+n && i < len(b); i++ {
		b[i] = byte(0xA5 ^ i)
	}
	return b
}

// FuzzDamagedDatabase patches bytes anywhere in a real database: whatever
// the damage, a command gets a result or an error, never a panic.
func FuzzDamagedDatabase(f *testing.F) {
	_, good := populated(f)
	page := os.Getpagesize()
	for _, off := range []int{0, 16, page, 2 * page, 3*page + 8, 4 * page, len(good) - 100} {
		f.Add(uint32(off), []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1}, false)
	}
	f.Add(uint32(len(good)/3), []byte{}, true)
	f.Fuzz(func(t *testing.T, off uint32, patch []byte, truncate bool) {
		data := append([]byte(nil), good...)
		at := int(off) % len(data)
		if truncate {
			data = data[:at]
		}
		copy(data[min(at, len(data)):], patch)
		path := filepath.Join(t.TempDir(), DBFile)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Doctor(path, Options{NoSync: true}); err != nil {
			if _, ok := model.AsFault(err); !ok {
				t.Logf("doctor: %v", err)
			}
		}
		s, err := Open(path, Options{NoSync: true})
		if err == nil {
			err = exercise(s)
		}
		if f, ok := model.AsFault(err); ok && f.Path != path {
			t.Fatalf("fault names %s, not %s", f.Path, path)
		}
	})
}

// A damaged freelist makes bbolt's Open panic, which would leave the file
// mapped and locked; the precheck finds it first, so every later open, in
// this process or another, says damaged rather than busy.
func TestDamagedFreelistIsFoundBeforeBboltPanics(t *testing.T) {
	st, good := populated(t)
	page := os.Getpagesize()
	// Overwrite the freelist page each meta page names (its page id is at
	// byte 48 of the meta page).
	data := append([]byte(nil), good...)
	for m := range 2 {
		id := int(binary.LittleEndian.Uint64(good[m*page+48:]))
		overwrite(data, id*page, 16)
	}
	os.WriteFile(st.path, data, 0o644)
	r, err := os.OpenRoot(st.project)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for range 2 {
		_, err := st.boltOpen(r, st.dbRel, false, &bolt.Options{Timeout: 200 * time.Millisecond})
		wantCorrupt(t, err, st.path)
		if !strings.Contains(err.Error(), "freelist") {
			t.Fatalf("not found by the precheck: %v", err)
		}
	}
	_, err = st.Do(model.AddNote{Text: "x"}, "tester", t0)
	wantCorrupt(t, err, st.path)
}
