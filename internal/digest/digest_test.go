package digest

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

func sample() Digest {
	return Digest{
		Changes:     42,
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
		bytes.Replace(b, []byte("digest 4"), []byte("digest 3"), 1), // the version before
		bytes.Replace(b, []byte("digest 4"), []byte("digest 5"), 1),
		append(bytes.Clone(b), 0),
	}
	for n := 0; n < len(b); n++ {
		bad = append(bad, b[:n])
	}
	// status parts empty, a 5-byte HUD stamped at 2, the other two empty
	stampPastEnd := []byte(header + "\x00\x00\x00\x00\x00\x00\x00\x01" + "\x00\x00\x05short\x03\x00\x00\x00\x00")
	bad = append(bad, stampPastEnd)
	for i, in := range bad {
		if _, err := Decode(in); !errors.Is(err, ErrFormat) {
			t.Errorf("case %d (%q): err %v, want ErrFormat", i, in, err)
		}
	}
}

// TestCarry: a digest true at one counter is carried to the next with its
// parts as they were; one of another counter, or not one Encode wrote, is
// not carried (nil).
func TestCarry(t *testing.T) {
	b := Encode(sample())
	d, err := Decode(Carry(b, 42, 43))
	want := sample()
	want.Changes = 43
	if err != nil || !bytes.Equal(Encode(d), Encode(want)) {
		t.Fatalf("carried: %+v %v", d, err)
	}
	if Carry(b, 41, 42) != nil || Carry([]byte("flowdeck-digest 3\n"), 0, 1) != nil || Carry(nil, 0, 1) != nil {
		t.Fatal("carried a digest that was not true at the counter given")
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
