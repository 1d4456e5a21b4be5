package runner

import (
	"context"
	"testing"
	"time"
)

func BenchmarkZZVariants(b *testing.B) {
	file := bigFile(b)
	res := map[string][]float64{}
	fns := []struct {
		name string
		fn   func()
	}{
		{"minimal", func() { minimalPtyCat(file) }},
		{"run-auto", func() { Run(context.Background(), Spec{Argv: []string{"cat", file}}) }},
		{"run-fallback", func() { Run(context.Background(), Spec{Argv: []string{"cat", file}, ForceFallback: true}) }},
	}
	i := 0
	for b.Loop() {
		for j := range fns {
			f := fns[(i+j)%len(fns)]
			t0 := time.Now()
			f.fn()
			res[f.name] = append(res[f.name], 200.26/time.Since(t0).Seconds())
		}
		i++
	}
	for k, v := range res {
		b.ReportMetric(medianF(v), k+"-MB/s")
	}
}

func medianF(v []float64) float64 {
	s := append([]float64(nil), v...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}
