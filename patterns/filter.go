package patterns

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Bounds of a Detail: whatever the output, a Detail holds at most
// MaxDetailLines lines and MaxDetailBytes bytes; a longer line is cut at
// MaxDetailLineBytes. The full output is in the store, not in the Result.
const (
	MaxDetailLines     = 200
	MaxDetailBytes     = 32 << 10
	MaxDetailLineBytes = 2 << 10
)

// Smart truncation keeps this many lines from the start and the end.
const (
	smartHead = 40
	smartTail = 100
)

// defaultFilterLines is what `tail` and `head` keep when lines is not set.
const defaultFilterLines = 30

// strategy names a failure filter.
type strategy string

// The failure filters of a pattern (see the package documentation).
const (
	strategyTail    strategy = "tail"
	strategyHead    strategy = "head"
	strategyGrep    strategy = "grep"
	strategyBetween strategy = "between"
)

// failFilter selects what a failing run shows (a user pattern's [failure]).
type failFilter struct {
	Strategy strategy
	Lines    int            // tail, head
	Grep     *regexp.Regexp // grep
	Start    *regexp.Regexp // between
	End      *regexp.Regexp // between
}

// collector keeps the first headMax and the last tailMax lines it is given,
// and counts the rest. Lines are stored in reused buffers, so a long
// stream costs no allocation per line once the ring is full.
type collector struct {
	headMax, tailMax int
	head             []storedLine
	ring             []storedLine
	next             int // ring write position once the ring is full
	total            int64
}

type storedLine struct {
	b       []byte
	dropped int64 // bytes cut from the line before it was stored
}

func newCollector(head, tail int) *collector {
	return &collector{headMax: head, tailMax: tail}
}

func (c *collector) add(l []byte, dropped int64) {
	c.total++
	if len(l) > MaxDetailLineBytes {
		dropped += int64(len(l) - MaxDetailLineBytes)
		l = l[:MaxDetailLineBytes]
	}
	if len(c.head) < c.headMax {
		c.head = append(c.head, storedLine{b: append([]byte(nil), l...), dropped: dropped})
		return
	}
	if c.tailMax == 0 {
		return
	}
	if len(c.ring) < c.tailMax {
		c.ring = append(c.ring, storedLine{b: append([]byte(nil), l...), dropped: dropped})
		return
	}
	s := &c.ring[c.next]
	s.b = append(s.b[:0], l...)
	s.dropped = dropped
	c.next = (c.next + 1) % c.tailMax
}

// reset forgets every line, keeping the buffers.
func (c *collector) reset() {
	c.head = c.head[:0]
	c.ring = c.ring[:0]
	c.next = 0
	c.total = 0
}

// lastBlank reports whether the last line added was empty.
func (c *collector) lastBlank() bool {
	switch {
	case c.total == 0:
		return false
	case len(c.ring) > 0:
		i := c.next - 1
		if i < 0 || len(c.ring) < c.tailMax {
			i = len(c.ring) - 1
		}
		return len(c.ring[i].b) == 0
	case len(c.head) > 0 && int64(len(c.head)) == c.total:
		return len(c.head[len(c.head)-1].b) == 0
	}
	return false
}

// tail returns the ring's lines in order.
func (c *collector) tail() []storedLine {
	if len(c.ring) < c.tailMax || c.next == 0 {
		return c.ring
	}
	out := make([]storedLine, 0, len(c.ring))
	out = append(out, c.ring[c.next:]...)
	return append(out, c.ring[:c.next]...)
}

// render joins the kept lines, with "... [N lines truncated] ..." where
// lines were left out, within MaxDetailBytes. redact is applied to each
// kept line (secrets are removed from what is shown and stored).
func (c *collector) render(redact func([]byte) []byte) string {
	head, tail := c.head, c.tail()
	skipped := c.total - int64(len(head)) - int64(len(tail))
	size := func() int {
		n := 0
		for _, l := range head {
			n += len(l.b) + 1
		}
		for _, l := range tail {
			n += len(l.b) + 1
		}
		return n
	}
	// Enforce the byte bound by dropping lines next to the gap.
	for n := size(); n > MaxDetailBytes-64 && len(head)+len(tail) > 0; {
		// Keep about twice as much of the end as of the start: errors
		// and summaries come last.
		if len(head) > 0 && 2*len(head) >= len(tail) {
			n -= len(head[len(head)-1].b) + 1
			head = head[:len(head)-1]
		} else {
			n -= len(tail[0].b) + 1
			tail = tail[1:]
		}
		skipped++
	}
	var sb strings.Builder
	line := func(l storedLine) {
		b := l.b
		if redact != nil {
			b = redact(b)
		}
		sb.Write(cutUTF8(b))
		if l.dropped > 0 {
			fmt.Fprintf(&sb, " ... [%d bytes truncated]", l.dropped)
		}
		sb.WriteByte('\n')
	}
	for _, l := range head {
		line(l)
	}
	if skipped > 0 {
		fmt.Fprintf(&sb, "... [%d lines truncated] ...\n", skipped)
	}
	for _, l := range tail {
		line(l)
	}
	return sb.String()
}

// cutUTF8 drops a partial UTF-8 character left at the end by a byte cut.
func cutUTF8(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(b); i++ {
		r, n := utf8.DecodeLastRune(b[:len(b)-i])
		if r != utf8.RuneError || n > 1 {
			return b[:len(b)-i]
		}
	}
	return b
}

// filterState applies a user failure filter to a stream of lines.
type filterState struct {
	f    failFilter
	in   bool // between: inside a START..END block
	keep *collector
}

func newFilterState(f failFilter) *filterState {
	fs := &filterState{f: f}
	n := f.Lines
	if n <= 0 {
		n = defaultFilterLines
	}
	if n >= MaxDetailLines {
		n = MaxDetailLines - 1 // room for the truncation marker
	}
	switch f.Strategy {
	case strategyTail:
		fs.keep = newCollector(0, n)
	case strategyHead:
		fs.keep = newCollector(n, 0)
	default: // grep, between: smart truncation of what they select
		fs.keep = newCollector(smartHead, smartTail)
	}
	return fs
}

func (fs *filterState) line(l []byte, dropped int64) {
	switch fs.f.Strategy {
	case strategyGrep:
		if !fs.f.Grep.Match(l) {
			return
		}
	case strategyBetween:
		if !fs.in {
			if !fs.f.Start.Match(l) {
				return
			}
			fs.in = true
			fs.keep.add(l, dropped)
			return // a line matching both starts a block; END is looked for after it
		}
		if fs.f.End.Match(l) {
			fs.in = false
		}
	}
	fs.keep.add(l, dropped)
}

// newSmart is the truncation used when no filter applies.
func newSmart() *collector { return newCollector(smartHead, smartTail) }
