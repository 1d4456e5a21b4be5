package cli

import (
	"os"
	"os/exec"
	"path/filepath"
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

// BenchmarkStartup: `flowdeck flow status` on a small project (a session
// with a two-feature plan) against a Go hello-world, 40 of each,
// interleaved so load on the machine hits both alike. The metric is the
// ratio of the medians; target: at most 1.5.
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
	for b.Loop() {
		var base, status []time.Duration
		for range 40 {
			base = append(base, timeCmd(b, hello))
			status = append(status, timeCmd(b, binary, "--dir", dir, "flow", "status"))
		}
		b.ReportMetric(ms(median(base)), "hello-ms")
		b.ReportMetric(ms(median(status)), "status-ms")
		b.ReportMetric(float64(median(status))/float64(median(base)), "ratio")
	}
}
