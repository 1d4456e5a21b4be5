package ctl

import "testing"

func TestInert(t *testing.T) {
	for _, c := range []struct {
		in            string
		oneLine, want bool
	}{
		{"plain text\nwith lines\n", false, true},
		{"ünïcödé — ✓ \\e]52;c; shown", false, true},
		{"tab\there", false, true},
		{"tab\there", true, false},
		{"line\u2028separator", false, true},
		{"line\u2028separator", true, false},
		{"\x1b[31m", false, false},
		{"bell\x07", false, false},
		{"cr\rhides", false, false},
		{"del\x7f", false, false},
		{"c1 \u009b2J", false, false},
		{"bidi \u202e", false, false},
		{"bidi \u2066", false, false},
		{"broken \xff utf-8", false, false},
		{"", false, true},
	} {
		if got := Inert([]byte(c.in), c.oneLine); got != c.want || Inert(c.in, c.oneLine) != c.want {
			t.Errorf("Inert(%q, %v) = %v, want %v", c.in, c.oneLine, got, c.want)
		}
	}
}
