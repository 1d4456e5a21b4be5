package patterns

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// goTestLog builds a go-test -v style log of about size bytes, with colour
// codes on the PASS lines as a terminal run would have.
func goTestLog(size int) []byte {
	var b bytes.Buffer
	for pkg := 0; b.Len() < size; pkg++ {
		for t := 0; t < 200 && b.Len() < size; t++ {
			fmt.Fprintf(&b, "=== RUN   TestThing%d\n", t)
			fmt.Fprintf(&b, "    thing_test.go:%d: checking thing %d against the reference value\n", 10+t, t)
			fmt.Fprintf(&b, "\x1b[32m--- PASS: TestThing%d (0.00s)\x1b[0m\n", t)
		}
		fmt.Fprintf(&b, "PASS\nok  \texample.com/big/pkg%d\t0.%03ds\n", pkg, pkg%1000)
	}
	return b.Bytes()
}

// BenchmarkClassifierThroughput feeds a 50 MB go test log in 32 KiB
// chunks (a pty read size): the classifier must keep up with a pty
// stream (~88 MB/s) by a wide margin.
func BenchmarkClassifierThroughput(b *testing.B) {
	log := goTestLog(50 << 20)
	const chunk = 32 << 10
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := Builtin().Classifier([]string{"go", "test", "-v", "./..."}, Options{})
		for off := 0; off < len(log); off += chunk {
			end := off + chunk
			if end > len(log) {
				end = len(log)
			}
			c.Write(log[off:end])
		}
		r := c.Finish(0, time.Second)
		if r.Class != Success {
			b.Fatalf("class %s: %s", r.Class, r.Summary)
		}
	}
}

func BenchmarkStripANSI(b *testing.B) {
	log := goTestLog(8 << 20)
	b.SetBytes(int64(len(log)))
	for i := 0; i < b.N; i++ {
		StripANSI(log)
	}
}
