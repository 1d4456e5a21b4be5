package capture

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCaptureCat measures the in-process pipeline on 200 MB of log
// (pty, classifier, redaction, storage, index).
func BenchmarkCaptureCat(b *testing.B) {
	dir := b.TempDir()
	file := filepath.Join(dir, "big.log")
	f, _ := os.Create(file)
	w := bufio.NewWriterSize(f, 1<<20)
	for i, n := 0, 0; n < 200<<20; i++ {
		line := fmt.Sprintf("=== RUN   TestHandler/case_%d\n--- PASS: TestHandler/case_%d (0.%02ds)\n\x1b[32mok\x1b[0m  \tgithub.com/acme/app/pkg/%d\t0.%03ds\n", i, i, i%100, i%40, i%1000)
		w.WriteString(line)
		n += len(line)
	}
	w.Flush()
	f.Close()
	st := newStore(b)
	b.SetBytes(200 << 20)
	for b.Loop() {
		if _, err := Run(context.Background(), st, Options{Argv: []string{"cat", file}, RetainBytes: -1}); err != nil {
			b.Fatal(err)
		}
	}
}
