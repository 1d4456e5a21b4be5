package output

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/internal/hostile"
)

// TestEraseInLine: progress redraws that clear the line with CSI K leave no
// residue of the longer line they replace (issue 15: "case_1###] 100%").
func TestEraseInLine(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"K after CR", "[##########] 100%\r\x1b[Kcase_1\n", "case_1"},
		{"0K after CR", "[####      ]  40%\r\x1b[0Kok\n", "ok"},
		{"2K then CR", "[####] 40%\x1b[2K\rdone\n", "done"},
		{"CR then 2K", "[####] 40%\r\x1b[2Kdone\n", "done"},
		{"K mid-line", "abcdef\rXY\x1b[K\n", "XY"},
		{"1K", "abcdef\x1b[1Kgh\n", "      gh"},
		{"K keeps colour", "\x1b[32mold long line\r\x1b[Knew\n", "new"},
		{"many redraws", "case_1 [#   ] 10%\r\x1b[Kcase_1 [### ] 90%\r\x1b[Kcase_1\ncase_2\n", "case_1|case_2"},
	}
	for _, c := range cases {
		got, p := feedAll(c.in)
		if plains(got) != c.want {
			t.Errorf("%s: got %q want %q", c.name, plains(got), c.want)
		}
		if p.Emulate {
			t.Errorf("%s: sent to the emulator", c.name)
		}
	}
	got, _ := feedAll("\x1b[32mold long line\r\x1b[Knew\n")
	if got[0].Text != "\x1b[32mnew\x1b[m" {
		t.Errorf("colour after erase: %q", got[0].Text)
	}
}

// TestUnterminatedSequencesProgress: an OSC longer than 64 KiB or a CSI
// longer than 256 bytes, unterminated, used to stop the parser (100% CPU,
// "reading…" forever). Each Feed now consumes its bytes.
func TestUnterminatedSequencesProgress(t *testing.T) {
	for name, start := range map[string]string{
		"osc": "\x1b]", "dcs": "\x1bP", "apc": "\x1b_", "csi": "\x1b[", "c1 osc": "\u009d",
	} {
		var p Parser
		var lines []Line
		lines = append(lines, p.Feed([]byte("before\n"+start))...)
		fill := bytes.Repeat([]byte{'1'}, 70000)
		for range 3 {
			lines = append(lines, p.Feed(fill)...)
		}
		lines = append(lines, p.Feed([]byte("\nafter\n"))...)
		s := plains(lines)
		if !strings.HasPrefix(s, "before|") || !strings.HasSuffix(s, "|after") {
			t.Errorf("%s: %.80q", name, s)
		}
		if p.st.ap.State() != 0 {
			t.Errorf("%s: parser left in state %s", name, p.st.ap.StateName())
		}
	}
}

// TestFiftyMBLine: one 50 MB line, read in the cockpit's 4 MiB chunks with
// a Flush after each (as readCmd does), holds a bounded line, not 50 MB.
func TestFiftyMBLine(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB of input")
	}
	chunk := bytes.Repeat([]byte("0123456789abcdef\x1b[1mX\x1b[m"), (4<<20)/22)
	var p Parser
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	var partial Line
	for fed := 0; fed < 50<<20; fed += len(chunk) {
		if ls := p.Feed(chunk); len(ls) != 0 {
			t.Fatalf("a line ended without a newline")
		}
		partial, _ = p.Flush()
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	lines := p.Feed([]byte("\n"))
	if len(lines) != 1 || len(lines[0].Plain) > MaxLineBytes+64 || !strings.Contains(lines[0].Plain, "more bytes on this line") {
		t.Fatalf("got %d lines, first %d bytes", len(lines), len(lines[0].Plain))
	}
	if len(partial.Text) > 2*MaxLineBytes+64 {
		t.Errorf("partial line holds %d bytes", len(partial.Text))
	}
	grew := (peak - min(peak, base)) >> 20
	t.Logf("heap peak above baseline: %d MiB (input chunk 4 MiB)", grew)
	if grew > 40 {
		t.Errorf("heap grew by %d MiB for one line", grew)
	}
}

func BenchmarkFiftyMBLine(b *testing.B) {
	chunk := bytes.Repeat([]byte("0123456789abcdef"), (4<<20)/16)
	b.SetBytes(50 << 20)
	b.ReportAllocs()
	for b.Loop() {
		var p Parser
		for fed := 0; fed < 50<<20; fed += len(chunk) {
			p.Feed(chunk)
			p.Flush()
		}
		p.Feed([]byte("\n"))
	}
}

// FuzzParser: on any input, in any chunking, Feed returns having consumed
// everything, lines stay bounded, and nothing but text and safe SGR comes out.
func FuzzParser(f *testing.F) {
	f.Add([]byte(hostile.Corpus), 5)
	f.Add([]byte("\x1b]0;"+strings.Repeat("A", 300)), 3)
	f.Add([]byte("\x1b["+strings.Repeat("1;", 200)), 7)
	f.Add([]byte("50%\r\x1b[K60%\n\x1b[31mred\x1b[5;8m\n"), 9)
	f.Add([]byte("a\xc3\x1b[31mb\xe2\x80\xaec\u009b2Jd"), 2)
	f.Fuzz(func(t *testing.T, data []byte, step int) {
		step = max(1, step%64+1)
		var p Parser
		var lines []Line
		for i := 0; i < len(data); i += step {
			lines = append(lines, p.Feed(data[i:min(len(data), i+step)])...)
		}
		if l, ok := p.Flush(); ok {
			lines = append(lines, l)
		}
		if n := strings.Count(string(data), "\n"); len(lines) < n {
			t.Fatalf("%d newlines but %d lines", n, len(lines))
		}
		for _, l := range lines {
			if err := hostile.Check([]byte(l.Text), true); err != nil {
				t.Fatalf("text %q: %v", l.Text, err)
			}
			if err := hostile.Check([]byte(l.Plain), false); err != nil {
				t.Fatalf("plain %q: %v", l.Plain, err)
			}
			if strings.ContainsAny(l.Text, "\r\n") {
				t.Fatalf("line break inside a line: %q", l.Text)
			}
			if len(l.Plain) > MaxLineBytes+64 || len(l.Text) > 4*MaxLineBytes {
				t.Fatalf("a line of %d/%d bytes", len(l.Plain), len(l.Text))
			}
		}
		if p.st != nil && (len(p.st.sgr) > maxSGR+64 || len(p.st.tail) > MaxLineBytes+64) {
			t.Fatalf("parser state grew: sgr %d, tail %d bytes", len(p.st.sgr), len(p.st.tail))
		}
	})
}
