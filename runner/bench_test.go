package runner

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// BenchmarkRunTrueOverhead: Run of `true` against exec.Command("true").Run,
// alternating, medians reported (target: Run ≤ exec + 10 ms).
func BenchmarkRunTrueOverhead(b *testing.B) {
	for _, bc := range []struct {
		name string
		spec Spec
	}{
		{"auto", Spec{}},
		{"fallback", Spec{ForceFallback: true}},
		{"limits", Spec{Limits: Limits{MemoryBytes: 1 << 30, Pids: 1000, CPU: 1}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var runs, execs []time.Duration
			var mech string
			for b.Loop() {
				t0 := time.Now()
				if err := exec.Command("true").Run(); err != nil {
					b.Fatal(err)
				}
				execs = append(execs, time.Since(t0))
				spec := bc.spec
				spec.Argv = []string{"true"}
				t0 = time.Now()
				res, err := Run(context.Background(), spec)
				if err != nil || res.ExitCode != 0 {
					b.Fatal(res, err)
				}
				runs = append(runs, time.Since(t0))
				mech = res.Isolation.Mechanism
			}
			r, e := median(runs), median(execs)
			b.ReportMetric(ms(r), "run-ms")
			b.ReportMetric(ms(e), "exec-ms")
			b.ReportMetric(ms(r-e), "overhead-ms")
			b.Logf("%s: mechanism %s, median Run %s, exec %s over %d", bc.name, mech, r, e, len(runs))
		})
	}
}

// BenchmarkPtyThroughput: `cat` of a 200 MB file through Run (output
// discarded) against a minimal raw-mode pty read loop of the same cat
// (target: Run ≥ 80% of the minimal loop). The two alternate in order each
// round and medians are reported: the machine is shared, and a neighbour's
// burst would otherwise land on one side only.
func BenchmarkPtyThroughput(b *testing.B) {
	file := bigFile(b)
	fi, _ := os.Stat(file)
	mb := float64(fi.Size()) / 1e6
	minimal := func() {
		if n, err := minimalPtyCat(file); err != nil || n != fi.Size() {
			b.Fatalf("minimal loop: %d bytes, %v", n, err)
		}
	}
	viaRun := func() {
		res, err := Run(context.Background(), Spec{Argv: []string{"cat", file}})
		if err != nil || res.ExitCode != 0 || res.Bytes != fi.Size() {
			b.Fatalf("Run: %+v, %v", res, err)
		}
	}
	var minRates, runRates []float64
	round := 0
	for b.Loop() {
		for k := range 2 {
			t0 := time.Now()
			if (round+k)%2 == 0 {
				minimal()
				minRates = append(minRates, mb/time.Since(t0).Seconds())
			} else {
				viaRun()
				runRates = append(runRates, mb/time.Since(t0).Seconds())
			}
		}
		round++
	}
	minMBs, runMBs := medianF(minRates), medianF(runRates)
	b.ReportMetric(minMBs, "minimal-MB/s")
	b.ReportMetric(runMBs, "run-MB/s")
	b.ReportMetric(runMBs/minMBs*100, "run-%-of-minimal")
}

// minimalPtyCat is the reference: a raw-mode pty, one blocking read loop.
func minimalPtyCat(file string) (int64, error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return 0, err
	}
	defer ptmx.Close()
	t, err := unix.IoctlGetTermios(int(tty.Fd()), ioctlGetTermios)
	if err != nil {
		return 0, err
	}
	// cfmakeraw
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	if err := unix.IoctlSetTermios(int(tty.Fd()), ioctlSetTermios, t); err != nil {
		return 0, err
	}
	cmd := exec.Command("cat", file)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	tty.Close()
	buf := make([]byte, 64<<10)
	var total int64
	for {
		n, err := ptmx.Read(buf)
		total += int64(n)
		if err != nil {
			if errors.Is(err, syscall.EIO) || errors.Is(err, io.EOF) {
				break
			}
			return total, err
		}
	}
	return total, cmd.Wait()
}

var (
	bigOnce sync.Once
	bigPath string
	bigErr  error
)

// bigFile is a 200 MB file of log-like lines, made once per test binary.
func bigFile(b *testing.B) string {
	bigOnce.Do(func() {
		dir, err := os.MkdirTemp("", "runner-bench")
		if err != nil {
			bigErr = err
			return
		}
		cleanups = append(cleanups, func() { os.RemoveAll(dir) })
		bigPath = filepath.Join(dir, "200MB")
		line := []byte("2026-01-01T00:00:00Z INFO building package flowdeck/runner: compiling 42 files, cache hit ratio 0.93\n")
		chunk := make([]byte, 0, 1<<20)
		for len(chunk)+len(line) <= cap(chunk) {
			chunk = append(chunk, line...)
		}
		f, err := os.Create(bigPath)
		if err != nil {
			bigErr = err
			return
		}
		defer f.Close()
		for written := 0; written < 200e6; written += len(chunk) {
			if _, err := f.Write(chunk); err != nil {
				bigErr = err
				return
			}
		}
	})
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	return bigPath
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianF(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
