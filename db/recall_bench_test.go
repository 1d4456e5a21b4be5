package db

import (
	"github.com/flowdeck/flowdeck/model"

	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sahilm/fuzzy"
)

// recallQueries are varied: exact words, abbreviations, paths, rare and
// common letters, mixed case.
var recallQueries = []string{
	"TestLogin", "fail", "panic", "timeout", "authsvc", "gohttp", "nil pointer", "ok pkg",
	"deadline", "FAIL", "tsthndlr", "conn refused", "warn", "x/net", "main.go:42", "retry",
	"db lock", "expected 3", "goroutine", "e",
}

// logLine makes a plausible build or test log line (about 46 bytes average).
func logLine(rng *rand.Rand, i int) string {
	pkgs := []string{"pkg/auth", "pkg/db", "internal/httpx", "cmd/server", "golang.org/x/net/http2", "pkg/ui/panes"}
	tests := []string{"TestLogin", "TestHandler", "TestRetry", "TestLock", "TestParse", "TestWidget"}
	switch rng.IntN(10) {
	case 0:
		return fmt.Sprintf("--- FAIL: %s/case_%d (0.%02ds)", tests[rng.IntN(len(tests))], i%97, rng.IntN(100))
	case 1:
		return fmt.Sprintf("ok  \tgithub.com/acme/app/%s\t%d.%03ds", pkgs[rng.IntN(len(pkgs))], rng.IntN(9), rng.IntN(1000))
	case 2:
		return fmt.Sprintf("    main.go:%d: expected %d, got %d", rng.IntN(400), rng.IntN(10), rng.IntN(10))
	case 3:
		return fmt.Sprintf("=== RUN   %s", tests[rng.IntN(len(tests))])
	case 4:
		return fmt.Sprintf("2026/11/21 12:%02d:%02d WARN retry %d of 5: connection refused", rng.IntN(60), rng.IntN(60), rng.IntN(5))
	case 5:
		return fmt.Sprintf("goroutine %d [running]:", rng.IntN(5000))
	case 6:
		return ""
	case 7:
		return fmt.Sprintf("\t/home/ci/src/%s/file_%d.go:%d +0x%x", pkgs[rng.IntN(len(pkgs))], rng.IntN(50), rng.IntN(900), rng.IntN(4096))
	case 8:
		return fmt.Sprintf("panic: runtime error: invalid memory address or nil pointer dereference [%d]", i%13)
	}
	return fmt.Sprintf("INFO request id=%08x took %dms status=%d", rng.Uint32(), rng.IntN(900), 200+rng.IntN(4)*100)
}

// seedRecall stores lines in runs of equal size and returns all lines in
// recall's scan order (newest run first).
func seedRecall(tb testing.TB, st *Store, runs, perRun int) []string {
	rng := rand.New(rand.NewPCG(7, 8))
	var byRun [][]string
	for r := range runs {
		w, err := st.StartRun(model.RunRecord{Argv: []string{"go", "test", fmt.Sprint(r)}, Start: time.Now()})
		if err != nil {
			tb.Fatal(err)
		}
		lines := make([]string, perRun)
		for i := range lines {
			lines[i] = logLine(rng, i)
			writeRaw(w, []byte(lines[i]+"\n"))
			indexLine(w, lines[i])
		}
		if _, err := w.Finish(model.RunRecord{Argv: []string{"go", "test", fmt.Sprint(r)}, Outcome: "exited"}, 0); err != nil {
			tb.Fatal(err)
		}
		byRun = append(byRun, lines)
	}
	var all []string
	for r := len(byRun) - 1; r >= 0; r-- {
		all = append(all, byRun[r]...)
	}
	return all
}

// BenchmarkRecall1M: 1,000,000 indexed lines in 50 runs, 20 queries, top 50.
// Target: median under 40 ms, at least 5x faster than fuzzy.Find over all
// lines, with the same top results. Reports median, worst and the speedup.
func BenchmarkRecall1M(b *testing.B) {
	st, err := Open(b.TempDir()+"/flowdeck.db", Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	all := seedRecall(b, st, 50, 20_000)

	var base []time.Duration
	for _, q := range recallQueries {
		start := time.Now()
		want := fuzzy.Find(q, all)
		base = append(base, time.Since(start))
		hits, err := st.Recall(model.RecallQuery{Query: q, Limit: 50})
		if err != nil {
			b.Fatal(err)
		}
		for i := range min(50, len(want)) {
			if hits[i].Text != want[i].Str || hits[i].Score != want[i].Score {
				b.Fatalf("%q: hit %d = %q, fuzzy.Find = %q", q, i, hits[i].Text, want[i].Str)
			}
		}
	}
	var times []time.Duration
	b.ResetTimer()
	for b.Loop() {
		for _, q := range recallQueries {
			start := time.Now()
			if _, err := st.Recall(model.RecallQuery{Query: q, Limit: 50}); err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(start))
		}
	}
	b.StopTimer()
	slices.Sort(times)
	slices.Sort(base)
	med := times[len(times)/2]
	b.ReportMetric(ms(med), "median-ms")
	b.ReportMetric(ms(times[len(times)-1]), "worst-ms")
	b.ReportMetric(ms(base[len(base)/2]), "fuzzyfind-median-ms")
	b.ReportMetric(float64(base[len(base)/2])/float64(med), "speedup")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func TestRecallQueriesMatchFuzzyFindOnLogs(t *testing.T) {
	st := newStore(t)
	all := seedRecall(t, st, 5, 4000)
	for i, q := range recallQueries {
		// Half the queries give pages back as they scan, as the cockpit does:
		// the results must not depend on it.
		hits, err := st.Recall(model.RecallQuery{Query: q, Limit: 50, LowMemory: i%2 == 1})
		if err != nil {
			t.Fatal(err)
		}
		want := fuzzy.Find(q, all)
		if len(hits) != min(50, len(want)) {
			t.Fatalf("%q: %d hits, want %d", q, len(hits), min(50, len(want)))
		}
		for i := range hits {
			if hits[i].Text != want[i].Str {
				t.Fatalf("%q: hit %d = %q, fuzzy.Find = %q", q, i, hits[i].Text, want[i].Str)
			}
			if !strings.EqualFold(string(hits[i].Text[hits[i].Matched[0]]), string(q[0])) && q[0] < 128 {
				t.Fatalf("%q: first matched byte of %q is %q", q, hits[i].Text, hits[i].Text[hits[i].Matched[0]])
			}
		}
	}
}
