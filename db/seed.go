package db

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

// SeedLog writes a session with about n events in one transaction, through
// the same model.Execute and appendEvents as Do, so the log is real: a
// 20-feature plan whose first feature collects validations and reviews,
// then notes. Benchmarks use it to measure a project with a long history
// without paying a transaction (and a docs render) per event.
func (s *Store) SeedLog(n int, start time.Time) (sessionID string, err error) {
	now := start
	ctx := func() model.Context { now = now.Add(time.Second); return model.Context{Now: now, Actor: "seed"} }
	var sess *model.Session
	err = s.update(func(tx *bolt.Tx) error {
		do := func(a model.Action) error {
			next, events, err := model.Execute(sess, a, ctx())
			if err != nil {
				return fmt.Errorf("seed %s: %w", a.Name(), err)
			}
			if err := appendEvents(tx, next, events); err != nil {
				return err
			}
			if err := moveActivePointer(tx, next, events); err != nil {
				return err
			}
			sess = next
			return nil
		}
		sessionID = uniqueSessionID(tx, now, "benchmark")
		if err := do(model.PlanStart{ID: sessionID, Goal: "benchmark"}); err != nil {
			return err
		}
		var feats []model.Feature
		for i := range 20 {
			f := model.Feature{ID: fmt.Sprintf("f-%02d", i), Title: "feature", Verification: []string{"go test ./..."}}
			if i > 0 {
				f.DependsOn = []string{fmt.Sprintf("f-%02d", i-1)}
			}
			feats = append(feats, f)
		}
		for _, a := range []model.Action{model.PlanApply{Plan: model.Plan{Summary: "bench", Features: feats}}, model.PlanApprove{}, model.RunStart{}} {
			if err := do(a); err != nil {
				return err
			}
		}
		for sess.Seq < uint64(n) {
			var a model.Action
			switch sess.Seq % 4 {
			case 0:
				a = model.Validate{Feature: "f-00", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./..."}
			case 1:
				a = model.ReviewFeature{Feature: "f-00", Decision: model.ReviewNeedsFix, Findings: []string{"more tests"}}
			default:
				a = model.AddNote{Text: fmt.Sprintf("note %d with some realistic length of text in it", sess.Seq)}
			}
			if err := do(a); err != nil {
				return err
			}
		}
		return s.storeDigest(tx, sess)
	})
	return sessionID, err
}
