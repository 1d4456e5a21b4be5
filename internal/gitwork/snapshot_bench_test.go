package gitwork

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSnapshotVsStatus measures a snapshot of a 10,000-file work tree
// (a few files changed, a few untracked) against git status --porcelain on
// the same tree, in the same loop: the target is a snapshot within 2× of
// status. The ratio is the x-status metric.
//
//	go test -run XXX -bench SnapshotVsStatus ./internal/gitwork/
func BenchmarkSnapshotVsStatus(b *testing.B) {
	if !Available() {
		b.Skip("git is not installed")
	}
	dir := b.TempDir()
	git := func(args ...string) {
		b.Helper()
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	for i := range 10000 {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%03d", i/100))
		os.MkdirAll(sub, 0o755)
		os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%05d.go", i)), []byte(fmt.Sprintf("package p\n\nconst X%d = %d\n", i, i)), 0o644)
	}
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.log\n"), 0o644)
	git("add", "-A")
	git("-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-q", "-m", "10k files")
	for i := range 5 {
		os.WriteFile(filepath.Join(dir, "pkg000", fmt.Sprintf("f%05d.go", i)), []byte("package p // changed\n"), 0o644)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("new%d.go", i)), []byte("package p\n"), 0o644)
	}
	os.MkdirAll(filepath.Join(dir, ".flow"), 0o755)
	os.WriteFile(filepath.Join(dir, ".flow", "flowdeck.db"), make([]byte, 1<<20), 0o644)
	// Warm both (the first status refreshes the index's stat cache).
	git("status", "--porcelain")
	r, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := r.Snapshot(dir, ".flow"); err != nil {
		b.Fatal(err)
	}
	var status, snap time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if _, err := run(b.Context(), dir, nil, "status", "--porcelain"); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := r.Snapshot(dir, ".flow"); err != nil {
			b.Fatal(err)
		}
		status += t1.Sub(t0)
		snap += time.Since(t1)
	}
	b.ReportMetric(float64(status.Microseconds())/float64(b.N), "status-µs/op")
	b.ReportMetric(float64(snap.Microseconds())/float64(b.N), "snapshot-µs/op")
	b.ReportMetric(float64(snap)/float64(status), "x-status")
}
