package termtext

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/flowdeck/flowdeck/internal/hostile"
)

// vtLog runs s through the driver and writes down every event and state,
// in the form xansiLog uses.
func vtLog(s string) string {
	var p vt
	p.Reset()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch p.Advance(s[i]) {
		case evPrint:
			fmt.Fprintf(&b, "print %q|", p.r)
		case evExecute:
			fmt.Fprintf(&b, "exec %x|", p.c)
		case evCSI:
			fmt.Fprintf(&b, "csi %x %v|", p.cmd, p.csiParams())
		case evESC:
			fmt.Fprintf(&b, "esc %x|", p.cmd)
		case evDCS:
			fmt.Fprintf(&b, "dcs %q|", p.Data())
		case evOSC:
			fmt.Fprintf(&b, "osc %q|", p.Data())
		case evAPC:
			fmt.Fprintf(&b, "apc %q|", p.Data())
		case evPM:
			fmt.Fprintf(&b, "pm %q|", p.Data())
		case evSOS:
			fmt.Fprintf(&b, "sos %q|", p.Data())
		}
		fmt.Fprintf(&b, "%d ", p.State())
	}
	return b.String()
}

// xansiLog is vtLog with x/ansi's own Parser, which the driver must agree
// with on everything the sanitiser reads.
func xansiLog(s string) string {
	p := ansi.NewParser()
	p.SetDataSize(visibleData)
	var b strings.Builder
	ints := func(ps ansi.Params) []int {
		out := make([]int, len(ps))
		for i, v := range ps {
			out[i] = int(v)
		}
		return out
	}
	p.SetHandler(ansi.Handler{
		Print:     func(r rune) { fmt.Fprintf(&b, "print %q|", r) },
		Execute:   func(c byte) { fmt.Fprintf(&b, "exec %x|", c) },
		HandleCsi: func(cmd ansi.Cmd, ps ansi.Params) { fmt.Fprintf(&b, "csi %x %v|", int(cmd), ints(ps)) },
		HandleEsc: func(cmd ansi.Cmd) { fmt.Fprintf(&b, "esc %x|", int(cmd)) },
		HandleDcs: func(_ ansi.Cmd, _ ansi.Params, d []byte) { fmt.Fprintf(&b, "dcs %q|", d) },
		HandleOsc: func(_ int, d []byte) { fmt.Fprintf(&b, "osc %q|", d) },
		HandleApc: func(d []byte) { fmt.Fprintf(&b, "apc %q|", d) },
		HandlePm:  func(d []byte) { fmt.Fprintf(&b, "pm %q|", d) },
		HandleSos: func(d []byte) { fmt.Fprintf(&b, "sos %q|", d) },
	})
	for i := 0; i < len(s); i++ {
		p.Advance(s[i])
		fmt.Fprintf(&b, "%d ", p.State())
	}
	return b.String()
}

// FuzzVTMatchesXAnsi: the driver over x/ansi/parser's table reads every
// input as x/ansi's Parser does (events, payload starts, states), so
// replacing one by the other changes nothing the sanitiser does.
func FuzzVTMatchesXAnsi(f *testing.F) {
	f.Add(hostile.Corpus)
	for _, s := range []string{
		"\x1b[1;31mred\x1b[0m", "\x1b[38:2::1:2:3mc", "\x1b[?25h\x1b[>1;2c",
		"\x1b]8;;https://example.com/x\x1b\\link", "\x1bP1$qm\x1b\\", "\x1bP\x1b[31m\x1b\\",
		"\x1b_apc\x1b\\\x1b^pm\x9c\x1bXsos\x1b\\", "a\xc3\xa9\xe2\x80\xae\xf0\x9f\x98\x80\xc3\x1b",
		"\x9b1;2m\x9d0;t\x07\x90q\x9c", "\x1b\x1b[m\x1b(B\x1b#8\x1b 7",
		"\x1b[" + strings.Repeat("1;", 40) + "m", "\x1b[99999999999999999999m",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := vtLog(s), xansiLog(s); got != want {
			t.Fatalf("input %q:\n driver: %s\n x/ansi: %s", s, got, want)
		}
	})
}

func TestStrip(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[1;31mred\x1b[0m \x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\", "red link"},
		{"a\u009b31mb\x9b1mc\u0085d", "abcd"},
		{"keep\tcontrols\r\n\x07bel", "keep\tcontrols\r\n\x07bel"},
		{"bidi \u202estays\u202c", "bidi \u202estays\u202c"},
		{"cut \xc3\x1b[31mred \xff", "cut \uFFFDred "},
		{"osc \x1b]0;no end\nnext", "osc \nnext"},
		{"esc esc \x1b\x1bx", "esc esc "},
		{"trailing \xe2\x80", "trailing \uFFFD"},
	}
	for _, c := range cases {
		if got := Strip(c.in); got != c.want {
			t.Errorf("Strip(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzStrip: Strip leaves no escape, no C1 control and no invalid UTF-8,
// is idempotent, and removes what String removes as String does.
func FuzzStrip(f *testing.F) {
	f.Add(hostile.Corpus)
	f.Add("a\xe2\x80\xaeb\xc2\x9b1mc\x1b]0;x\n\xc3")
	f.Fuzz(func(t *testing.T, s string) {
		got := Strip(s)
		if !utf8.ValidString(got) || strings.ContainsRune(got, 0x1b) {
			t.Fatalf("Strip(%q) = %q: invalid UTF-8 or ESC", s, got)
		}
		for _, r := range got {
			if IsC1(r) {
				t.Fatalf("Strip(%q) = %q kept C1 %U", s, got, r)
			}
		}
		if again := Strip(got); again != got {
			t.Fatalf("not idempotent: %q -> %q", got, again)
		}
		if a, b := String(got), String(s); a != b {
			t.Fatalf("String(Strip(%q)) = %q, String = %q", s, a, b)
		}
	})
}
