package db

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

// agentKeyPrefix keys an agent's last lifecycle event in the meta bucket.
// These are not session events: an idle agent changes no plan, and one
// per turn would flood the history.
var agentKeyPrefix = []byte("agent/")

// RecordAgentEvent keeps ev as its agent's latest event. The change counter
// moves, so an open cockpit sees it.
func (s *Store) RecordAgentEvent(ev model.AgentEvent) error {
	if ev.Agent == "" || ev.Event == "" {
		return fmt.Errorf("an agent event needs an agent and an event")
	}
	// The name keys the row and shows on one line of every agents view.
	if err := model.CheckAgentName("agent", ev.Agent); err != nil {
		return err
	}
	raw, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	// The status digest stays as it is: flow status and the HUD's text do
	// not show agents' events (the lean binary's tests check that it
	// prints what flowdeck-cli prints after one), and decoding the session
	// on every agent's turn would cost a large plan's decode each time.
	return s.update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(append(bytes.Clone(agentKeyPrefix), ev.Agent...), raw)
	})
}

// AgentEvents returns every agent's latest event, by agent name.
func (s *Store) AgentEvents() ([]model.AgentEvent, error) {
	var out []model.AgentEvent
	err := s.view(func(tx *bolt.Tx) (err error) {
		out, err = agentEventsTx(tx)
		return err
	})
	return out, err
}

func agentEventsTx(tx *bolt.Tx) ([]model.AgentEvent, error) {
	var out []model.AgentEvent
	c := tx.Bucket(bucketMeta).Cursor()
	for k, v := c.Seek(agentKeyPrefix); k != nil && bytes.HasPrefix(k, agentKeyPrefix); k, v = c.Next() {
		var ev model.AgentEvent
		if err := json.Unmarshal(v, &ev); err != nil {
			return nil, fmt.Errorf("agent event %s: decode: %w", k, err)
		}
		out = append(out, ev)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Agent < out[j].Agent })
	return out, nil
}
