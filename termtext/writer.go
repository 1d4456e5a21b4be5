package termtext

import (
	"io"
	"sync"
)

// Writer sanitises a stream (a command's live output) on its way to w.
// Sequences and UTF-8 characters may be split across writes; an
// unterminated string costs no memory however long it runs. It is safe
// for concurrent use, as the *os.File it usually wraps is (a flow's log
// and its commands' live output share one).
type Writer struct {
	mu sync.Mutex
	w  io.Writer
	z  *sanitizer
}

// NewWriter returns a Writer to w keeping what o allows.
func NewWriter(w io.Writer, o Options) *Writer {
	z := newSanitizer()
	z.reset(o)
	return &Writer{w: w, z: z}
}

// Write sanitises p and writes the result; it reports len(p) consumed.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.z.out = w.z.out[:0]
	w.z.feed(p)
	if len(w.z.out) == 0 {
		return len(p), nil
	}
	if _, err := w.w.Write(w.z.out); err != nil {
		return 0, err
	}
	if cap(w.z.out) > 64<<10 {
		w.z.out = nil // one huge write must not pin its buffer
	}
	return len(p), nil
}

// Flush ends the stream: a cut UTF-8 character is written as U+FFFD and an
// unfinished sequence is dropped. The Writer can be used again afterwards.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.z.out = w.z.out[:0]
	w.z.flush()
	if len(w.z.out) == 0 {
		return nil
	}
	_, err := w.w.Write(w.z.out)
	return err
}
