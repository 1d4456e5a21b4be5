package termtext

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// BenchmarkWriterBuildLog: a coloured build log through the streaming
// sanitiser, as `flowdeck run` streams a command's output to a terminal.
func BenchmarkWriterBuildLog(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 4<<20; i++ {
		fmt.Fprintf(&sb, "=== RUN   TestHandler/case_%d\n--- PASS: TestHandler/case_%d (0.%02ds)\n\x1b[32mok\x1b[0m  \tgithub.com/acme/app/pkg/%d\t0.%03ds\n", i, i, i%100, i%40, i%1000)
	}
	data := []byte(sb.String())
	w := NewWriter(io.Discard, Options{KeepSGR: true, KeepCR: true})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for off := 0; off < len(data); off += 32 << 10 {
			w.Write(data[off:min(off+32<<10, len(data))])
		}
	}
}
