// Package ctl names the characters a terminal acts on rather than shows:
// C0 and C1 controls, DEL and bidi overrides. It is termtext's table, in a
// package of its own so that the lean flowdeck binary can check text
// without linking termtext's escape-sequence parser (whose table costs
// every process its construction).
package ctl

import "unicode/utf8"

// IsBidi reports whether r is a bidirectional formatting character, which
// can make a terminal show text in an order other than the bytes' order.
func IsBidi(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// IsC1 reports whether r is a C1 control (U+0080–U+009F). Terminals in
// UTF-8 mode may act on their UTF-8 form (U+009B is CSI).
func IsC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// Inert reports whether s reaches a terminal as nothing but text: valid
// UTF-8 without controls (C0 but newlines and tabs, which oneLine refuses
// too, with the line and paragraph separators; DEL; C1) or bidi controls.
// What termtext writes for people, and the JSON that encoding/json writes
// and termtext.JSON escapes, is inert.
func Inert[T string | []byte](s T, oneLine bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
		case (c == '\n' || c == '\t') && !oneLine:
		case c >= 0x80:
			return inertUTF8(s[i:], oneLine)
		default:
			return false
		}
	}
	return true
}

// inertUTF8 is Inert's slow half, for text with non-ASCII runes.
func inertUTF8[T string | []byte](s T, oneLine bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && (oneLine || (c != '\n' && c != '\t')) {
				return false
			}
			i++
			continue
		}
		var r rune
		var n int
		switch v := any(s).(type) {
		case string:
			r, n = utf8.DecodeRuneInString(v[i:])
		case []byte:
			r, n = utf8.DecodeRune(v[i:])
		}
		if r == utf8.RuneError && n <= 1 || IsC1(r) || IsBidi(r) || oneLine && (r == 0x2028 || r == 0x2029) {
			return false
		}
		i += n
	}
	return true
}
