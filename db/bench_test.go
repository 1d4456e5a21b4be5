package db

import (
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// seedLog writes a session with n events in one transaction (see SeedLog).
func seedLog(tb testing.TB, st *Store, n int) string {
	tb.Helper()
	id, err := st.SeedLog(n, t0)
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

// BenchmarkLoadActive100k loads the active session of a 100,000-event log.
// Target: under 20 ms (there is no replay on load).
func BenchmarkLoadActive100k(b *testing.B) {
	st := newStore(b)
	seedLog(b, st, 100_000)
	b.ResetTimer()
	for b.Loop() {
		s, err := st.Active()
		if err != nil || s.Seq < 100_000 {
			b.Fatalf("active = %v, %v", s, err)
		}
	}
}

// BenchmarkVerify100k replays a 100,000-event log. Target: under 1 s.
func BenchmarkVerify100k(b *testing.B) {
	st := newStore(b)
	seedLog(b, st, 100_000)
	b.ResetTimer()
	for b.Loop() {
		rep, err := st.Verify()
		if err != nil || len(rep.Problems) > 0 || rep.Events < 100_000 {
			b.Fatalf("verify = %+v, %v", rep, err)
		}
	}
}

// BenchmarkDoNote measures one action (open, transaction, fsync, docs) on a
// 10,000-event log, in process.
func BenchmarkDoNote10k(b *testing.B) {
	st := newStore(b)
	seedLog(b, st, 10_000)
	b.ResetTimer()
	for b.Loop() {
		if _, err := st.Do(model.AddNote{Text: "bench"}, "bench", t0); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSeededLogVerifies(t *testing.T) {
	st := newStore(t)
	seedLog(t, st, 2_000)
	rep, err := st.Verify()
	if err != nil || len(rep.Problems) > 0 || rep.Events < 2_000 {
		t.Fatalf("verify = %+v, %v", rep, err)
	}
}
