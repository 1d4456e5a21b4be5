package termtext

import (
	"strconv"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi/parser"
)

const replacement = "\uFFFD"

// sanitizer feeds bytes through the VT500 parser (vt) and appends what survives
// to out. State carries over between feeds, so sequences and UTF-8
// characters may be split anywhere. Memory is bounded: the parser keeps at
// most visibleData bytes of string data and a fixed number of parameters.
type sanitizer struct {
	p      vt
	o      Options
	out    []byte
	pendC1 byte // a C1 control seen in its UTF-8 form, fed on as the raw byte
}

func newSanitizer() *sanitizer { return &sanitizer{} }

// step advances the parser by one byte and acts on what it completed. Of a
// string's data (OSC, DCS …) only the start is ever kept, and shown.
func (z *sanitizer) step(c byte) {
	switch z.p.Advance(c) {
	case evPrint:
		z.print(z.p.r)
	case evExecute:
		z.execute(z.p.c)
	case evCSI:
		z.csi(z.p.cmd, z.p.csiParams())
	case evOSC:
		z.show(`\e]`, z.p.Data())
	case evDCS:
		z.show(`\eP`, nil)
	case evAPC:
		z.show(`\e_`, nil)
	case evPM:
		z.show(`\e^`, nil)
	case evSOS:
		z.show(`\eX`, nil)
	}
}

func (z *sanitizer) reset(o Options) {
	z.o = o
	z.out = z.out[:0]
	z.pendC1 = 0
	z.p.Reset()
}

// feed consumes all of b.
func (z *sanitizer) feed(b []byte) {
	for i := 0; i < len(b); {
		switch z.p.State() {
		case parser.GroundState:
			if n := z.safeRun(b[i:]); n > 0 {
				z.out = append(z.out, b[i:i+n]...)
				i += n
				continue
			}
		case parser.OscStringState, parser.DcsStringState:
			if z.o.Visible && len(z.p.Data()) < visibleData {
				break // the start of the payload is shown: collect it
			}
			// Skip a string's payload without the parser: only these
			// bytes can end it.
			j := i
			for j < len(b) && !stringEnd(b[j]) {
				j++
			}
			if i = j; i == len(b) {
				return
			}
		case parser.Utf8State:
			if c := b[i]; c < 0x80 || c >= 0xc0 {
				// A broken UTF-8 sequence: show it, and let this byte
				// (which may be ESC) start afresh.
				z.out = append(z.out, replacement...)
				z.p.Reset()
			}
		}
		z.advance(b[i])
		i++
	}
}

func stringEnd(c byte) bool {
	switch c {
	case 0x07, '\n', 0x18, 0x1a, 0x1b, 0x9c:
		return true
	}
	return false
}

func (z *sanitizer) advance(c byte) {
	if c == '\n' && z.p.State() != parser.GroundState {
		// A line end ends any unfinished sequence, so one stray OSC, DCS
		// or CSI cannot swallow the rest of a command's output.
		switch z.p.State() {
		case parser.OscStringState:
			z.show(`\e]`, z.p.Data())
		case parser.DcsStringState, parser.DcsEntryState, parser.DcsParamState, parser.DcsIntermediateState:
			z.show(`\eP`, nil)
		case parser.ApcStringState, parser.PmStringState, parser.SosStringState:
			z.show(`\e`, nil)
		}
		z.p.Reset()
	}
	z.step(c)
	if z.pendC1 != 0 {
		c1 := z.pendC1
		z.pendC1 = 0
		z.step(c1)
	}
}

// safeRun is SafeRun, with line separators refused on one line.
func (z *sanitizer) safeRun(b []byte) int {
	n := SafeRun(b)
	if z.o.OneLine {
		if i := indexSeparator(b[:n]); i >= 0 {
			return i
		}
	}
	return n
}

// SafeRun is the length of the run at the start of b that can go to a
// terminal as it is: printable ASCII and complete UTF-8 runes that are
// neither controls nor bidi characters. A parser of its own can copy that
// much and hand only the byte after it to the escape-sequence parser.
func SafeRun(b []byte) int {
	i := 0
	for i < len(b) {
		c := b[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		if c < 0xc0 {
			break
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 || IsC1(r) || IsBidi(r) {
			break
		}
		i += n
	}
	return i
}

// indexSeparator finds U+2028 or U+2029 (E2 80 A8/A9) in b.
func indexSeparator(b []byte) int {
	for i := 0; i+2 < len(b); i++ {
		if b[i] == 0xe2 && b[i+1] == 0x80 && (b[i+2] == 0xa8 || b[i+2] == 0xa9) {
			return i
		}
	}
	return -1
}

// print handles a rune the parser printed: only runes safeRun refused, or
// ones that came through the parser byte by byte.
func (z *sanitizer) print(r rune) {
	switch {
	case r == utf8.RuneError:
		z.out = append(z.out, replacement...)
	case IsC1(r):
		z.pendC1 = byte(r)
		z.showRune(r)
	case IsBidi(r):
		z.showRune(r)
	case r < 0x20 || r == 0x7f:
	case z.o.OneLine && (r == 0x2028 || r == 0x2029):
		z.out = append(z.out, ' ')
	default:
		z.out = utf8.AppendRune(z.out, r)
	}
}

// visibleData is how much of a string's payload Visible shows.
const visibleData = 12

// show writes a removed string sequence visibly, as its introducer and the
// start of its payload (`\e]52;c;SGVsbG…`), when the options ask for it.
func (z *sanitizer) show(intro string, data []byte) {
	if !z.o.Visible {
		return
	}
	z.out = append(z.out, intro...)
	for _, c := range data {
		if c < 0x20 || c >= 0x7f {
			c = '?'
		}
		z.out = append(z.out, c)
	}
	z.out = append(z.out, "…"...)
}

// showRune writes a removed C1 or bidi character as \uXXXX under Visible.
func (z *sanitizer) showRune(r rune) {
	if z.o.Visible {
		z.out = append(z.out, `\u`...)
		z.out = append(z.out, fmt4x(r)...)
	}
}

func fmt4x(r rune) string {
	h := strconv.FormatInt(int64(r), 16)
	for len(h) < 4 {
		h = "0" + h
	}
	return h
}

func (z *sanitizer) execute(c byte) {
	switch c {
	case '\n', '\t':
		if z.o.OneLine {
			c = ' '
		}
		z.out = append(z.out, c)
	case '\r':
		if z.o.KeepCR && !z.o.OneLine {
			z.out = append(z.out, c)
		}
	}
}

func (z *sanitizer) csi(cmd int, params []int) {
	if !z.o.KeepSGR || cmd != 'm' { // no prefix, no intermediate
		return
	}
	z.out = AppendSGR(z.out, params)
}

// flush ends the input: a cut UTF-8 character shows as U+FFFD, and an
// unfinished sequence is dropped.
func (z *sanitizer) flush() {
	if z.p.State() == parser.Utf8State {
		z.out = append(z.out, replacement...)
	}
	z.p.Reset()
	z.pendC1 = 0
}

// AppendSGR writes an SGR sequence with params minus blink (5, 6) and
// conceal (8). Extended colours (38/48/58 with ;5;n, ;2;r;g;b or colon
// sub-parameters) are kept whole so their numbers are not read as
// attributes. params are packed as x/ansi/parser packs them (an ansi.Params
// will do): parser.HasMoreFlag set where a colon follows, MissingParam for
// an empty one.
func AppendSGR[P ~int](out []byte, params []P) []byte {
	param := func(i int) int { // a missing parameter reads as 0
		if v := int(params[i]) & parser.ParamMask; v != parser.MissingParam {
			return v
		}
		return 0
	}
	hasMore := func(i int) bool { return int(params[i])&parser.HasMoreFlag != 0 }
	kept := make([]byte, 0, 16)
	sep := func(b byte) {
		if len(kept) > 0 {
			kept = append(kept, b)
		}
	}
	for i := 0; i < len(params); i++ {
		n := param(i)
		if hasMore(i) { // n:sub:sub…: a colour or an underline style
			group := []int{n}
			for hasMore(i) && i+1 < len(params) {
				i++
				group = append(group, param(i))
			}
			if n == 38 || n == 48 || n == 58 || n == 4 {
				sep(';')
				for k, v := range group {
					if k > 0 {
						kept = append(kept, ':')
					}
					kept = strconv.AppendInt(kept, int64(v), 10)
				}
			}
			continue
		}
		switch n {
		case 5, 6, 8:
			continue
		case 38, 48, 58:
			take := 0
			if i+1 < len(params) {
				switch param(i + 1) {
				case 5:
					take = 2
				case 2:
					take = 4
				}
			}
			if i+take >= len(params) {
				return append(out, "\x1b[m"...) // malformed: reset rather than guess
			}
			sep(';')
			kept = strconv.AppendInt(kept, int64(n), 10)
			for k := 1; k <= take; k++ {
				kept = append(kept, ';')
				kept = strconv.AppendInt(kept, int64(param(i+k)), 10)
			}
			i += take
			continue
		}
		sep(';')
		kept = strconv.AppendInt(kept, int64(n), 10)
	}
	if len(kept) == 0 && len(params) > 0 {
		return out // only blink or conceal: nothing left to say
	}
	out = append(out, "\x1b["...)
	out = append(out, kept...)
	return append(out, 'm')
}
