package model

import (
	"strings"
	"testing"
)

func TestFirstLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"one\ntwo", 10, "one …"},
		{"ééééé", 3, "ééé…"},
		{strings.Repeat("x", 64<<10), 4, "xxxx…"},
		{"long first line\nsecond", 4, "long…"},
	} {
		if got := FirstLine(c.in, c.max); got != c.want {
			t.Errorf("FirstLine(%.20q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
