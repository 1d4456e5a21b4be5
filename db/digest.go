package db

import (
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/internal/digest"
	"github.com/flowdeck/flowdeck/model"
)

// storeDigest renders the status digest into the meta bucket, in a
// transaction that changed the active session, the active pointer or a
// decision, so that the digest and the state it shows
// commit together. last is the session the transaction ended with, when
// it has one at hand; the active one is decoded only when it is another.
// A store without a renderer deletes the digest: a missing digest sends
// the lean binary to the full code, a stale one would mislead it.
func (s *Store) storeDigest(tx *bolt.Tx, last *model.Session) error {
	meta := tx.Bucket(bucketMeta)
	if s.digest == nil {
		return meta.Delete(digest.Key)
	}
	g := &Glance{}
	if id := string(meta.Get(keyActive)); id != "" {
		if last != nil && last.ID == id {
			g.Active = last
		} else {
			var err error
			if g.Active, err = loadActive(tx); err != nil {
				return err
			}
		}
	}
	var err error
	if g.Decisions, err = decisionsTx(tx, true); err != nil {
		return err
	}
	if g.Agents, err = agentEventsTx(tx); err != nil {
		return err
	}
	d, err := s.digest(g)
	if err != nil {
		return fmt.Errorf("status digest: %w", err)
	}
	return meta.Put(digest.Key, digest.Encode(d))
}
