// Package hostile holds one corpus of text an attacker would put where an
// agent, a flow file or a command can write, and the check that none of it
// reached a terminal: tests feed the corpus through a path and hand what
// the terminal received to Check.
package hostile

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Corpus is one string carrying every trick: OSC 52 (clipboard write),
// OSC 8 (link), OSC 0/2 (title), SGR 8 (hidden), blink, C1 CSI in UTF-8
// form, bidi overrides and isolates, DCS, APC, PM, SOS, screen and cursor
// games, queries whose answers a terminal types as input, raw ESC, NUL, BEL,
// backspace and carriage-return overwrites. Marker keeps it findable.
const Corpus = "Marker" +
	"\x1b]52;c;SGVsbG8=\x07" +
	"\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\" +
	"\x1b]0;pwned title\x07\x1b]2;pwned2\x1b\\" +
	"\x1b[8mhidden\x1b[0m\x1b[5mblink\x1b[25m" +
	"\u009b31mc1csi\u009d0;c1title\u009c" +
	"\u202eevil\u202c\u2066iso\u2069\u200f\u061c" +
	"\x1bP1$qm\x1b\\\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\" +
	"\x1b7\x1b[2J\x1b[H\x1bc\x1b[?1049h" +
	"\x1b[6n\x1b[c\x1b]11;?\x07" + // queries: the terminal would type its answer

	"nul\x00bel\x07bs\b\b\bcr\rOVER\x1b"

// Check returns an error naming the first forbidden thing in out: any ESC
// (unless allowSGR, then only SGR sequences without blink or conceal), any
// C1 control in raw or UTF-8 form, any bidi control, NUL, BEL or backspace.
func Check(out []byte, allowSGR bool) error {
	s := string(out)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			n, err := sgrAt(s[i:], allowSGR)
			if err != nil {
				return fmt.Errorf("at byte %d: %v in %q", i, err, around(s, i))
			}
			i += n
			continue
		case c == 0 || c == 0x07 || c == 0x08 || c == 0x7f || (c < 0x20 && c != '\n' && c != '\t' && c != '\r'):
			return fmt.Errorf("at byte %d: control %#x in %q", i, c, around(s, i))
		case c >= 0x80:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 && c >= 0x80 && c <= 0x9f {
				return fmt.Errorf("at byte %d: raw C1 byte %#x in %q", i, c, around(s, i))
			}
			if r >= 0x80 && r <= 0x9f {
				return fmt.Errorf("at byte %d: C1 control U+%04X in %q", i, r, around(s, i))
			}
			if isBidi(r) {
				return fmt.Errorf("at byte %d: bidi control U+%04X in %q", i, r, around(s, i))
			}
			i += n
			continue
		}
		i++
	}
	return nil
}

// sgrAt accepts an SGR sequence at the start of s and returns its length.
func sgrAt(s string, allowSGR bool) (int, error) {
	if !allowSGR {
		return 0, fmt.Errorf("ESC")
	}
	if !strings.HasPrefix(s, "\x1b[") {
		return 0, fmt.Errorf("ESC not starting SGR")
	}
	j := 2
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';' || s[j] == ':') {
		j++
	}
	if j >= len(s) || s[j] != 'm' {
		return 0, fmt.Errorf("CSI other than SGR")
	}
	ps := strings.Split(s[2:j], ";")
	for i := 0; i < len(ps); i++ {
		switch p := ps[i]; {
		case strings.Contains(p, ":"): // a colon group is one attribute
		case p == "38" || p == "48" || p == "58":
			if i+1 < len(ps) && ps[i+1] == "5" {
				i += 2
			} else if i+1 < len(ps) && ps[i+1] == "2" {
				i += 4
			}
		case p == "5" || p == "6" || p == "8":
			return 0, fmt.Errorf("SGR %s (blink or conceal)", p)
		}
	}
	return j + 1, nil
}

func isBidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 ||
		r == 0x200e || r == 0x200f || r == 0x061c
}

func around(s string, i int) string {
	lo, hi := max(0, i-20), min(len(s), i+20)
	return s[lo:hi]
}
