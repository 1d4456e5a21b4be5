package patterns

import (
	"bytes"
	"io"
	"sync"
)

// SeamBytes is how much of an over-long line Piece holds back for the next
// piece: far longer than any secret the rules are meant for (a JWT, a
// key), so one that a piece boundary would cut is whole on one side.
const SeamBytes = 64 << 10

// Piece redacts the head of line, an unfinished line too long to hold
// whole, and returns it with n, how many bytes of line it covers. The caller
// stores head, keeps line[n:] and passes it to Piece again (or to Line, once
// the line ends) with the bytes that follow. The cut is placed at least
// SeamBytes before line's end, after a byte that cannot be inside a token,
// where redacting the SeamBytes on each side apart hides exactly what
// redacting them together hides: a secret up to SeamBytes long that would
// straddle the cut is then found whole on one side. Where no such place is
// found the whole line is redacted as one (n = len(line)).
func (r *Redactor) Piece(line []byte) (head []byte, n int) {
	if len(line) <= 2*SeamBytes {
		return r.Line(line), len(line)
	}
	probe := &Redactor{rules: r.rules} // the checks must not move r's stream state
	tries := 0
	for c := len(line) - SeamBytes; c > len(line)-2*SeamBytes && tries < maxCutTries; c-- {
		if tokenByte(line[c-1]) {
			continue
		}
		tries++
		if seamSafe(probe, line[c-SeamBytes:c+SeamBytes], SeamBytes) {
			return r.Line(line[:c]), c
		}
	}
	return r.Line(line), len(line)
}

// maxCutTries bounds the places Piece checks: text built so that no cut is
// safe costs a bounded amount of work, and is then redacted whole.
const maxCutTries = 64

// tokenByte reports whether c can be inside a token: a cut after it could
// split one.
func tokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c >= 0x80
}

// seamSafe reports whether redacting w[:c] and w[c:] apart gives what
// redacting w gives: no secret in w straddles c.
func seamSafe(p *Redactor, w []byte, c int) bool {
	p.key = keyBlock{}
	if p.Clean(w) {
		return true
	}
	whole := p.Line(w)
	p.key = keyBlock{}
	h := p.Line(w[:c])
	t := p.Line(w[c:])
	return len(h)+len(t) == len(whole) && bytes.HasPrefix(whole, h) && bytes.Equal(whole[len(h):], t)
}

// maxHeld bounds the unfinished line a Writer holds back: a command that
// prints a gigabyte without a newline must not sit in memory.
const maxHeld = 1 << 20

// Writer redacts a stream on its way to w, line by line as Line does: a
// command's live output, shown on a terminal or written to a log file. A
// line is written once it ends (Flush writes a last one that never did), or
// in pieces (Piece) once it passes 1 MiB. It is safe for concurrent use.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	r    *Redactor
	held []byte
	out  []byte
}

// Writer returns a Writer to w that redacts with r's rules and a stream
// state of its own.
func (r *Redactor) Writer(w io.Writer) *Writer {
	return &Writer{w: w, r: r.Clone()}
}

// Write redacts the lines p ends and writes them; it holds back the rest.
// It reports len(p) consumed unless w fails.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out = w.out[:0]
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			w.held = append(w.held, rest...)
			for len(w.held) >= maxHeld {
				head, n := w.r.Piece(w.held)
				w.out = append(w.out, head...)
				w.held = append(w.held[:0], w.held[n:]...)
			}
			break
		}
		line := rest[:i]
		if len(w.held) > 0 {
			w.held = append(w.held, line...)
			line = w.held
		}
		w.out = w.appendLine(w.out, line)
		w.out = append(w.out, '\n')
		w.held = w.held[:0]
		rest = rest[i+1:]
	}
	if cap(w.held) > maxHeld && len(w.held) < maxHeld/4 {
		w.held = append([]byte(nil), w.held...) // a long line's buffer is not kept
	}
	return w.write(len(p))
}

// Flush redacts and writes a last line that never got its newline.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.held) == 0 {
		return nil
	}
	w.out = w.appendLine(w.out[:0], w.held)
	w.held = nil
	_, err := w.write(0)
	return err
}

// appendLine appends line redacted; a pty's \r before the newline stays.
func (w *Writer) appendLine(dst, line []byte) []byte {
	cr := bytes.HasSuffix(line, []byte{'\r'})
	if cr {
		line = line[:len(line)-1]
	}
	dst = append(dst, w.r.Line(line)...)
	if cr {
		dst = append(dst, '\r')
	}
	return dst
}

func (w *Writer) write(n int) (int, error) {
	if len(w.out) > 0 {
		if _, err := w.w.Write(w.out); err != nil {
			return 0, err
		}
	}
	if cap(w.out) > 64<<10 {
		w.out = nil
	}
	return n, nil
}
