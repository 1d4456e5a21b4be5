package termtext

import (
	"strconv"
	"unicode/utf8"
)

// JSON escapes C1 controls and bidi characters in encoded JSON as \uXXXX.
// encoding/json escapes C0 controls (and U+2028/U+2029) but writes C1 and
// bidi runes raw, which a terminal showing the JSON would act on. Outside
// strings JSON is ASCII, so every such rune is inside a string, where the
// escape means the same rune. b is returned unchanged when nothing needs it.
func JSON(b []byte) []byte {
	i := 0
	for i < len(b) {
		if b[i] < 0x80 {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if IsC1(r) || IsBidi(r) {
			break
		}
		i += n
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		if b[i] < 0x80 {
			out = append(out, b[i])
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if IsC1(r) || IsBidi(r) {
			out = append(out, `\u`...)
			h := strconv.FormatInt(int64(r), 16)
			for k := len(h); k < 4; k++ {
				out = append(out, '0')
			}
			out = append(out, h...)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}
