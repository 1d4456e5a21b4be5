// Package termtext makes text that flowdeck did not write safe for a
// terminal: escape sequences, control characters and bidi overrides are
// removed before the text can retitle the terminal, write the clipboard,
// hide itself, draw links or reorder what the person reads.
//
// Parsing is the VT500 state machine of charmbracelet/x/ansi/parser's table
// (vt.go drives it; x/ansi itself is not linked); this package only
// decides what survives. Nothing survives but printable text, newlines and
// tabs, plus — where the caller asks for it — SGR colour and emphasis
// (never blink or conceal) and carriage returns.
package termtext

import (
	"bytes"
	"sync"

	"github.com/flowdeck/flowdeck/termtext/ctl"
)

// Options say what, beyond printable text, survives.
type Options struct {
	// KeepSGR keeps SGR sequences (colour, bold, underline …) minus blink
	// and conceal, rewritten from their parsed parameters.
	KeepSGR bool
	// KeepCR keeps carriage returns (a command's progress redraws); else
	// they are dropped, so "safe\rEVIL" shows both halves.
	KeepCR bool
	// OneLine turns newlines, tabs and line/paragraph separators into
	// spaces, for a title, a table cell or a one-line row.
	OneLine bool
	// Visible shows what an attack would have done instead of removing
	// it silently: a string sequence (OSC, DCS, APC, PM, SOS: clipboard
	// writes, titles, links) as its start, `\e]52;c;SGVsbG…`, and a C1 or
	// bidi character as `\u009b`. Colour and cursor codes of ordinary
	// tools and C0 controls are still dropped without a trace.
	Visible bool
}

// IsBidi reports whether r is a bidirectional formatting character, which
// can make a terminal show text in an order other than the bytes' order.
func IsBidi(r rune) bool { return ctl.IsBidi(r) }

// IsC1 reports whether r is a C1 control (U+0080–U+009F). Terminals in
// UTF-8 mode may act on their UTF-8 form (U+009B is CSI).
func IsC1(r rune) bool { return ctl.IsC1(r) }

// plain reports whether s needs no change under o: printable text, plus
// tabs and newlines when o allows them (ctl.Inert).
func plain[T string | []byte](s T, o Options) bool { return ctl.Inert(s, o.OneLine) }

var pool = sync.Pool{New: func() any { return newSanitizer() }}

// With returns s made safe under o.
func With(s string, o Options) string {
	if plain(s, o) {
		return s
	}
	z := pool.Get().(*sanitizer)
	defer pool.Put(z)
	z.reset(o)
	z.feed([]byte(s))
	z.flush()
	return string(z.out)
}

// String is foreign text for a terminal: printable text, newlines and tabs.
func String(s string) string { return With(s, Options{}) }

// Line is foreign text as one line: newlines and tabs become spaces.
func Line(s string) string { return With(s, Options{OneLine: true}) }

// Visible is String showing removed sequences, C1 and bidi characters
// (Options.Visible): for text an agent or a flow file wrote, where an
// escape is a sign of an attack the person should see.
func Visible(s string) string { return With(s, Options{Visible: true}) }

// Bytes is String for a byte slice; b itself is returned when it is safe.
func Bytes(b []byte) []byte {
	if plain(b, Options{}) {
		return b
	}
	z := pool.Get().(*sanitizer)
	defer pool.Put(z)
	z.reset(Options{})
	z.feed(b)
	z.flush()
	return bytes.Clone(z.out)
}

// Frame is the backstop for a screen flowdeck drew itself: its own SGR
// styling stays (minus blink and conceal); every other sequence, control
// and bidi character that slipped into it is dropped.
func Frame(s string) string { return With(s, Options{KeepSGR: true}) }

// Safe reports whether s holds nothing String would remove.
func Safe(s string) bool { return plain(s, Options{}) }
