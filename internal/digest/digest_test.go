package digest

import (
	"bytes"
	"errors"
	"testing"
	"time"
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
		bytes.Replace(b, []byte("digest 3"), []byte("digest 2"), 1), // the version before
		bytes.Replace(b, []byte("digest 3"), []byte("digest 4"), 1),
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
