package ui

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/internal/uitest"
)

// rssLine is a plausible line of build or test output (about 50 bytes).
func rssLine(rng *rand.Rand, i int) string {
	switch rng.IntN(8) {
	case 0:
		return fmt.Sprintf("--- FAIL: TestHandler/case_%d (0.%02ds)", i%97, rng.IntN(100))
	case 1:
		return fmt.Sprintf("ok  \tgithub.com/acme/app/pkg/mod%d\t%d.%03ds", rng.IntN(40), rng.IntN(9), rng.IntN(1000))
	case 2:
		return fmt.Sprintf("    main.go:%d: expected %d, got %d", rng.IntN(400), rng.IntN(10), rng.IntN(10))
	case 3:
		return fmt.Sprintf("2026/11/21 12:%02d:%02d WARN retry %d of 5: connection refused", rng.IntN(60), rng.IntN(60), rng.IntN(5))
	case 4:
		return fmt.Sprintf("\x1b[32mok\x1b[0m   step %d compiled package number %d", i, rng.IntN(900))
	case 5:
		return fmt.Sprintf("panic: runtime error: invalid memory address or nil pointer dereference [%d]", i%13)
	case 6:
		return ""
	}
	return fmt.Sprintf("INFO request id=%08x took %dms status=%d", rng.Uint32(), rng.IntN(900), 200+rng.IntN(4)*100)
}

// seedLines stores n lines of output in runs of perRun lines (the first run
// gets big lines), raw and indexed, as capture stores them: one Append per
// batch of lines.
func seedLines(tb testing.TB, st *db.Store, runs []int) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	for r, n := range runs {
		argv := []string{"go", "test", "./...", "-run", fmt.Sprint(r)}
		w, err := st.StartRun(model.RunRecord{Argv: argv, Actor: "seed", Start: t0.Add(time.Duration(r) * time.Minute)})
		if err != nil {
			tb.Fatal(err)
		}
		var raw, text []byte
		lines := 0
		for i := range n {
			l := rssLine(rng, i)
			raw = append(append(raw, l...), '\n')
			text = append(append(text, stripSGR(l)...), '\n')
			if lines++; lines == 2000 || i == n-1 {
				if err := w.Append(raw, text, lines); err != nil {
					tb.Fatal(err)
				}
				raw, text, lines = raw[:0], text[:0], 0
			}
		}
		if _, err := w.Finish(model.RunRecord{Argv: argv, Outcome: "exited", Summary: fmt.Sprintf("%d lines", n)}, 0); err != nil {
			tb.Fatal(err)
		}
	}
}

func stripSGR(s string) string {
	s = strings.ReplaceAll(s, "\x1b[32m", "")
	return strings.ReplaceAll(s, "\x1b[0m", "")
}

// BenchmarkPeakRSS1MLines seeds a project with 1,000,000 indexed lines of
// output in 50 runs (the oldest is a big one of 250,000 lines), then runs
// the cockpit headless in a child process (this test binary, see
// TestRSSChild): first frame, the recall pane with queries typed at a
// typist's pace (results on every keystroke), then the big run opened in the
// output pane and read to its end. It reports the child's peak RSS
// (VmHWM: Go heap, stacks, and the file pages recall maps in). Target:
// under 150 MB.
//
//	go test ./ui -run '^$' -bench PeakRSS -benchtime 1x
func BenchmarkPeakRSS1MLines(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, db.DBFile)
	st, err := db.Open(path, db.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	runs := []int{250_000}
	for range 49 {
		runs = append(runs, 750_000/49)
	}
	start := time.Now()
	seedLines(b, st, runs)
	fi, _ := os.Stat(path)
	b.Logf("seeded 1M lines in %v; the database is %d MB", time.Since(start).Round(time.Millisecond), fi.Size()>>20)
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRSSChild$", "-test.v")
		cmd.Env = append(os.Environ(), "FLOWDECK_RSS_DB="+path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		peak, rss := -1, -1
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 3 && f[0] == "RSS" {
				peak, _ = strconv.Atoi(f[1])
				rss, _ = strconv.Atoi(f[2])
			}
		}
		if peak < 0 {
			b.Fatalf("the child reported no RSS:\n%s", out)
		}
		b.ReportMetric(float64(peak)/1024, "peak-rss-MB")
		b.ReportMetric(float64(rss)/1024, "end-rss-MB")
		// b.Log cuts long output; the child's log is the measurement's story.
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "rss_test.go") {
				fmt.Println("    child:", strings.TrimSpace(l))
			}
		}
	}
}

// TestRSSChild is the cockpit run headless on $FLOWDECK_RSS_DB for
// BenchmarkPeakRSS1MLines; it prints "RSS <VmHWM kB> <VmRSS kB>".
func TestRSSChild(t *testing.T) {
	path := os.Getenv("FLOWDECK_RSS_DB")
	if path == "" {
		t.Skip("run by BenchmarkPeakRSS1MLines")
	}
	st, err := db.Open(path, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	hits := map[string]int{}
	loaded := false
	var outRun string
	var outLines int
	outDone := false
	filter := func(_ tea.Model, msg tea.Msg) tea.Msg {
		mu.Lock()
		defer mu.Unlock()
		switch msg := msg.(type) {
		case loadedMsg:
			loaded = true
		case recallMsg:
			hits[msg.query] = len(msg.hits)
		case outputMsg:
			if msg.run == outRun {
				outLines += len(msg.lines)
				outDone = !msg.more
			}
		}
		return msg
	}
	// Sample the split of resident memory: anonymous (heap, stacks) and
	// file pages (bbolt's memory map of the database, touched by recall).
	var peakAnon, peakFile int
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			b, _ := os.ReadFile("/proc/self/status")
			mu.Lock()
			peakAnon = max(peakAnon, statusKB(string(b), "RssAnon:"))
			peakFile = max(peakFile, statusKB(string(b), "RssFile:"))
			mu.Unlock()
		}
	}()
	m := New(testProject(st, darkConfig(), nil), Options{NoColor: true})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 48), teatest.WithProgramOptions(tea.WithFilter(filter)))
	go func() { _, _ = io.Copy(io.Discard, tm.Output()) }()
	wait := func(what string, cond func() bool) { waitLocked(t, &mu, time.Minute, what, cond) }
	wait("the first load", func() bool { return loaded })
	press := func(k tea.KeyPressMsg) { tm.Send(k); time.Sleep(40 * time.Millisecond) }
	typeText := func(s string) {
		for _, r := range s {
			press(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
	st0, _ := os.ReadFile("/proc/self/status")
	t.Logf("after the first load: VmHWM %d kB", statusKB(string(st0), "VmHWM:"))
	press(uitest.Key("ctrl+f"))
	for _, q := range []string{"fail", "e", "panic nil", "timeout", "connection refused", "mod3"} {
		typeText(q)
		wait("the hits of "+q, func() bool { _, ok := hits[q]; return ok })
		st, _ := os.ReadFile("/proc/self/status")
		mu.Lock()
		t.Logf("recall %q: %d hits; VmHWM %d kB; since the last line: anonymous %d kB, file %d kB", q, hits[q], statusKB(string(st), "VmHWM:"), peakAnon, peakFile)
		peakAnon, peakFile = 0, 0
		mu.Unlock()
		for range len([]rune(q)) {
			press(uitest.Key("backspace"))
		}
	}
	press(uitest.Key("esc"))
	// The big run is the oldest: the bottom of the runs list.
	recs, err := st.Runs(0)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	outRun = recs[len(recs)-1].ID
	mu.Unlock()
	press(uitest.Key("4"))
	press(uitest.Key("G"))
	wait("the big run's output", func() bool { return outDone })
	t.Logf("output pane: %d lines read", outLines)
	time.Sleep(200 * time.Millisecond)
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	close(stop)
	mu.Lock()
	t.Logf("output pane: sampled peaks anonymous %d kB, file %d kB", peakAnon, peakFile)
	mu.Unlock()
	status, _ := os.ReadFile("/proc/self/status")
	fmt.Printf("RSS %d %d\n", statusKB(string(status), "VmHWM:"), statusKB(string(status), "VmRSS:"))
}

// waitLocked polls cond, under mu, until it holds; after limit the test
// fails naming what it waited for. The headless children of the RSS and
// big-line tests wait on what their message filters saw.
func waitLocked(t *testing.T, mu *sync.Mutex, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); ; {
		mu.Lock()
		ok := cond()
		mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", limit, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// statusKB reads a "Name:  123 kB" field of /proc/self/status.
func statusKB(status, field string) int {
	for _, l := range strings.Split(status, "\n") {
		if strings.HasPrefix(l, field) {
			f := strings.Fields(l)
			if len(f) >= 2 {
				n, _ := strconv.Atoi(f[1])
				return n
			}
		}
	}
	return -1
}
