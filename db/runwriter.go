package db

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

// Chunk sizes: output chunks are compressed separately so a reader can seek;
// index chunks stay uncompressed so recall scans them straight from the mmap.
const (
	maxOutputChunk = 4 << 20
	maxIndexChunk  = 256 << 10
	// MaxIndexLine bounds one indexed line; the raw output keeps all of it.
	MaxIndexLine = 4096
	// MaxIndexBytes bounds the indexed text of one run.
	MaxIndexBytes = 64 << 20
	// flushEvery is how often a running command's output is committed, so
	// that other processes see it within 250 ms.
	flushEvery = 100 * time.Millisecond
	// flushAt commits early when this much is waiting, so a flood of output
	// goes out in small transactions instead of piling up for 100 ms.
	flushAt = 4 << 20
	// maxPending applies back-pressure when the store falls behind.
	maxPending = 16 << 20
)

var (
	encoderOnce sync.Once
	encoder     *zstd.Encoder
	decoder     *zstd.Decoder
)

func codecs() (*zstd.Encoder, *zstd.Decoder) {
	encoderOnce.Do(func() {
		encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		decoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	})
	return encoder, decoder
}

// RunWriter streams one run's output into the store. Append takes the raw
// bytes (already redacted) and the lines of text for recall. A background
// loop commits what arrived every 100 ms; Finish commits the rest and the
// final record.
type RunWriter struct {
	st *Store

	flushMu   sync.Mutex // one flush at a time, so records commit in order
	mu        sync.Mutex
	cond      *sync.Cond
	rec       model.RunRecord
	raw       []byte
	idx       []byte
	idxFirst  int64 // line number of the first line in idx
	rawOffset int64 // offset of raw[0] in the whole output
	pending   int
	retain    int64
	maxIndex  int64
	spare     [][]byte // flushed raw buffers, for reuse
	idxSpare  [][]byte // flushed index buffers, for reuse
	zbuf      []byte   // compressed chunks of the last flush, for reuse
	err       error
	closed    bool
	lock      *runLock // held while the run runs: see runlock.go
	began     time.Time

	done chan struct{}
	kick chan struct{}
}

// StartRun stores rec as running and returns a writer for its output. The
// writer holds the run's liveness lock until Finish: if this process dies
// first, the next one to list the runs marks it interrupted.
func (s *Store) StartRun(rec model.RunRecord) (*RunWriter, error) {
	if rec.ID == "" {
		rec.ID = NewRunID(rec.Start)
	}
	rec.Outcome = model.RunRunning
	lock, err := s.lockRun(rec.ID)
	if err != nil {
		return nil, err
	}
	err = s.update(func(tx *bolt.Tx) error {
		if rec.Session == "" {
			rec.Session = string(tx.Bucket(bucketMeta).Get(keyActive))
		}
		if old, err := getRun(tx, rec.ID); err != nil || old != nil {
			return cmp.Or(err, fmt.Errorf("run %s exists already", rec.ID))
		}
		return putRun(tx, &rec)
	})
	if err != nil {
		s.releaseRun(rec.ID, lock)
		return nil, err
	}
	w := &RunWriter{st: s, rec: rec, done: make(chan struct{}), kick: make(chan struct{}, 1), maxIndex: MaxIndexBytes, lock: lock, began: time.Now()}
	w.cond = sync.NewCond(&w.mu)
	go w.loop()
	return w, nil
}

// ID is the run's id.
func (w *RunWriter) ID() string { return w.rec.ID }

// Session is the session that was active when the run started.
func (w *RunWriter) Session() string { return w.rec.Session }

// waitRoom blocks while too much output waits for the store (back-pressure
// on the command) and returns the store's error, if any. Called with mu held.
func (w *RunWriter) waitRoom() error {
	for w.pending > maxPending && w.err == nil {
		w.cond.Wait()
	}
	return w.err
}

// Append adds a batch: raw output, and text holding the next lines of the
// index, each ended by a newline (at most MaxIndexLine bytes each). One call
// per batch keeps a flood of short lines from paying for a lock per line.
// Past MaxIndexBytes a run's lines are counted but no longer indexed: the
// index costs about twice the text, and a flood of output must not fill the
// disk three times over. The raw output is always kept whole.
func (w *RunWriter) Append(raw, text []byte, lines int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.waitRoom(); err != nil {
		return err
	}
	w.appendRaw(raw)
	w.rec.Lines += int64(lines)
	if room := w.maxIndex - w.rec.IndexedBytes; int64(len(text)) > room {
		// Keep the whole lines that fit in the index budget.
		text = text[:bytes.LastIndexByte(text[:max(room, 0)], '\n')+1]
		w.rec.IndexTruncated = true
	}
	if len(text) > 0 {
		if w.idx == nil {
			w.idx = w.take(&w.idxSpare)
		}
		w.idx = append(w.idx, text...)
		w.rec.IndexedBytes += int64(len(text))
		w.pending += len(text)
		w.maybeKick()
	}
	return nil
}

// IndexFull reports whether the run's index reached its budget, so that a
// writer can stop preparing lines for it.
func (w *RunWriter) IndexFull() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rec.IndexTruncated
}

func (w *RunWriter) appendRaw(p []byte) {
	if w.raw == nil {
		// Reuse a buffer an earlier flush gave back, so a flood of output
		// does not allocate and grow a new slice for every commit.
		w.raw = w.take(&w.spare)
	}
	w.raw = append(w.raw, p...)
	w.rec.Bytes += int64(len(p))
	w.pending += len(p)
	w.maybeKick()
}

// Buffers kept for reuse: one is being filled while another is committed.
const spareBuffers = 2

// take returns a reused empty buffer from pool, or a new one sized for a
// commit's worth of output. Called with mu held.
func (w *RunWriter) take(pool *[][]byte) []byte {
	if n := len(*pool); n > 0 {
		b := (*pool)[n-1]
		*pool = (*pool)[:n-1]
		return b[:0]
	}
	return make([]byte, 0, flushAt+flushAt/4)
}

// give returns a committed buffer to pool. Called with mu held.
func (w *RunWriter) give(pool *[][]byte, b []byte) {
	if cap(b) > 0 && cap(b) <= 2*maxOutputChunk && len(*pool) < spareBuffers {
		*pool = append(*pool, b)
	}
}

// maybeKick asks the flush loop for an early commit. Called with mu held.
func (w *RunWriter) maybeKick() {
	if len(w.raw)+len(w.idx) >= flushAt {
		select {
		case w.kick <- struct{}{}:
		default:
		}
	}
}

func (w *RunWriter) loop() {
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			w.flush(false)
		case <-w.kick:
			w.flush(false)
		case <-w.done:
			return
		}
	}
}

// flush commits the pending output. final also commits rec as it is.
func (w *RunWriter) flush(final bool) error {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.mu.Lock()
	if !final && !w.closed {
		// How long it has run so far: what an interrupted run keeps.
		w.rec.Duration = time.Since(w.began)
	}
	raw, idx, first, off := w.raw, w.idx, w.idxFirst, w.rawOffset
	rec := w.rec
	if len(raw) == 0 && len(idx) == 0 && !final {
		w.mu.Unlock()
		return nil
	}
	w.raw, w.idx = nil, nil
	w.rawOffset += int64(len(raw))
	w.idxFirst += int64(bytes.Count(idx, []byte{'\n'}))
	w.mu.Unlock()

	chunks := w.compress(raw)
	err := w.st.update(func(tx *bolt.Tx) error {
		return w.putBatch(tx, &rec, chunks, off, idx, first, final)
	})
	w.mu.Lock()
	w.pending -= len(raw) + len(idx)
	// Give the buffers back for reuse: bbolt no longer refers to them.
	w.give(&w.spare, raw)
	w.give(&w.idxSpare, idx)
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("store output of run %s: %w", rec.ID, err)
	}
	w.cond.Broadcast()
	w.mu.Unlock()
	return err
}

// compress cuts raw into chunks of maxOutputChunk, compressed into one
// reused buffer; the chunks are cut out of it once it has stopped growing.
func (w *RunWriter) compress(raw []byte) [][]byte {
	enc, _ := codecs()
	z := w.zbuf[:0]
	var ends []int
	for start := 0; start < len(raw); start += maxOutputChunk {
		z = enc.EncodeAll(raw[min(start, len(raw)):min(start+maxOutputChunk, len(raw))], z)
		ends = append(ends, len(z))
	}
	w.zbuf = z
	chunks := make([][]byte, len(ends))
	for i, end := range ends {
		chunks[i] = z[:end:end]
		if i > 0 {
			chunks[i] = z[ends[i-1]:end:end]
		}
	}
	return chunks
}

// putBatch stores one flush: the output chunks from offset off, the index
// text from line first, and the record; final also counts the output and
// applies retention.
func (w *RunWriter) putBatch(tx *bolt.Tx, rec *model.RunRecord, chunks [][]byte, off int64, idx []byte, first int64, final bool) error {
	if len(chunks) > 0 {
		out, err := tx.Bucket(bucketOutput).CreateBucketIfNotExists([]byte(rec.ID))
		if err != nil {
			return err
		}
		out.FillPercent = 1
		for i, c := range chunks {
			if err := out.Put(u64(uint64(off)+uint64(i*maxOutputChunk)), c); err != nil {
				return err
			}
		}
	}
	if len(idx) > 0 {
		ib, err := tx.Bucket(bucketIndex).CreateBucketIfNotExists([]byte(rec.ID))
		if err != nil {
			return err
		}
		ib.FillPercent = 1
		if err := putIndexChunks(ib, idx, first); err != nil {
			return err
		}
	}
	if err := putRun(tx, rec); err != nil {
		return err
	}
	if final {
		if err := addOutputBytes(tx, rec.Bytes); err != nil {
			return err
		}
		_, err := w.st.retainTx(tx, w.retain)
		return err
	}
	return nil
}

// Finish commits the remaining output and the final record (whose Bytes and
// Lines are counted by the writer). When retain > 0, the output of the oldest
// finished runs is forgotten in the same transaction until the project keeps
// at most retain bytes.
func (w *RunWriter) Finish(final model.RunRecord, retain int64) (model.RunRecord, error) {
	w.mu.Lock()
	w.retain = retain
	if w.closed {
		w.mu.Unlock()
		return w.rec, errors.New("run already finished")
	}
	w.closed = true
	final.ID, final.Bytes, final.Lines = w.rec.ID, w.rec.Bytes, w.rec.Lines
	final.IndexedBytes, final.IndexTruncated = w.rec.IndexedBytes, w.rec.IndexTruncated
	if final.Session == "" {
		final.Session = w.rec.Session
	}
	w.rec = final
	w.mu.Unlock()
	close(w.done)
	err := w.flush(true)
	if w.lock != nil {
		// Even when the final commit failed: the record then still says
		// running, and the next process marks it interrupted.
		w.st.releaseRun(w.rec.ID, w.lock)
		w.lock = nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err == nil {
		err = w.err
	}
	return w.rec, err
}
