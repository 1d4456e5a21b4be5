package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildHello compiles a Go hello-world as flowdeck is built (static, no
// cgo), the yardstick of BenchmarkStartup.
func buildHello(b *testing.B) string {
	b.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		b.Skip("the go command is not on PATH: cannot build the hello-world to compare with")
	}
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"), 0o644)
	bin := filepath.Join(dir, "hello")
	cmd := exec.Command(goCmd, "build", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build hello: %v\n%s", err, out)
	}
	return bin
}

// BenchmarkStartup: `flowdeck flow status` and `flowdeck hud` (every agent
// prompt) on a small project (a session with a two-feature plan) against a
// Go hello-world, 40 of each, interleaved so load on the machine hits all
// alike. The metrics are ratios of medians: of wall-clock time (ratio:
// the lean binary answering from the status digest, target at most 1.5;
// cli-ratio: flowdeck-cli doing the same; hud-ratio and hook-ratio: the
// lean binary's HUD, as text and as Claude Code's hook reading its JSON on
// stdin; hud-cli-ratio: flowdeck-cli's), of the CPU time the process used
// (cpu-ratio), which waits for the other processes of a shared machine
// disturb less, and what a command the lean binary hands on pays for the
// detour (forward-ms: `flowdeck agents` against flowdeck-cli's).
func BenchmarkStartup(b *testing.B) {
	hello := buildHello(b)
	dir := b.TempDir()
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"summary":"s","features":[{"id":"a","title":"A"},{"id":"b","title":"B","depends_on":["a"]}]}`), 0o644)
	for _, args := range [][]string{{"flow", "plan", "start", "startup"}, {"flow", "plan", "apply", plan}} {
		if _, errs, code := flowdeck(b, dir, args...); code != 0 {
			b.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	full := filepath.Join(filepath.Dir(binary), "flowdeck-cli")
	hookIn := `{"session_id":"s","cwd":"` + dir + `","prompt":"go on"}`
	for b.Loop() {
		var base, status, fullStatus, hud, fullHUD, hook, forwarded, direct, baseCPU, statusCPU []time.Duration
		for range 40 {
			wall, cpu := cpuCmd(b, hello)
			base, baseCPU = append(base, wall), append(baseCPU, cpu)
			wall, cpu = cpuCmd(b, binary, "--dir", dir, "flow", "status")
			status, statusCPU = append(status, wall), append(statusCPU, cpu)
			wall, _ = cpuCmd(b, full, "--dir", dir, "flow", "status")
			fullStatus = append(fullStatus, wall)
			wall, _ = cpuCmd(b, binary, "--dir", dir, "hud")
			hud = append(hud, wall)
			wall, _ = cpuCmd(b, full, "--dir", dir, "hud")
			fullHUD = append(fullHUD, wall)
			hook = append(hook, stdinCmd(b, hookIn, binary, "hud", "--hook", "claude"))
			wall, _ = cpuCmd(b, binary, "--dir", dir, "agents")
			forwarded = append(forwarded, wall)
			wall, _ = cpuCmd(b, full, "--dir", dir, "agents")
			direct = append(direct, wall)
		}
		ratio := func(d []time.Duration) float64 { return float64(median(d)) / float64(median(base)) }
		b.ReportMetric(ms(median(base)), "hello-ms")
		b.ReportMetric(ms(median(status)), "status-ms")
		b.ReportMetric(ratio(status), "ratio")
		b.ReportMetric(float64(median(statusCPU))/float64(median(baseCPU)), "cpu-ratio")
		b.ReportMetric(ratio(fullStatus), "cli-ratio")
		b.ReportMetric(ratio(hud), "hud-ratio")
		b.ReportMetric(ratio(fullHUD), "hud-cli-ratio")
		b.ReportMetric(ratio(hook), "hook-ratio")
		b.ReportMetric(ms(median(forwarded)-median(direct)), "forward-ms")
	}
}

// stdinCmd runs a command with in on its stdin and returns its wall-clock
// time.
func stdinCmd(b *testing.B, in, name string, args ...string) time.Duration {
	start := time.Now()
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader(in)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return time.Since(start)
}

// cpuCmd runs a command and returns its wall-clock time and the CPU time
// (user and system) it used.
func cpuCmd(b *testing.B, name string, args ...string) (wall, cpu time.Duration) {
	start := time.Now()
	cmd := exec.Command(name, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	wall = time.Since(start)
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}
