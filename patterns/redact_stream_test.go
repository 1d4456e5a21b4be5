package patterns

import (
	"bytes"
	"strings"
	"testing"
)

// pieces redacts text as the store does: whatever lengths the input
// arrives in, an unfinished line that reaches limit is cut with Piece.
func pieces(t *testing.T, r *Redactor, text []byte, arrive, limit int) []byte {
	t.Helper()
	var out, held []byte
	for len(text) > 0 {
		n := min(arrive, len(text))
		held, text = append(held, text[:n]...), text[n:]
		for len(held) >= limit {
			head, k := r.Piece(held)
			out = append(out, head...)
			held = append(held[:0], held[k:]...)
		}
	}
	return append(out, r.Line(held)...)
}

// A secret that straddles the place where a long line is cut is redacted,
// wherever the cut falls: tokens alone, after "Bearer", in an assignment,
// in a URL, each packed so that every arrival size cuts one.
func TestPieceRedactsAcrossTheCut(t *testing.T) {
	r, _ := NewRedactor(nil)
	for _, c := range []struct{ unit, secret string }{
		{" ghp_abcdefghijklmnopqrstuvwxyz0123456789", "lmnopqrstuvwxyz"},
		{" Authorization: Bearer abcdef0123456789abcdef0123;", "abcdef0123456789abcdef"},
		{" DB_PASSWORD=hunter2xyzhunter2xyz", "hunter2xyzhunter2xyz"},
		{" postgres://app:s3cretpwURLs3cret@db/x", "s3cretpwURLs3cret"},
	} {
		line := []byte(strings.Repeat(c.unit, 3*SeamBytes/len(c.unit)+7))
		for _, arrive := range []int{4096, 4099, 65536, 7919} {
			out := pieces(t, r, line, arrive, 2*SeamBytes+arrive/3)
			if i := bytes.Index(out, []byte(c.secret)); i >= 0 {
				t.Fatalf("%q arriving %d at a time: the secret is kept: …%s…", c.unit, arrive, out[max(0, i-40):min(len(out), i+40)])
			}
			if got, want := bytes.Count(out, []byte(Redacted)), bytes.Count(line, []byte(c.unit)); got != want {
				t.Errorf("%q arriving %d at a time: %d redacted, want %d", c.unit, arrive, got, want)
			}
		}
	}
}

// Text without secrets passes through Piece unchanged, piece by piece.
func TestPieceKeepsPlainText(t *testing.T) {
	r, _ := NewRedactor(nil)
	line := []byte(strings.Repeat("the quick brown fox, ", 4*SeamBytes/21))
	if out := pieces(t, r, line, 5000, 3*SeamBytes); !bytes.Equal(out, line) {
		t.Fatalf("plain text changed: %d bytes in, %d out", len(line), len(out))
	}
}

// Writer redacts each line it passes on, holds an unfinished one until it
// ends (or Flush), and keeps a pty's \r\n.
func TestWriterRedactsLines(t *testing.T) {
	r, _ := NewRedactor(nil)
	var got bytes.Buffer
	w := r.Writer(&got)
	token := "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	for _, p := range []string{"ok\r\ntoken " + token[:10], token[10:] + " end\r\n", "last " + token} {
		if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if s := got.String(); s != "ok\r\ntoken [REDACTED] end\r\n" {
		t.Fatalf("before Flush: %q", s)
	}
	w.Flush()
	if s := got.String(); s != "ok\r\ntoken [REDACTED] end\r\nlast [REDACTED]" {
		t.Fatalf("after Flush: %q", s)
	}
}
