package overssh

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/fleet"
	"github.com/flowdeck/flowdeck/internal/sshtest"
)

// fleetHelperEnv makes the test binary a process that holds only a fleet:
// it opens the entries in the JSON file the variable names, says
// "reachable" once every row is, and closes the fleet when its stdin
// closes. The benchmarks time it and read its memory from outside.
const fleetHelperEnv = "FLOWDECK_OVERSSH_FLEET"

// serveFleet is the helper process's main.
func serveFleet(path string) int {
	raw, err := os.ReadFile(path)
	var entries []fleet.Entry
	if err == nil {
		err = json.Unmarshal(raw, &entries)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "fleet helper: %s: %v\n", path, err)
		return 1
	}
	f := fleet.Open(entries, fleet.Options{Version: "bench", Origin: origin})
	defer f.Close()
	timer := time.NewTimer(5 * time.Minute) // a backstop: the parent reports it
	// Rows that failed on the way (a transport that timed out while the
	// machine was busy, say), each counted once, and why.
	failed := map[string]string{}
	for {
		st := f.Statuses()
		for _, s := range st {
			if s.Reach == fleet.Unreachable && failed[s.Name] == "" {
				failed[s.Name] = s.Err
			}
		}
		if allReachable(st) {
			break
		}
		select {
		case <-f.Changed():
		case <-timer.C:
			fmt.Fprintf(os.Stderr, "fleet helper: not all reachable within 5 minutes:\n%s", rows(f.Statuses(), nil))
			return 1
		}
	}
	for name, why := range failed {
		fmt.Fprintf(os.Stderr, "fleet helper: %s was unreachable on the way: %s\n", name, why)
	}
	fmt.Printf("reachable %d\n", len(failed))
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// opened is one fleet process's measure: from its start until every row
// was reachable, how many rows failed on the way, and its memory then
// (its own, and its transports', the ssh clients it runs) as proportional
// set size: shared pages divided among the processes that map them, so
// that fifty ssh clients do not count their libraries fifty times.
type opened struct {
	reachable      time.Duration
	failed         int
	pss, transport int64 // bytes
}

// openFleet runs the helper on entries and measures it.
func openFleet(b *testing.B, entries []fleet.Entry) opened {
	b.Helper()
	path := filepath.Join(b.TempDir(), "entries.json")
	raw, _ := json.Marshal(entries)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fleetHelperEnv+"="+path)
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	line, rerr := bufio.NewReader(stdout).ReadString('\n')
	o := opened{reachable: time.Since(start)}
	if _, err := fmt.Sscanf(line, "reachable %d\n", &o.failed); err != nil {
		b.Fatalf("the fleet of %d did not become reachable: %q (%v)", len(entries), line, rerr)
	}
	o.pss, o.transport = treePSS(cmd.Process.Pid)
	return o
}

// pss is a process's proportional set size, 0 if it is gone.
func pss(pid int) int64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	for l := range strings.SplitSeq(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, "Pss:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// benchProjects are n projects like newProject's with a review waiting
// (feature a validated): one made by the real CLI, copied n-1 times.
func benchProjects(b *testing.B, n int) []string {
	b.Helper()
	bin := flowdeckBin(b)
	first := newProject(b, bin, "bench goal")
	raiseReview(b, bin, first, "a")
	dirs := []string{first}
	for range n - 1 {
		d := b.TempDir()
		if err := os.CopyFS(d, os.DirFS(first)); err != nil {
			b.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	return dirs
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func mb(n int64) float64         { return float64(n) / (1 << 20) }

// benchOpen measures a fleet process opening one project and opening
// all of them, interleaved (so load on the machine hits both alike), and
// reports the medians and the ratios.
func benchOpen(b *testing.B, one []fleet.Entry, all []fleet.Entry) {
	for b.Loop() {
		var t1, tn []time.Duration
		var o1, on opened
		failed := 0
		for range 5 {
			o1 = openFleet(b, one)
			on = openFleet(b, all)
			t1, tn = append(t1, o1.reachable), append(tn, on.reachable)
			failed += o1.failed + on.failed
		}
		n := strconv.Itoa(len(all))
		b.ReportMetric(ms(median(t1)), "one-reachable-ms")
		b.ReportMetric(ms(median(tn)), n+"-reachable-ms")
		b.ReportMetric(float64(median(tn))/float64(median(t1)), "reachable-ratio")
		b.ReportMetric(mb(o1.pss), "one-pss-MB")
		b.ReportMetric(mb(on.pss), n+"-pss-MB")
		b.ReportMetric(float64(on.pss)/float64(o1.pss), "pss-ratio")
		if on.transport > 0 {
			b.ReportMetric(mb(on.transport), n+"-transports-pss-MB")
		}
		b.ReportMetric(float64(failed), "failed-on-the-way")
	}
}

// BenchmarkFleetOpenLocal: a process holding a fleet of 50 local
// projects, from its start until every row is reachable, and its memory
// then, against the same process with one of them.
func BenchmarkFleetOpenLocal(b *testing.B) {
	dirs := benchProjects(b, 50)
	var all []fleet.Entry
	for i, d := range dirs {
		all = append(all, fleet.Entry{Name: fmt.Sprintf("p%02d", i), Dir: d})
	}
	benchOpen(b, all[:1], all)
}

// BenchmarkFleetOpenRemote: the same over the SSH server: each project a
// transport `ssh -p PORT 127.0.0.1 flowdeck --dir D mcp` (on this machine,
// so the remote side's work shares its cores).
func BenchmarkFleetOpenRemote(b *testing.B) {
	bin := flowdeckBin(b)
	srv := sshtest.Start(b, "XDG_CONFIG_HOME="+b.TempDir())
	dirs := benchProjects(b, remoteN())
	var all []fleet.Entry
	for i, d := range dirs {
		all = append(all, fleet.Entry{Name: fmt.Sprintf("r%02d", i), Command: srv.Command(bin, "--dir", d, "mcp")})
	}
	benchOpen(b, all[:1], all)
}

// remoteN is how many remote projects the remote benchmarks hold:
// $FLOWDECK_BENCH_REMOTE, else 50.
func remoteN() int {
	if n, err := strconv.Atoi(os.Getenv("FLOWDECK_BENCH_REMOTE")); err == nil && n > 0 {
		return n
	}
	return 50
}
