package output

import (
	"strings"
	"testing"
)

func feedAll(chunks ...string) ([]Line, Parser) {
	var p Parser
	var out []Line
	for _, c := range chunks {
		out = append(out, p.Feed([]byte(c))...)
	}
	if l, ok := p.Flush(); ok {
		out = append(out, l)
	}
	return out, p
}

func plains(ls []Line) string {
	var s []string
	for _, l := range ls {
		s = append(s, l.Plain)
	}
	return strings.Join(s, "|")
}

func TestPlainParser(t *testing.T) {
	cases := []struct {
		name   string
		chunks []string
		want   string
	}{
		{"lines", []string{"a\nb\n", "c"}, "a|b|c"},
		{"crlf split", []string{"one\r", "\ntwo\r\n"}, "one|two"},
		{"progress", []string{"10%\r20%\r100% done\n"}, "100% done"},
		{"overwrite keeps tail", []string{"downloading 1234\rDONE\n"}, "DONEloading 1234"},
		{"overwrite in pieces", []string{"abcdef\rXY", "Z\n"}, "XYZdef"},
		{"tabs", []string{"a\tb\n"}, "a       b"},
		{"backspace", []string{"ab\bc\n"}, "ac"},
		{"osc dropped", []string{"\x1b]0;title\x07hi\n"}, "hi"},
		{"osc split", []string{"\x1b]8;;http://x", "\x1b\\link\x1b]8;;\x1b\\\n"}, "link"},
		{"erase line dropped", []string{"50%\r\x1b[K60%\n"}, "60%"},
		{"bell dropped", []string{"a\x07b\n"}, "ab"},
	}
	for _, c := range cases {
		got, p := feedAll(c.chunks...)
		if plains(got) != c.want {
			t.Errorf("%s: got %q want %q", c.name, plains(got), c.want)
		}
		if p.Emulate {
			t.Errorf("%s: wants the emulator", c.name)
		}
		for _, l := range got {
			for _, bad := range []string{"\x1b]", "\x07", "\r", "\x1b[K"} {
				if strings.Contains(l.Text, bad) {
					t.Errorf("%s: %q leaks %q", c.name, l.Text, bad)
				}
			}
		}
	}
}

func TestPlainParserKeepsSGR(t *testing.T) {
	got, _ := feedAll("\x1b[31mred\nstill red\x1b[0m plain\n")
	if len(got) != 2 || got[0].Text != "\x1b[31mred\x1b[m" || !strings.HasPrefix(got[1].Text, "\x1b[31mstill red") {
		t.Fatalf("%q", got)
	}
	if got[1].Plain != "still red plain" {
		t.Fatalf("plain %q", got[1].Plain)
	}
}

func TestPlainParserDetectsScreenPrograms(t *testing.T) {
	for _, in := range []string{"\x1b[?1049h", "\x1b[2J\x1b[H", "a\x1b[1Ab", "\x1b7x\x1b8"} {
		_, p := feedAll(in)
		if !p.Emulate {
			t.Errorf("%q: not sent to the emulator", in)
		}
	}
}
