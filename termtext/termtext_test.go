package termtext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/flowdeck/flowdeck/internal/hostile"
)

func TestString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"two\nlines\twith tab", "two\nlines\twith tab"},
		{"Goal \x1b]52;c;SGVsbG8=\x07!", "Goal !"},
		{"\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"\x1b]0;title\x07t", "t"},
		{"\x1b[1;31mred\x1b[0m", "red"},
		{"a\u009b31mb", "ab"},
		{"a\u009d0;title\u009cb", "ab"},
		{"a\x9b31mb", "ab"},
		{"\u202eevil\u202c", "evil"},
		{"\u2066iso\u2069\u200e\u200f\u061c", "iso"},
		{"\x1bP1$qm\x1b\\x", "x"},
		{"\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\y", "y"},
		{"nul\x00bel\x07bs\bcr\rOVER", "nulbelbscrOVER"},
		{"crlf\r\nnext", "crlf\nnext"},
		{"trailing esc\x1b", "trailing esc"},
		{"\x1b(Bcharset", "charset"},
		{"bad \xff utf8", "bad  utf8"},
		{"cut \xc3", "cut \uFFFD"},
		{"cut \xc3\x1b[31mred", "cut \uFFFDred"},
		{"osc to eol \x1b]0;never ends\nnext line", "osc to eol \nnext line"},
		{"héllo wörld ✓ 日本", "héllo wörld ✓ 日本"},
	}
	for _, c := range cases {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLine(t *testing.T) {
	if got := Line("a\nb\tc\u2028d\x1b]2;t\x07"); got != "a b c d" {
		t.Errorf("Line = %q", got)
	}
}

func TestFrameKeepsSafeSGR(t *testing.T) {
	cases := []struct{ in, want string }{
		{"\x1b[1;31mred\x1b[m", "\x1b[1;31mred\x1b[m"},
		{"\x1b[5mblink\x1b[8mhidden\x1b[0m", "blinkhidden\x1b[0m"},
		{"\x1b[1;5;8;4mx", "\x1b[1;4mx"},
		{"\x1b[38;5;8mgrey", "\x1b[38;5;8mgrey"},
		{"\x1b[38;2;5;6;8;1mrgb", "\x1b[38;2;5;6;8;1mrgb"},
		{"\x1b[38:2::1:2:3mc", "\x1b[38:2:0:1:2:3mc"},
		{"\x1b[4:3mcurly", "\x1b[4:3mcurly"},
		{"\x1b[2Jclear\x1b]52;c;x\x07\x1b[?1049h", "clear"},
		{"\u009b5mc1", "c1"},
	}
	for _, c := range cases {
		if got := Frame(c.in); got != c.want {
			t.Errorf("Frame(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCorpus(t *testing.T) {
	for _, f := range []func(string) string{String, Line, Frame} {
		out := f(hostile.Corpus)
		if err := hostile.Check([]byte(out), true); err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		if !strings.Contains(out, "Marker") || strings.Contains(out, "SGVsbG8") {
			t.Errorf("%q: marker lost or OSC payload shown", out)
		}
	}
	if err := hostile.Check([]byte(String(hostile.Corpus)), false); err != nil {
		t.Fatal(err)
	}
}

func TestVisible(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Goal \x1b]52;c;SGVsbG8=\x07!", `Goal \e]52;c;SGVsbG8…!`},
		{"\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\", `\e]8;;https://x…link\e]8;;…`},
		{"\x1b]0;t\x07x", `\e]0;t…x`},
		{"\x1b[1;31mred\x1b[0m\x1b[2J", "red"},
		{"a\u009b31mb\u202ec", `a\u009bb\u202ec`},
		{"\x1bP1$qm\x1b\\\x1b_apc\x1b\\x", `\eP…\e_…x`},
		{"osc to eol \x1b]0;never\nnext", "osc to eol \\e]0;never…\nnext"},
		{"bel\x07cr\rbs\b", "belcrbs"},
	}
	for _, c := range cases {
		if got := Visible(c.in); got != c.want {
			t.Errorf("Visible(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestJSON(t *testing.T) {
	in := []byte(`{"a":"x` + "\u009b\u202e\u061c" + `é"}`)
	want := `{"a":"x\u009b\u202e\u061cé"}`
	if got := string(JSON(in)); got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
	plain := []byte(`{"a":"é"}`)
	if got := JSON(plain); &got[0] != &plain[0] {
		t.Error("JSON copied a safe input")
	}
}

// TestWriterUnterminatedString: a string that never ends costs no memory and
// hides nothing after the next newline.
func TestWriterUnterminatedString(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Options{KeepCR: true})
	w.Write([]byte("before\x1b]0;"))
	chunk := bytes.Repeat([]byte("A"), 1<<20)
	for range 8 {
		w.Write(chunk)
	}
	w.Write([]byte("\nafter\r\n"))
	w.Flush()
	if got := out.String(); got != "before\nafter\r\n" {
		t.Errorf("got %q", got)
	}
	if c := cap(w.z.p.Data()); c > visibleData {
		t.Errorf("parser kept %d bytes of string data", c)
	}
}

// chunked feeds s through a Writer cut at the given points.
func chunked(s string, o Options, cuts []int) string {
	var out bytes.Buffer
	w := NewWriter(&out, o)
	prev := 0
	for _, c := range cuts {
		if c > prev && c < len(s) {
			w.Write([]byte(s[prev:c]))
			prev = c
		}
	}
	w.Write([]byte(s[prev:]))
	w.Flush()
	return out.String()
}

func FuzzSanitize(f *testing.F) {
	f.Add(hostile.Corpus, 7, 31)
	f.Add("\x1b[38;5;8;5mx\u202e\xc3", 3, 4)
	f.Add("a\xe2\x80\xaeb\xc2\x9b1mc", 2, 5)
	f.Fuzz(func(t *testing.T, s string, c1, c2 int) {
		for _, o := range []Options{{}, {OneLine: true}, {KeepSGR: true, KeepCR: true}, {Visible: true}, {Visible: true, OneLine: true}} {
			whole := With(s, o)
			if err := hostile.Check([]byte(whole), o.KeepSGR); err != nil {
				t.Fatalf("With(%q, %+v) = %q: %v", s, o, whole, err)
			}
			if o.OneLine && strings.ContainsAny(whole, "\n\t\r") {
				t.Fatalf("OneLine kept a line break: %q", whole)
			}
			if got := chunked(s, o, []int{c1, c2}); got != whole {
				t.Fatalf("chunked at %d,%d = %q, whole = %q", c1, c2, got, whole)
			}
			if again := With(whole, o); !o.KeepSGR && again != whole {
				t.Fatalf("not idempotent: %q -> %q", whole, again)
			}
		}
	})
}

// TestWriterConcurrent: writes from several goroutines (a flow's log and
// its command's live output) each arrive whole; run with -race.
func TestWriterConcurrent(t *testing.T) {
	var mu sync.Mutex
	var out bytes.Buffer
	w := NewWriter(lockedWriter{&mu, &out}, Options{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				fmt.Fprintf(w, "line from %d\x1b[31m\n", g)
			}
		}()
	}
	wg.Wait()
	if n := strings.Count(out.String(), "\n"); n != 800 || strings.Contains(out.String(), "\x1b") {
		t.Fatalf("%d lines, escapes kept: %v", n, strings.Contains(out.String(), "\x1b"))
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestJSONKeepsMeaning: the escaped JSON decodes to the same value.
func TestJSONKeepsMeaning(t *testing.T) {
	in := map[string]string{"goal": hostile.Corpus + "é日本"}
	raw, _ := json.Marshal(in)
	var back map[string]string
	if err := json.Unmarshal(JSON(raw), &back); err != nil || back["goal"] != in["goal"] {
		t.Fatalf("%v: %q", err, back["goal"])
	}
	if err := hostile.Check(JSON(raw), false); err != nil {
		t.Fatal(err)
	}
}
