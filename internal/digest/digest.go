// Package digest is the status digest: what `flowdeck flow status` (text
// and --json) and `flowdeck hud` (text, markdown, and as Claude Code's
// hook) print, rendered by the full code in the same write transaction
// that changes what they show (the active session, the pending decisions,
// the agents' events), and stored beside it in the database's meta bucket.
// The lean flowdeck binary answers those commands from it without decoding
// the session, linking the model or parsing flags with cobra; anything it
// cannot answer exactly it hands to flowdeck-cli.
//
// A digest carries the database's change counter as of the state it shows,
// and is printed only while the counter still has that value: a write that
// does not render the digest (an older flowdeck, a tool of the user's)
// moves the counter and so retires the digest, without having to know of
// it. A write of this code that changes what the digest shows renders it
// again (or deletes it, when it has no renderer); one that changes nothing
// it shows (a run's output, an agent's event) carries it forward to the
// new counter. The one thing that changes without a write is the time on
// a HUD's first line; the lean binary writes it into the place the digest
// marks.
package digest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// Bucket and Key name where the digest is stored; CounterKey is the
// database's change counter beside it (8 bytes, big-endian), which every
// committed write moves.
var (
	Bucket     = []byte("meta")
	Key        = []byte("digest")
	CounterKey = []byte("changes")
)

// header starts every encoded digest; its number changes whenever the
// parts or their meaning change, so a binary never prints a digest it does
// not know.
const header = "flowdeck-digest 4\n"

// MaxPart bounds one part: a status is a few KiB even for a plan of
// hundreds of features, and a length beyond this is damage.
const MaxPart = 64 << 20

// Digest is the output of the commands the lean binary answers, exactly as
// flowdeck-cli writes it to stdout.
type Digest struct {
	// Changes is the change counter of the database as of the state the
	// digest shows: it is true only while the counter has this value.
	Changes     uint64
	StatusText  []byte // flow status: human text, already sanitised for a terminal
	StatusJSON  []byte // flow status --json: the object, indented, with its newline
	HUDText     Stamped
	HUDMarkdown Stamped
	HUDHook     Stamped // hud --hook claude: the hook's JSON object
}

// Stamped is a HUD whose first line says when it was made: Out holds
// StampLayout's text of some time at offset At, to be overwritten with the
// time the HUD is printed. At is -1 when Out has no stamp: the lean binary
// does not answer from it.
type Stamped struct {
	Out []byte
	At  int
}

// StampLayout is how a HUD says when it was made (always in UTC, so the
// text has one length whatever the time).
const StampLayout = "2006-01-02 15:04:05 UTC"

// Stamp returns s with its stamp showing now (UTC); ok is false when s has no
// stamp.
func (s Stamped) Stamp(now time.Time) (out []byte, ok bool) {
	if s.At < 0 || s.At+len(StampLayout) > len(s.Out) {
		return nil, false
	}
	out = append([]byte(nil), s.Out...)
	copy(out[s.At:], now.UTC().Format(StampLayout))
	return out, true
}

// Encode lays d out as stored: the header, the counter (8 bytes,
// big-endian: fixed, so that Carry can rewrite it in place), then each
// part as a uvarint length and its bytes, a stamped part followed by its
// offset plus one.
func Encode(d Digest) []byte {
	b := binary.BigEndian.AppendUint64([]byte(header), d.Changes)
	for _, part := range [][]byte{d.StatusText, d.StatusJSON} {
		b = binary.AppendUvarint(b, uint64(len(part)))
		b = append(b, part...)
	}
	for _, st := range []Stamped{d.HUDText, d.HUDMarkdown, d.HUDHook} {
		at := st.At
		if at < 0 || at+len(StampLayout) > len(st.Out) {
			at = -1 // no stamp (the zero Stamped included)
		}
		b = binary.AppendUvarint(b, uint64(len(st.Out)))
		b = append(b, st.Out...)
		b = binary.AppendUvarint(b, uint64(at+1))
	}
	return b
}

// ErrFormat is a stored digest that is not one this code wrote.
var ErrFormat = errors.New("digest: unknown or damaged format")

// Decode reads what Encode wrote. Anything else (another version, a length
// or an offset past the end, trailing bytes) is ErrFormat: the caller asks
// the full code instead.
func Decode(b []byte) (Digest, error) {
	changes, ok := counterOf(b)
	if !ok {
		return Digest{}, ErrFormat
	}
	rest := b[len(header)+8:]
	next := func(max uint64) (uint64, bool) {
		n, w := binary.Uvarint(rest)
		// Only Encode's own (shortest) form: a padded length is not one
		// flowdeck wrote.
		if w <= 0 || n > max || w != len(binary.AppendUvarint(nil, n)) {
			return 0, false
		}
		rest = rest[w:]
		return n, true
	}
	part := func() ([]byte, bool) {
		n, ok := next(MaxPart)
		if !ok || n > uint64(len(rest)) {
			return nil, false
		}
		p := rest[:n]
		rest = rest[n:]
		return p, true
	}
	d := Digest{Changes: changes}
	var parts [2][]byte
	for i := range parts {
		if parts[i], ok = part(); !ok {
			return Digest{}, fmt.Errorf("%w: part %d", ErrFormat, i+1)
		}
	}
	d.StatusText, d.StatusJSON = parts[0], parts[1]
	for i, st := range []*Stamped{&d.HUDText, &d.HUDMarkdown, &d.HUDHook} {
		out, ok := part()
		if !ok {
			return Digest{}, fmt.Errorf("%w: part %d", ErrFormat, len(parts)+i+1)
		}
		at, ok := next(uint64(len(out)))
		if !ok || (at > 0 && int(at-1)+len(StampLayout) > len(out)) {
			return Digest{}, fmt.Errorf("%w: stamp of part %d", ErrFormat, len(parts)+i+1)
		}
		*st = Stamped{Out: out, At: int(at) - 1}
	}
	if len(rest) != 0 {
		return Digest{}, fmt.Errorf("%w: %d trailing bytes", ErrFormat, len(rest))
	}
	return d, nil
}

// counterOf is the change counter an encoded digest carries; ok is false
// when b is not one this code wrote.
func counterOf(b []byte) (uint64, bool) {
	if len(b) < len(header)+8 || !bytes.HasPrefix(b, []byte(header)) {
		return 0, false
	}
	return binary.BigEndian.Uint64(b[len(header):]), true
}

// Carry is the encoded digest b carried from counter from to counter to,
// for a write that changed nothing the digest shows; nil when b is not
// one this code wrote or was not true at from (it stays retired). It does
// not decode the parts: the write that made b checked them.
func Carry(b []byte, from, to uint64) []byte {
	if n, ok := counterOf(b); !ok || n != from {
		return nil
	}
	out := bytes.Clone(b)
	binary.BigEndian.PutUint64(out[len(header):], to)
	return out
}
