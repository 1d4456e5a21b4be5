package db

import (
	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

// Glance is what an agent's HUD says: the active session, the pending
// decisions and the agents' events.
type Glance struct {
	Active    *model.Session
	Decisions []model.Decision // pending only
	Agents    []model.AgentEvent
	// FlowRuns (newest first, without their text) and LastRun (the newest
	// command run, nil when none) are read by FleetGlance only.
	FlowRuns []model.FlowRun
	LastRun  *model.RunRecord
}

// Glance reads the three in one read transaction. The HUD runs on every
// prompt of every agent: one open of the file and one shared lock instead
// of three, and the three agree with each other.
func (s *Store) Glance() (*Glance, error) {
	return s.glance(func(tx *bolt.Tx, g *Glance) (err error) {
		g.Agents, err = agentEventsTx(tx)
		return err
	})
}

// FleetGlance reads what a fleet's glance at the project needs in one read
// transaction: the active session, the pending decisions, the flow runs
// (what the waits are a function of) and the newest command run (when the
// project last changed).
func (s *Store) FleetGlance() (*Glance, error) {
	return s.glance(func(tx *bolt.Tx, g *Glance) (err error) {
		if g.FlowRuns, err = flowRunsTx(tx); err != nil {
			return err
		}
		runs, err := runsTx(tx, 1, true)
		if len(runs) > 0 {
			g.LastRun = &runs[0]
		}
		return err
	})
}

// glance reads the active session and the pending decisions, then what
// more reads, in one read transaction.
func (s *Store) glance(more func(*bolt.Tx, *Glance) error) (*Glance, error) {
	g := &Glance{}
	err := s.view(func(tx *bolt.Tx) (err error) {
		if g.Active, err = loadActive(tx); err != nil {
			return err
		}
		if g.Decisions, err = decisionsTx(tx, true); err != nil {
			return err
		}
		return more(tx, g)
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}
