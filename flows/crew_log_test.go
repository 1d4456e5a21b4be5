package flows

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

// The crew's prefixed log writes whole lines, writes a last line that never
// got its newline when the run ends, and never holds more than a bounded
// line back (an agent's output is foreign: a gigabyte without a newline).
func TestPrefixedLogFlushesAndCaps(t *testing.T) {
	var out bytes.Buffer
	var mu sync.Mutex
	w := prefixed(&mu, &out, "worker-1")
	w.Write([]byte("first\nsecond wi"))
	w.Write([]byte("thout end"))
	if got := out.String(); got != "[worker-1] first\n" {
		t.Fatalf("before flush: %q", got)
	}
	flushLog(w)
	if got := out.String(); got != "[worker-1] first\n[worker-1] second without end\n" {
		t.Fatalf("after flush: %q", got)
	}
	out.Reset()
	w.Write(bytes.Repeat([]byte("x"), 5*maxPrefixedLine+10))
	lp := w.(*linePrefix)
	if len(lp.buf) > maxPrefixedLine || cap(lp.buf) > 2*maxPrefixedLine {
		t.Fatalf("held back %d bytes (cap %d)", len(lp.buf), cap(lp.buf))
	}
	if n := strings.Count(out.String(), "[worker-1] "); n != 5 {
		t.Fatalf("%d cut lines, want 5", n)
	}
	flushLog(w)
	if !strings.HasSuffix(out.String(), "[worker-1] xxxxxxxxxx\n") {
		t.Fatalf("the rest was not flushed: %q", out.String()[max(0, out.Len()-40):])
	}
}
