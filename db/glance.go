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
}

// Glance reads the three in one read transaction. The HUD runs on every
// prompt of every agent: one open of the file and one shared lock instead
// of three, and the three agree with each other.
func (s *Store) Glance() (*Glance, error) {
	g := &Glance{}
	err := s.view(func(tx *bolt.Tx) (err error) {
		if g.Active, err = loadActive(tx); err != nil {
			return err
		}
		if g.Decisions, err = decisionsTx(tx, true); err != nil {
			return err
		}
		g.Agents, err = agentEventsTx(tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}
