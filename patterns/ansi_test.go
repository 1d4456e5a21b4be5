package patterns

import (
	"bytes"
	"math/rand"
	"testing"
	"unicode/utf8"
)

var stripCases = []struct {
	name, in, want string
}{
	{"plain", "hello world\n", "hello world\n"},
	{"unicode kept", "✓ ok — ünïcode 日本 ⎯⎯\n", "✓ ok — ünïcode 日本 ⎯⎯\n"},
	{"tab kept", "a\tb\n", "a\tb\n"},
	{"sgr", "\x1b[1;31mred\x1b[0m and \x1b[38;2;1;2;3mtrue\x1b[m\n", "red and true\n"},
	{"cursor games", "\x1b[2A\x1b[10;5H\x1b[K\x1b[?25l\x1b[?2026hx\x1b[6n\x1b[2J\n", "x\n"},
	{"title BEL", "\x1b]0;evil title\x07text\n", "text\n"},
	{"title ST", "\x1b]2;evil title\x1b\\text\n", "text\n"},
	{"osc 52 clipboard", "\x1b]52;c;ZWNobyBoYWNrZWQ=\x07after\n", "after\n"},
	{"osc 52 ST", "\x1b]52;c;ZWNobyBoYWNrZWQ=\x1b\\after\n", "after\n"},
	{"osc 8 link", "\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\\n", "link\n"},
	{"dcs sixel", "\x1bPq#0;2;0;0;0#1!14~-\x1b\\after\n", "after\n"},
	{"dcs tmux passthrough of osc 52", "\x1bPtmux;\x1b\x1b]52;c;AAAA\x07\x1b\\after\n", "after\n"},
	{"dcs decrqss", "\x1bP$qm\x1b\\x\n", "x\n"},
	{"apc kitty graphics", "\x1b_Gf=100;AAAA\x1b\\x\n", "x\n"},
	{"pm and sos", "\x1b^private\x1b\\\x1bXstring\x1b\\x\n", "x\n"},
	{"c1 csi in utf-8", "\u009b31mred\u009b0m\n", "red\n"},
	{"c1 osc in utf-8 with c1 st", "\u009d0;title\u009cafter\n", "after\n"},
	{"c1 dcs in utf-8", "\u0090payload\u009cafter\n", "after\n"},
	{"other c1 dropped", "a\u0085b\u008dc\n", "abc\n"},
	{"raw 8-bit csi is not utf-8", "\x9b31mX\n", "\uFFFD31mX\n"},
	{"charset and single esc", "\x1b(B\x1b)0\x1b#8\x1b7\x1b8\x1bc\x1b=\x1b>\x1bMx\n", "x\n"},
	{"c0 controls", "a\x07b\x08c\x00d\x7fe\x0bf\x0cg\n", "abcdefg\n"},
	{"crlf", "a\r\nb\r\n", "a\nb\n"},
	{"progress overwrite", "10%\r50%\r100%\ndone\n", "100%\ndone\n"},
	{"cr at end of stream", "abc\r", "abc"},
	{"cr then escape then newline", "abc\r\x1b[0m\n", "abc\n"},
	{"cr cr lf", "abc\r\r\n", "abc\n"},
	{"cargo progress then error", "Building [===] 0/1: rs\r\x1b[Kerror: x\n", "error: x\n"},
	{"unterminated osc ends at newline", "\x1b]0;title\nnext\n", "\nnext\n"},
	{"csi aborted by newline", "\x1b[31\nX\n", "\nX\n"},
	{"csi aborted by CAN", "\x1b[31\x18X\n", "X\n"},
	{"esc esc", "\x1b\x1b[31mX\n", "X\n"},
	{"invalid utf-8", "a\xffb\xc3\x28c\n", "a\uFFFDb\uFFFD(c\n"},
	{"truncated utf-8 at end", "a\xe2\x82", "a\uFFFD"},
	{"no trailing newline", "last", "last"},
	{"empty", "", ""},
}

func TestStripANSI(t *testing.T) {
	for _, tc := range stripCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(StripANSI([]byte(tc.in))); got != tc.want {
				t.Errorf("StripANSI(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// stripChunked feeds the splitter in pieces of n bytes, as pty reads do.
func stripChunked(in []byte, n int) []byte {
	var out []byte
	s := splitter{maxLine: -1}
	s.emit = func(l []byte, _ int64) {
		out = append(out, l...)
		out = append(out, '\n')
	}
	for off := 0; off < len(in); off += n {
		s.write(in[off:min(off+n, len(in))])
	}
	s.emit = func(l []byte, _ int64) { out = append(out, l...) }
	s.flush()
	return out
}

func TestStripANSIChunked(t *testing.T) {
	for _, tc := range stripCases {
		for _, n := range []int{1, 2, 3, 5} {
			if got := string(stripChunked([]byte(tc.in), n)); got != tc.want {
				t.Errorf("%s, chunks of %d: %q, want %q", tc.name, n, got, tc.want)
			}
		}
	}
}

// safeText reports why b could affect a terminal, or "" when it cannot:
// valid UTF-8 without ESC, C0 (but \n and \t), DEL or C1 controls.
func safeText(b []byte) string {
	if !utf8.Valid(b) {
		return "invalid UTF-8"
	}
	for _, r := range string(b) {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f:
			return "C0 control"
		case r >= 0x80 && r <= 0x9f:
			return "C1 control"
		}
	}
	return ""
}

// TestStripANSIHostileRandom throws random bytes, dense in escape
// introducers, at the stripper: whatever comes in, what comes out cannot
// drive a terminal, and chunking does not change it.
func TestStripANSIHostileRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte("\x1b[]P_^X\\\x07\x18\x1a\r\n\t;0123456789ABm~\xc2\x9b\x9c\x9d\x90\xe2\x82\xacaz ")
	for i := 0; i < 2000; i++ {
		in := make([]byte, rng.Intn(200))
		for j := range in {
			if rng.Intn(4) == 0 {
				in[j] = byte(rng.Intn(256))
			} else {
				in[j] = alphabet[rng.Intn(len(alphabet))]
			}
		}
		out := StripANSI(in)
		if why := safeText(out); why != "" {
			t.Fatalf("%q -> %q: %s", in, out, why)
		}
		if got := stripChunked(in, 1+rng.Intn(7)); !bytes.Equal(got, out) {
			t.Fatalf("%q: chunked %q, whole %q", in, got, out)
		}
	}
}

func FuzzStripANSI(f *testing.F) {
	for _, tc := range stripCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out := StripANSI(in)
		if why := safeText(out); why != "" {
			t.Fatalf("%q -> %q: %s", in, out, why)
		}
		if got := stripChunked(in, 3); !bytes.Equal(got, out) {
			t.Fatalf("%q: chunked %q, whole %q", in, got, out)
		}
	})
}
