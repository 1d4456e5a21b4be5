package capture

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/patterns"
	"github.com/flowdeck/flowdeck/termtext"
)

// sink receives the pty's bytes. The reader's goroutine only copies them
// (and shows them live). Two workers take every buffer: one classifies, the
// other cuts lines for redaction, storage and the recall index; so reading
// the pty, classifying and storing overlap on both cores.
type sink struct {
	store    *db.RunWriter
	classify *patterns.Classifier
	redact   *patterns.Redactor
	live     io.Writer

	toClassify, toStore chan *sinkBuf
	free                chan *sinkBuf
	done                sync.WaitGroup

	mu   sync.Mutex // guards cur between Write and tick
	cur  *sinkBuf   // the buffer being filled
	stop chan struct{}

	partial []byte
	// continued is set while the rest of an over-long line is arriving.
	continued bool
	// raw, text and lines batch one buffer's lines for the store.
	raw, text, scratch, joined []byte
	lines                      int
}

// sinkBuf is a buffer shared by both workers; the last one to finish with
// it returns it to the pool.
type sinkBuf struct {
	data  []byte
	users atomic.Int32
}

const sinkBuffers, sinkBufSize = 32, 64 << 10

// sinkLinger is how long a partly filled buffer may wait for more output.
const sinkLinger = 10 * time.Millisecond

func newSink(store *db.RunWriter, c *patterns.Classifier, r *patterns.Redactor, live io.Writer) *sink {
	s := &sink{store: store, classify: c, redact: r, live: live,
		toClassify: make(chan *sinkBuf, sinkBuffers), toStore: make(chan *sinkBuf, sinkBuffers),
		free: make(chan *sinkBuf, sinkBuffers), stop: make(chan struct{})}
	for range sinkBuffers {
		s.free <- &sinkBuf{data: make([]byte, 0, sinkBufSize)}
	}
	s.done.Add(2)
	go s.worker(s.toClassify, func(b []byte) { s.classify.Write(b) }, nil)
	go s.worker(s.toStore, s.process, s.finishLines)
	go s.tick()
	return s
}

// maxLine bounds a line held in memory; a longer one is stored in pieces,
// each cut where patterns.Redactor.Piece finds no secret across the cut.
const maxLine = 1 << 20

func (s *sink) Write(p []byte) (int, error) {
	if s.live != nil {
		s.live.Write(p)
	}
	// A pty read returns a few KiB at a time; filling whole buffers before
	// handing them on keeps the per-buffer work (two hand-offs, a redaction
	// check, a store call) from dominating a flood of output.
	s.mu.Lock()
	defer s.mu.Unlock()
	for rest := p; len(rest) > 0; {
		if s.cur == nil {
			s.cur = <-s.free
			s.cur.data = s.cur.data[:0]
		}
		n := min(len(rest), cap(s.cur.data)-len(s.cur.data))
		s.cur.data = append(s.cur.data, rest[:n]...)
		rest = rest[n:]
		if len(s.cur.data) == cap(s.cur.data) {
			s.send()
		}
	}
	return len(p), nil
}

// send hands the current buffer to both workers. Called with mu held.
func (s *sink) send() {
	if s.cur == nil || len(s.cur.data) == 0 {
		return
	}
	s.cur.users.Store(2)
	s.toClassify <- s.cur
	s.toStore <- s.cur
	s.cur = nil
}

// tick hands on a partly filled buffer when output pauses, so a slow
// command's lines still reach the store (and other processes) promptly.
func (s *sink) tick() {
	t := time.NewTicker(sinkLinger)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.mu.Lock()
			s.send()
			s.mu.Unlock()
		}
	}
}

// close waits until everything written has been processed.
func (s *sink) close() {
	close(s.stop)
	s.mu.Lock()
	s.send()
	s.mu.Unlock()
	close(s.toClassify)
	close(s.toStore)
	s.done.Wait()
}

func (s *sink) worker(in chan *sinkBuf, do func([]byte), last func()) {
	defer s.done.Done()
	for buf := range in {
		do(buf.data)
		if buf.users.Add(-1) == 0 {
			s.free <- buf
		}
	}
	if last != nil {
		last()
	}
}

func (s *sink) finishLines() {
	if len(s.partial) > 0 {
		s.line(s.partial, false)
		s.partial = s.partial[:0]
	}
	s.commit()
}

func (s *sink) process(data []byte) {
	if s.fastPath(data) {
		s.commit()
		return
	}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			s.partial = append(s.partial, data...)
			for len(s.partial) >= maxLine {
				s.piece()
			}
			break
		}
		if len(s.partial) > 0 {
			s.partial = append(s.partial, data[:i]...)
			s.line(s.partial, true)
			s.partial = s.partial[:0]
		} else {
			s.line(data[:i], true)
		}
		data = data[i+1:]
	}
	s.commit()
}

// fastPath handles a buffer in which nothing can need redaction (the common
// case): the bytes up to its last newline are stored as they are, lines are
// cut only for the index, and once a run's index is full they are only
// counted. It declines buffers the slow path must see line by line.
func (s *sink) fastPath(data []byte) bool {
	last := bytes.LastIndexByte(data, '\n')
	if last < 0 || s.continued || !s.redact.Clean(data) || !s.seamClean(data) {
		return false
	}
	complete := data[:last+1]
	if s.store.IndexFull() {
		s.lines += bytes.Count(complete, []byte{'\n'})
	} else {
		for rest, first := complete, true; len(rest) > 0; first = false {
			i := bytes.IndexByte(rest, '\n')
			line := rest[:i]
			if first && len(s.partial) > 0 {
				s.joined = append(append(s.joined[:0], s.partial...), line...)
				line = s.joined
			}
			s.index(line)
			rest = rest[i+1:]
		}
	}
	// Hand the bytes to the store as they are, without another copy here.
	s.store.Append(s.partial, nil, 0)
	s.store.Append(complete, s.text, s.lines)
	s.text, s.lines = s.text[:0], 0
	s.partial = append(s.partial[:0], data[last+1:]...)
	return true
}

// seamClean reports whether the line that a pending partial line and the
// next buffer make together needs no redaction: a secret, or an escape
// sequence inside one, may straddle the two.
func (s *sink) seamClean(data []byte) bool {
	if len(s.partial) == 0 {
		return true
	}
	first := bytes.IndexByte(data, '\n')
	s.scratch = append(append(s.scratch[:0], s.partial...), data[:first]...)
	return s.redact.Clean(s.scratch)
}

// index adds one line's text to the batch for the recall index.
func (s *sink) index(line []byte) {
	text := s.plainText(line)
	if len(text) > db.MaxIndexLine {
		text = text[:db.MaxIndexLine]
	}
	s.text = append(append(s.text, text...), '\n')
	s.lines++
}

// commit hands the lines cut so far to the store in one call.
func (s *sink) commit() {
	if len(s.raw) > 0 || s.lines > 0 {
		s.store.Append(s.raw, s.text, s.lines)
		s.raw, s.text, s.lines = s.raw[:0], s.text[:0], 0
	}
}

// line stores one line, or one piece of an over-long line, and indexes the
// line's text once, from its first piece.
func (s *sink) line(raw []byte, newline bool) {
	red := s.redact.Line(raw)
	s.raw = append(s.raw, red...)
	if newline {
		s.raw = append(s.raw, '\n')
	}
	if !s.continued {
		s.index(red)
	}
	s.continued = !newline
}

// piece stores the head of the over-long partial line and keeps its tail
// (at least patterns.SeamBytes): the tail is redacted again with the bytes
// that follow, so a secret the cut would split is seen whole.
func (s *sink) piece() {
	head, n := s.redact.Piece(s.partial)
	s.raw = append(s.raw, head...)
	if !s.continued {
		s.index(head)
	}
	s.continued = true
	s.partial = append(s.partial[:0], s.partial[n:]...)
}

// plainText is the line as recall shows it: escape sequences removed,
// progress redraws (\r) resolved. Most lines have no control character and
// are used as they are; lines whose only controls are CSI sequences (colour)
// are cleaned into a scratch buffer; anything else goes to StripANSI.
func (s *sink) plainText(line []byte) []byte {
	high, plain := false, true
	for i, c := range line {
		switch {
		case c == 0x1b && i+1 < len(line) && line[i+1] == '[':
			plain = false
		case c < 0x20 && c != '\t' || c == 0x7f:
			return bytes.TrimRight(patterns.StripANSI(line), "\r")
		case c == 0xc2 && i+1 < len(line) && line[i+1] >= 0x80 && line[i+1] <= 0x9f:
			return patterns.StripANSI(line) // a C1 control in UTF-8
		case c >= 0x80:
			high = true
		}
	}
	if high && !utf8.Valid(line) {
		return patterns.StripANSI(line)
	}
	if plain {
		return line
	}
	return s.stripCSI(line)
}

// stripCSI removes escape sequences, the only controls plainText lets
// through to it, with termtext's parser (a sequence cut by the line end
// runs to it).
func (s *sink) stripCSI(line []byte) []byte {
	s.scratch = termtext.AppendStrip(s.scratch[:0], line)
	return s.scratch
}
