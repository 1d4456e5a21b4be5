package db

import (
	"fmt"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"flowdeck/model"
)

// seedLog writes a session with n events in one transaction, through the same
// model.Execute and appendEvents as Do, so the log is real: a plan run to
// completion-ready with validations and reviews, then notes.
func seedLog(tb testing.TB, st *Store, n int) string {
	tb.Helper()
	now := t0
	ctx := func() model.Context { now = now.Add(time.Second); return model.Context{Now: now, Actor: "seed"} }
	var sess *model.Session
	var id string
	err := st.update(func(tx *bolt.Tx) error {
		do := func(a model.Action) {
			next, events, err := model.Execute(sess, a, ctx())
			if err != nil {
				tb.Fatalf("seed %s: %v", a.Name(), err)
			}
			if err := appendEvents(tx, next, events); err != nil {
				tb.Fatal(err)
			}
			if err := moveActivePointer(tx, next, events); err != nil {
				tb.Fatal(err)
			}
			sess = next
		}
		id = uniqueSessionID(tx, now, "benchmark")
		do(model.PlanStart{ID: id, Goal: "benchmark"})
		var feats []model.Feature
		for i := range 20 {
			f := model.Feature{ID: fmt.Sprintf("f-%02d", i), Title: "feature", Verification: []string{"go test ./..."}}
			if i > 0 {
				f.DependsOn = []string{fmt.Sprintf("f-%02d", i-1)}
			}
			feats = append(feats, f)
		}
		do(model.PlanApply{Plan: model.Plan{Summary: "bench", Features: feats}})
		do(model.PlanApprove{})
		do(model.RunStart{})
		for sess.Seq < uint64(n) {
			switch sess.Seq % 4 {
			case 0:
				do(model.Validate{Feature: "f-00", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./..."})
			case 1:
				do(model.ReviewFeature{Feature: "f-00", Decision: model.ReviewNeedsFix, Findings: []string{"more tests"}})
			default:
				do(model.AddNote{Text: fmt.Sprintf("note %d with some realistic length of text in it", sess.Seq)})
			}
		}
		return nil
	})
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
