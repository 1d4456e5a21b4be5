package overssh

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/fleet"
	"github.com/flowdeck/flowdeck/fleet/fleetconf"
	"github.com/flowdeck/flowdeck/internal/frametest"
	"github.com/flowdeck/flowdeck/internal/sshtest"
)

// BenchmarkFleetFirstFrame: `flowdeck fleet` on 50 local projects, and on
// remote ones through the SSH server ($FLOWDECK_BENCH_REMOTE, else 50),
// against the single-project cockpit (`flowdeck --dir D` on one of them),
// measured side by side under a pty as a person starts them (process start until the frame is on an emulated
// terminal's screen; see cli/firstframe_bench_test.go), five of each,
// interleaved so load on the machine hits all alike. For the fleets also the time until the header
// says every project answers, and then the memory of the process (PSS:
// shared pages divided among their users) apart from its transports'
// (the ssh clients). Metrics: the medians in ms, the ratios of first
// frames (the target: at most 2) and of memory to the cockpit's.
func BenchmarkFleetFirstFrame(b *testing.B) {
	bin := flowdeckBin(b)
	srv := sshtest.Start(b, "XDG_CONFIG_HOME="+b.TempDir())
	dirs := benchProjects(b, max(50, remoteN()))
	var local, remote []fleet.Entry
	for i, d := range dirs[:50] {
		local = append(local, fleet.Entry{Name: fmt.Sprintf("p%02d", i), Dir: d})
	}
	for i, d := range dirs[:remoteN()] {
		remote = append(remote, fleet.Entry{Name: fmt.Sprintf("r%02d", i), Command: srv.Command(bin, "--dir", d, "mcp")})
	}
	localEnv, remoteEnv := fleetEnv(b, local), fleetEnv(b, remote)
	cockpitEnv := fleetEnv(b, nil) // the same config dir, no fleet
	nl, nr := strconv.Itoa(len(local)), strconv.Itoa(len(remote))

	for b.Loop() {
		var cockpit, lf, rf, lr, rr []time.Duration
		var cm, lm, rm, rt []int64
		for range 5 {
			c := startFrame(b, cockpitEnv, screenHas("bench goal"), nil, bin, "--dir", dirs[0])
			l := startFrame(b, localEnv, screenHas(nl+" projects"), allAnswer(nl), bin, "fleet")
			r := startFrame(b, remoteEnv, screenHas(nr+" projects"), allAnswer(nr), bin, "fleet")
			cockpit, lf, rf = append(cockpit, c.first), append(lf, l.first), append(rf, r.first)
			lr, rr = append(lr, l.reachable), append(rr, r.reachable)
			cm, lm, rm, rt = append(cm, c.pss), append(lm, l.pss), append(rm, r.pss), append(rt, r.transports)
		}
		b.ReportMetric(ms(median(cockpit)), "cockpit-first-ms")
		b.ReportMetric(ms(median(lf)), "local"+nl+"-first-ms")
		b.ReportMetric(ms(median(rf)), "remote"+nr+"-first-ms")
		b.ReportMetric(float64(median(lf))/float64(median(cockpit)), "local-first-ratio")
		b.ReportMetric(float64(median(rf))/float64(median(cockpit)), "remote-first-ratio")
		b.ReportMetric(ms(median(lr)), "local"+nl+"-reachable-ms")
		b.ReportMetric(ms(median(rr)), "remote"+nr+"-reachable-ms")
		b.ReportMetric(mb(medianInt(cm)), "cockpit-pss-MB")
		b.ReportMetric(mb(medianInt(lm)), "local"+nl+"-pss-MB")
		b.ReportMetric(mb(medianInt(rm)), "remote"+nr+"-pss-MB")
		b.ReportMetric(mb(medianInt(rt)), "remote"+nr+"-transports-pss-MB")
		b.ReportMetric(float64(medianInt(lm))/float64(medianInt(cm)), "local-pss-ratio")
		b.ReportMetric(float64(medianInt(rm))/float64(medianInt(cm)), "remote-pss-ratio")
	}
}

// fleetEnv is the environment of a flowdeck whose config dir holds a
// fleet.toml of entries (none: no file).
func fleetEnv(b *testing.B, entries []fleet.Entry) []string {
	b.Helper()
	dir := b.TempDir()
	if len(entries) > 0 {
		if err := fleetconf.Save(filepath.Join(dir, "flowdeck", "fleet.toml"), entries); err != nil {
			b.Fatal(err)
		}
	}
	return append(os.Environ(), "XDG_CONFIG_HOME="+dir, "TERM=xterm-256color")
}

func medianInt(ns []int64) int64 {
	ds := make([]time.Duration, len(ns))
	for i, n := range ns {
		ds[i] = time.Duration(n)
	}
	return int64(median(ds))
}

// screenHas is a condition on the emulated screen: it shows want.
func screenHas(want string) func(string) bool {
	return func(scr string) bool { return strings.Contains(scr, want) }
}

// allAnswer: the fleet's header (the first line) counts n projects and
// none connecting or unreachable.
func allAnswer(n string) func(string) bool {
	return func(scr string) bool {
		head, _, _ := strings.Cut(scr, "\n")
		return strings.Contains(head, n+" projects") && !strings.Contains(head, "connecting") &&
			!strings.Contains(head, "unreachable") && !strings.Contains(head, "incompatible")
	}
}

// frame is one start's measure.
type frame struct {
	first, reachable time.Duration
	// pss is the program's processes' memory (its transports apart) once
	// it is done (reachable, or its first frame); transports the ssh
	// clients'.
	pss, transports int64
}

// startFrame starts argv with env on an emulated terminal and returns the
// time until first holds of the screen, then (when reachable is given)
// until reachable holds, and the memory then; then it kills the program's
// session.
func startFrame(b *testing.B, env []string, first, reachable func(string) bool, argv ...string) frame {
	b.Helper()
	t := frametest.Start(b, env, argv...)
	defer t.Close()
	var out frame
	out.first = t.Until("the first frame", first)
	if reachable != nil {
		out.reachable = t.Until("every project answering", reachable)
	}
	out.pss, out.transports = treePSS(t.Pid())
	return out
}

// treePSS is the memory of pid and every process below it: the ssh
// clients' apart.
func treePSS(pid int) (own, ssh int64) {
	kids := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(raw), ')')
		if f := strings.Fields(string(raw[i+1:])); len(f) > 1 {
			pp, _ := strconv.Atoi(f[1])
			kids[pp] = append(kids[pp], p)
		}
	}
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		p := queue[0]
		queue = append(queue, kids[p]...)
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/comm")
		if strings.TrimSpace(string(comm)) == "ssh" {
			ssh += pss(p)
		} else {
			own += pss(p)
		}
	}
	return own, ssh
}
