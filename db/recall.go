package db

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"encoding/json"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/sahilm/fuzzy"
	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

// Recall fuzzy-searches every indexed line of the selected runs and returns
// the best Limit hits, ranked exactly as fuzzy.Find would rank all lines in
// scan order (newest run first, lines in order).
//
// It is fast because it does not score every line: a line that does not
// hold the query's ASCII characters as a case-insensitive subsequence cannot
// match, and finding that costs a few IndexByte calls on the pre-lowercased
// copy of the index, straight from bbolt's memory map. The survivors are
// scored by sahilm/fuzzy in parallel and merged.
func (s *Store) Recall(q model.RecallQuery) ([]model.Hit, error) {
	if q.Limit <= 0 {
		q.Limit = 50
	}
	if q.Query == "" {
		return nil, nil
	}
	var hits []model.Hit
	err := s.view(func(tx *bolt.Tx) error {
		runs, err := recallRuns(tx, q)
		if err != nil {
			return err
		}
		var chunks []recallChunk
		var mem mapped // empty: drop does nothing
		if q.LowMemory {
			mem = mappedOf(tx)
		}
		for ri, rec := range runs {
			b := tx.Bucket(bucketIndex).Bucket([]byte(rec.ID))
			if b == nil {
				continue
			}
			c := b.Cursor()
			var folded, table []byte
			for k, v := c.First(); k != nil; k, v = c.Next() {
				if len(k) != 9 {
					continue
				}
				switch k[8] {
				case indexFolded:
					folded = v
				case indexLines:
					table = v
				case indexText:
					if len(folded) == len(v) && len(table)%lineEntry == 0 {
						chunks = append(chunks, recallChunk{run: ri, first: int(getU64(k[:8])), text: v, folded: folded, table: table})
					}
					// Walking the keys faults in pages around them; the scan
					// faults in what it reads again.
					mem.drop(v)
					mem.drop(folded)
					mem.drop(table)
					folded, table = nil, nil
				}
			}
		}
		hits = searchChunks(chunks, runs, q, mem)
		return nil
	})
	return hits, err
}

type recallChunk struct {
	run    int
	first  int
	text   []byte // valid only inside the transaction
	folded []byte
	table  []byte
}

// mapped is the file's memory map as a read transaction sees it. Recall
// reads the whole index once per query; dropping each chunk's pages from
// the resident set once it is read keeps a search over a million lines from
// adding ~100 MB to the cockpit's RSS for its duration.
type mapped struct{ lo, hi uintptr }

func mappedOf(tx *bolt.Tx) mapped {
	base := tx.DB().Info().Data
	return mapped{base, base + uintptr(tx.Size())}
}

// drop releases b's pages when b lies in the map. A value can also be a
// copy on the heap (bbolt copies an inline bucket that is not aligned),
// whose pages must not be touched.
func (m mapped) drop(b []byte) {
	if len(b) == 0 {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p >= m.lo && p+uintptr(len(b)) <= m.hi {
		dropPages(b)
	}
}

type candidate struct {
	order int64 // global scan order
	chunk int
	line  int // 0-based within the run
	str   string
}

func recallRuns(tx *bolt.Tx, q model.RecallQuery) ([]model.RunRecord, error) {
	var runs []model.RunRecord
	c := tx.Bucket(bucketRuns).Cursor()
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		if q.RunID != "" && string(k) != q.RunID {
			continue
		}
		var rec model.RunRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return nil, err
		}
		if q.Feature != "" && rec.Feature != q.Feature {
			continue
		}
		runs = append(runs, rec)
	}
	return runs, nil
}

// needles are the query's ASCII characters, lowercased: every line fuzzy
// can match holds them in order. Non-ASCII characters are left to fuzzy.
func needles(query string) []byte {
	var n []byte
	for i := 0; i < len(query); i++ {
		c := query[i]
		if c >= utf8.RuneSelf {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		n = append(n, c)
	}
	return n
}

func searchChunks(chunks []recallChunk, runs []model.RunRecord, q model.RecallQuery, mem mapped) []model.Hit {
	ndl := needles(q.Query)
	workers := min(runtime.GOMAXPROCS(0), max(1, len(chunks)))
	results := make([][]scored, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(chunks)/workers, (w+1)*len(chunks)/workers
		wg.Go(func() {
			// Candidates are scored a batch at a time into a bounded heap:
			// a one-letter query makes nearly every line a candidate, and
			// holding them all (with fuzzy's match for each) would take
			// hundreds of megabytes for a million lines.
			var cands []candidate
			top := &topK{}
			next := lo // chunks before it have had their candidates scored
			for ci := lo; ci < hi; ci++ {
				cands = scanChunk(cands, ci, chunks[ci], ndl)
				mem.drop(chunks[ci].folded)
				mem.drop(chunks[ci].table)
				if len(cands) >= scoreBatch || ci == hi-1 {
					score(top, q.Query, cands, q.Limit)
					cands = cands[:0]
					for ; next <= ci; next++ {
						mem.drop(chunks[next].text)
					}
				}
			}
			out := []scored(*top)
			sortScored(out)
			results[w] = out
		})
	}
	wg.Wait()
	var all []scored
	for _, r := range results {
		all = append(all, r...)
	}
	sortScored(all)
	if len(all) > q.Limit {
		all = all[:q.Limit]
	}
	hits := make([]model.Hit, len(all))
	for i, m := range all {
		ch := chunks[m.chunk]
		hits[i] = model.Hit{
			RunID: runs[ch.run].ID, Argv: runs[ch.run].Argv, Line: m.line + 1,
			Text: strings.Clone(m.str), Matched: m.matched, Score: m.score,
		}
	}
	return hits
}

// scanChunk appends the lines of ch that hold ndl as a subsequence. The line
// masks reject most lines before their text is looked at.
func scanChunk(out []candidate, ci int, ch recallChunk, ndl []byte) []candidate {
	var need uint64
	for _, c := range ndl {
		need |= charBit(c)
	}
	start := 0
	for line, t := 0, ch.table; len(t) >= lineEntry; line, t = line+1, t[lineEntry:] {
		mask := binary.LittleEndian.Uint64(t)
		end := int(binary.LittleEndian.Uint32(t[8:]))
		if mask&need == need && end > start && end <= len(ch.folded) && subsequence(ch.folded[start:end], ndl) {
			text := ch.text[start:end]
			out = append(out, candidate{
				order: int64(ci)<<32 | int64(line),
				chunk: ci,
				line:  ch.first + line,
				str:   unsafe.String(unsafe.SliceData(text), len(text)),
			})
		}
		start = end + 1
	}
	return out
}

func subsequence(line, ndl []byte) bool {
	for _, c := range ndl {
		i := bytes.IndexByte(line, c)
		if i < 0 {
			return false
		}
		line = line[i+1:]
	}
	return true
}

type scored struct {
	candidate
	score   int
	matched []int
}

// scoreBatch is how many candidates are scored at once.
const scoreBatch = 8192

// score ranks candidates with sahilm/fuzzy and keeps the best limit in h.
// Scores do not depend on the other candidates, and ties are broken by scan
// order, so batches give the ranking of one call over all lines.
func score(h *topK, query string, cands []candidate, limit int) {
	if len(cands) == 0 {
		return
	}
	strs := make([]string, len(cands))
	for i, c := range cands {
		strs[i] = c.str
	}
	matches := fuzzy.FindNoSort(query, strs)
	// Keep the best limit with a bounded heap: a one-letter query can match
	// a million lines, and sorting them all would cost more than scoring.
	for _, m := range matches {
		s := scored{candidate: cands[m.Index], score: m.Score, matched: m.MatchedIndexes}
		if h.Len() < limit {
			heap.Push(h, s)
		} else if better(s, (*h)[0]) {
			(*h)[0] = s
			heap.Fix(h, 0)
		}
	}
}

func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.order < b.order
}

// topK is a min-heap whose root is the worst of the kept hits.
type topK []scored

func (h topK) Len() int           { return len(h) }
func (h topK) Less(i, j int) bool { return better(h[j], h[i]) }
func (h topK) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *topK) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *topK) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// sortScored orders as fuzzy.Find does: score descending, then scan order.
func sortScored(s []scored) {
	sort.Slice(s, func(i, j int) bool { return better(s[i], s[j]) })
}
