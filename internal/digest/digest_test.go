package digest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/internal/rootdir"
)

func sample() Digest {
	return Digest{
		StatusText:  []byte("Session s\n  goal:     g\n"),
		StatusJSON:  []byte("{\n  \"ok\": true\n}\n"),
		HUDText:     Stamped{Out: []byte("flowdeck (seq 1, 2000-01-01 00:00:00 UTC): g\n"), At: 17},
		HUDMarkdown: Stamped{Out: []byte("**flowdeck**\n"), At: -1},
		HUDHook:     Stamped{Out: []byte("{\"c\": \"2000-01-01 00:00:00 UTC\"}"), At: 7},
	}
}

// TestEncodeNormalisesStamps: a stamp that does not fit its part (the zero
// Stamped among them) is written as none, so Decode reads what Encode wrote.
func TestEncodeNormalisesStamps(t *testing.T) {
	d, err := Decode(Encode(Digest{HUDText: Stamped{Out: []byte("short"), At: 2}}))
	if err != nil || d.HUDText.At != -1 || d.HUDMarkdown.At != -1 {
		t.Fatalf("%+v %v", d, err)
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	d := sample()
	got, err := Decode(Encode(d))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(Encode(got), Encode(d)) || got.HUDText.At != 17 || got.HUDMarkdown.At != -1 {
		t.Fatalf("round trip: %+v", got)
	}
}

// TestDecodeRefusesWhatEncodeDidNotWrite: another version, every
// truncation, trailing bytes and a stamp past its part are ErrFormat.
func TestDecodeRefusesWhatEncodeDidNotWrite(t *testing.T) {
	b := Encode(sample())
	bad := [][]byte{
		nil,
		[]byte("flowdeck-digest 1\n"),
		bytes.Replace(b, []byte("digest 2"), []byte("digest 3"), 1),
		append(bytes.Clone(b), 0),
	}
	for n := len(header); n < len(b); n++ {
		bad = append(bad, b[:n])
	}
	// status parts empty, a 5-byte HUD stamped at 2, the other two empty
	stampPastEnd := []byte(header + "\x00\x00\x05short\x03\x00\x00\x00\x00")
	bad = append(bad, stampPastEnd)
	for i, in := range bad {
		if _, err := Decode(in); !errors.Is(err, ErrFormat) {
			t.Errorf("case %d (%q): err %v, want ErrFormat", i, in, err)
		}
	}
}

func TestStampWritesTheTimeInUTC(t *testing.T) {
	at := time.Date(2026, 11, 25, 23, 4, 5, 0, time.FixedZone("X", 3600))
	out, ok := sample().HUDText.Stamp(at)
	if !ok || string(out) != "flowdeck (seq 1, 2026-11-25 22:04:05 UTC): g\n" {
		t.Fatalf("%q %v", out, ok)
	}
	if _, ok := sample().HUDMarkdown.Stamp(at); ok {
		t.Fatal("a part without a stamp was stamped")
	}
}

// FuzzDecode: stored bytes are hostile (a damaged or planted file): Decode
// never panics, and what it accepts is exactly what Encode writes.
func FuzzDecode(f *testing.F) {
	f.Add(Encode(sample()))
	f.Add(Encode(Digest{}))
	f.Add([]byte(header + "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Decode(b)
		if err != nil {
			return
		}
		if !bytes.Equal(Encode(d), b) {
			t.Fatalf("accepted bytes Encode would not write: %q", b)
		}
		for _, st := range []Stamped{d.HUDText, d.HUDMarkdown, d.HUDHook} {
			st.Stamp(time.Now()) // must not panic
		}
	})
}

// writeDB makes a project whose database holds raw as its digest, with the
// schema given, and the lock file db makes.
func writeDB(t *testing.T, schema string, raw []byte) string {
	t.Helper()
	root := t.TempDir()
	path := filepath.Join(root, rootdir.DBFile)
	os.MkdirAll(filepath.Dir(path), 0o755)
	b, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucket(Bucket)
		if err != nil {
			return err
		}
		meta.Put([]byte("schema"), []byte(schema))
		if raw != nil {
			meta.Put(Key, raw)
		}
		return nil
	})
	if err != nil || b.Close() != nil {
		t.Fatal(err)
	}
	os.WriteFile(path+".lock", nil, 0o644)
	return root
}

func TestReadAnswersFromAGoodDatabase(t *testing.T) {
	root := writeDB(t, "1", Encode(sample()))
	d, err := Read(root)
	if err != nil || string(d.StatusText) != string(sample().StatusText) {
		t.Fatalf("%+v %v", d, err)
	}
}

// TestReadLeavesTheRestToTheFullCode: every case the full code must see
// (and report) is ErrUnavailable, never a wrong answer or a panic.
func TestReadLeavesTheRestToTheFullCode(t *testing.T) {
	cases := map[string]func(t *testing.T) string{
		"no database":    func(t *testing.T) string { return t.TempDir() },
		"no digest":      func(t *testing.T) string { return writeDB(t, "1", nil) },
		"another schema": func(t *testing.T) string { return writeDB(t, "2", Encode(sample())) },
		"damaged digest": func(t *testing.T) string { return writeDB(t, "1", []byte("flowdeck-digest 2\n\x05ab")) },
		"no lock file yet": func(t *testing.T) string {
			r := writeDB(t, "1", Encode(sample()))
			os.Remove(filepath.Join(r, rootdir.DBFile+".lock"))
			return r
		},
		"empty file": func(t *testing.T) string {
			r := writeDB(t, "1", Encode(sample()))
			os.Truncate(filepath.Join(r, rootdir.DBFile), 0)
			return r
		},
		"not bbolt": func(t *testing.T) string {
			r := writeDB(t, "1", Encode(sample()))
			os.WriteFile(filepath.Join(r, rootdir.DBFile), bytes.Repeat([]byte("flowdeck"), 4096), 0o644)
			return r
		},
		"overwritten pages": func(t *testing.T) string {
			r := writeDB(t, "1", Encode(sample()))
			path := filepath.Join(r, rootdir.DBFile)
			fi, _ := os.Stat(path)
			f, _ := os.OpenFile(path, os.O_WRONLY, 0)
			f.WriteAt(bytes.Repeat([]byte{0xff}, int(fi.Size())-8192), 8192) // every page past the two valid meta pages
			f.Close()
			return r
		},
		"database outside the project": func(t *testing.T) string {
			elsewhere := writeDB(t, "1", Encode(sample()))
			r := t.TempDir()
			os.Symlink(filepath.Join(elsewhere, ".flow"), filepath.Join(r, ".flow"))
			return r
		},
		"a writer holds the lock": func(t *testing.T) string {
			r := writeDB(t, "1", Encode(sample()))
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
			if _, err := Read(mk(t)); !errors.Is(err, ErrUnavailable) {
				t.Fatalf("err %v, want ErrUnavailable", err)
			}
		})
	}
}
