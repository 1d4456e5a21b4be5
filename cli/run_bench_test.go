package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
)

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func timeCmd(b *testing.B, name string, args ...string) time.Duration {
	start := time.Now()
	cmd := exec.Command(name, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return time.Since(start)
}

// BenchmarkRunOverhead: `flowdeck run -- true` against `true`, 20 of each,
// interleaved. Target: at most 10 ms more (median).
func BenchmarkRunOverhead(b *testing.B) {
	dir := b.TempDir()
	truePath, _ := exec.LookPath("true")
	for b.Loop() {
		var plain, flow []time.Duration
		for range 20 {
			plain = append(plain, timeCmd(b, truePath))
			flow = append(flow, timeCmd(b, binary, "--dir", dir, "run", "--quiet", "--", "true"))
		}
		b.ReportMetric(ms(median(plain)), "true-ms")
		b.ReportMetric(ms(median(flow)), "flowdeck-run-ms")
		b.ReportMetric(ms(median(flow)-median(plain)), "overhead-ms")
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// rawPtyCat is the baseline: the least a Go program can do to read cat's
// output through a pty in raw mode.
func rawPtyCat(b *testing.B, path string) int64 {
	cmd := exec.Command("cat", path)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 120, Rows: 40})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := term.MakeRaw(int(f.Fd())); err != nil {
		b.Fatal(err)
	}
	n, _ := io.CopyBuffer(io.Discard, f, make([]byte, 64<<10)) // ends with EIO
	cmd.Wait()
	f.Close()
	return n
}

// BenchmarkRunThroughput: `flowdeck run --quiet -- cat FILE` on 200 MB
// against rawPtyCat of the same file, alternating, one pair per iteration.
// Reports the medians and their ratio. Target: at least 80%.
func BenchmarkRunThroughput(b *testing.B) {
	dir := b.TempDir()
	file := filepath.Join(dir, "big.log")
	writeLog(b, file, 200<<20)
	var base, flow []float64
	for i := 0; b.Loop(); i++ {
		project := filepath.Join(dir, fmt.Sprint("p", i)) // a fresh project: no retention work
		os.Mkdir(project, 0o755)
		start := time.Now()
		n := rawPtyCat(b, file)
		base = append(base, float64(n)/time.Since(start).Seconds()/1e6)
		d := timeCmd(b, binary, "--dir", project, "run", "--quiet", "--", "cat", file)
		flow = append(flow, float64(200<<20)/d.Seconds()/1e6)
	}
	slices.Sort(base)
	slices.Sort(flow)
	mb, mf := base[len(base)/2], flow[len(flow)/2]
	b.ReportMetric(mb, "rawpty-MB/s")
	b.ReportMetric(mf, "flowdeck-MB/s")
	b.ReportMetric(mf/mb*100, "percent")
}

// writeLog writes a build-log-like file of about size bytes.
func writeLog(b *testing.B, path string, size int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i, n := 0, 0; n < size; i++ {
		line := fmt.Sprintf("=== RUN   TestHandler/case_%d\n--- PASS: TestHandler/case_%d (0.%02ds)\n\x1b[32mok\x1b[0m  \tgithub.com/acme/app/pkg/%d\t0.%03ds\n", i, i, i%100, i%40, i%1000)
		w.WriteString(line)
		n += len(line)
	}
	w.Flush()
	f.Close()
}

// BenchmarkRunMemory streams 1 GB through `flowdeck run --quiet` into a
// fresh project and reports flowdeck's peak RSS (the worst iteration).
// Target: under 100 MB.
func BenchmarkRunMemory(b *testing.B) {
	dir := b.TempDir()
	var worst float64
	for i := 0; b.Loop(); i++ {
		project := filepath.Join(dir, fmt.Sprint("p", i))
		os.Mkdir(project, 0o755)
		cmd := exec.Command(binary, "--dir", project, "run", "--quiet", "--", "sh", "-c",
			"yes 'building target //pkg/server:server_test (1234 of 9999) [cached]' | head -c 1073741824")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		// flowdeck's own peak (VmHWM), not ru_maxrss: a vforked child's
		// counts this benchmark binary too.
		peak := watchPeakRSS(cmd.Process.Pid)
		if err := cmd.Wait(); err != nil {
			b.Fatalf("%v\n%s", err, out.Bytes())
		}
		worst = max(worst, float64(peak())/(1<<20))
		b.ReportMetric(1024/time.Since(start).Seconds(), "MB/s")
		os.RemoveAll(project)
	}
	b.ReportMetric(worst, "peak-rss-MB")
}

// BenchmarkRecallProcess: the whole `flowdeck recall QUERY` process on a
// project with 1,000,000 indexed lines in 50 runs, against `fzf --filter`
// over the same lines in a file.
func BenchmarkRecallProcess(b *testing.B) {
	dir := b.TempDir()
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	var all []string
	for r := range 50 {
		w, err := st.StartRun(model.RunRecord{Argv: []string{"go", "test", fmt.Sprint(r)}, Start: time.Now()})
		if err != nil {
			b.Fatal(err)
		}
		for i := range 20_000 {
			line := fmt.Sprintf("run %d: --- FAIL: TestHandler/case_%d (0.%02ds) pkg/auth/file_%d.go:%d", r, i, i%100, i%50, i%400)
			if i%3 == 0 {
				line = fmt.Sprintf("2026/11/21 WARN retry %d of 5: connection refused id=%08x", i%5, i*2654435761)
			}
			writeRaw(w, []byte(line+"\n"))
			indexLine(w, line)
			all = append(all, line)
		}
		if _, err := w.Finish(model.RunRecord{Argv: []string{"go", "test", fmt.Sprint(r)}, Outcome: "exited"}, 0); err != nil {
			b.Fatal(err)
		}
	}
	lines := filepath.Join(dir, "lines.txt")
	os.WriteFile(lines, []byte(strings.Join(all, "\n")+"\n"), 0o644)
	fzf, fzfErr := exec.LookPath("fzf")
	queries := []string{"TestHandler", "conn refused", "authfile", "retry 3", "case_1999"}
	for b.Loop() {
		var ours, theirs []time.Duration
		for _, q := range queries {
			ours = append(ours, timeCmd(b, binary, "--dir", dir, "recall", "--limit", "50", q))
			if fzfErr == nil {
				start := time.Now()
				cmd := exec.Command(fzf, "--filter", q)
				in, _ := os.Open(lines)
				cmd.Stdin = in
				cmd.Stdout = io.Discard
				cmd.Run()
				in.Close()
				theirs = append(theirs, time.Since(start))
			}
		}
		b.ReportMetric(ms(median(ours)), "flowdeck-recall-ms")
		if len(theirs) > 0 {
			b.ReportMetric(ms(median(theirs)), "fzf-filter-ms")
		}
	}
}
