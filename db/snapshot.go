package db

import (
	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

// Snapshot reads the active session, the session list, the newest runs
// (at most runs of them), the agents' events, the flow runs and the pending
// decisions in one read transaction: one open and one shared lock instead of
// one per list, and the lists agree with each other.
func (s *Store) Snapshot(runs int) (*model.Snapshot, error) {
	snap := &model.Snapshot{}
	err := s.view(func(tx *bolt.Tx) (err error) {
		if snap.Active, err = loadActive(tx); err != nil {
			return err
		}
		if snap.Sessions, err = sessionsTx(tx); err != nil {
			return err
		}
		if snap.Runs, err = runsTx(tx, runs, true); err != nil {
			return err
		}
		if snap.Agents, err = agentEventsTx(tx); err != nil {
			return err
		}
		if snap.FlowRuns, err = flowRunsTx(tx); err != nil {
			return err
		}
		snap.Decisions, err = decisionsTx(tx, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	// A run whose capturer died shows as interrupted, not running forever
	// (unless it cannot be marked: a read-only project).
	if marked, _ := s.settle(snap.Runs); marked {
		return s.Snapshot(runs)
	}
	return snap, nil
}
