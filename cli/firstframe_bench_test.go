package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/internal/frametest"
)

// BenchmarkFirstFrame: process start to the cockpit's first frame on a
// terminal, against testdata/firstframe (a minimal Bubble Tea v2 program
// rendering one Glamour document: the same Charm libraries, so the same
// unavoidable package init), 20 of each, interleaved so load on the machine
// hits both alike. Each runs under a pty whose output feeds a terminal
// emulator that also answers the program's queries, as a terminal would;
// the frame has arrived when its text is on the emulated screen. Metrics:
// ratio (`flowdeck` as a person types it: the lean front, flowdeck-cli,
// then flowdeck-cockpit; target at most 2), cockpit-ratio (flowdeck-cockpit
// started directly), and the medians in milliseconds.
func BenchmarkFirstFrame(b *testing.B) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		b.Skip("the go command is not on PATH: cannot build the programs to compare")
	}
	bin := b.TempDir()
	build := exec.Command(goCmd, "build", "-o", bin+string(os.PathSeparator),
		"..", "../cmd/flowdeck-cli", "../cmd/flowdeck-cockpit", "./testdata/firstframe")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as the README builds them
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	front, cockpit, base := filepath.Join(bin, "flowdeck"), filepath.Join(bin, "flowdeck-cockpit"), filepath.Join(bin, "firstframe")
	dir := b.TempDir()
	const goal = "first frame goal"
	if out, err := exec.Command(front, "--dir", dir, "flow", "plan", "start", goal).CombinedOutput(); err != nil {
		b.Fatalf("plan start: %v\n%s", err, out)
	}
	for b.Loop() {
		var ours, direct, baseline []time.Duration
		for range 20 {
			baseline = append(baseline, firstFrame(b, "firstframe", base))
			ours = append(ours, firstFrame(b, goal, front, "--dir", dir))
			direct = append(direct, firstFrame(b, goal, cockpit, "--dir", dir))
		}
		b.ReportMetric(ms(median(baseline)), "baseline-ms")
		b.ReportMetric(ms(median(ours)), "flowdeck-ms")
		b.ReportMetric(ms(median(direct)), "cockpit-ms")
		b.ReportMetric(float64(median(ours))/float64(median(baseline)), "ratio")
		b.ReportMetric(float64(median(direct))/float64(median(baseline)), "cockpit-ratio")
	}
}

// firstFrame starts a program on an emulated terminal and returns the time
// until want is on its screen; then it kills the program's session.
func firstFrame(b *testing.B, want, name string, args ...string) time.Duration {
	b.Helper()
	t := frametest.Start(b, append(os.Environ(), "TERM=xterm-256color"), append([]string{name}, args...)...)
	defer t.Close()
	return t.Until(fmt.Sprintf("%q", want), func(scr string) bool { return strings.Contains(scr, want) })
}
