package db

import (
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/internal/digest"
	"github.com/flowdeck/flowdeck/model"
)

// storeDigest renders the status digest into the meta bucket, in a
// transaction that changed the active session, the active pointer or a
// decision, so that the digest and the state it shows commit together,
// stamped with the change counter the transaction commits (updateRoot has
// moved it already). last is the session the transaction ended with, when
// it has one at hand; the active one is decoded only when it is another.
//
// The digest is a copy for the lean binary, never state: when it cannot be
// made (no renderer, a record that does not decode, a render error) it is
// deleted instead, and the write itself goes on. A missing digest sends
// the lean binary to the full code. Deleting it also tells carryDigest
// that this transaction changed what the digest showed.
func (s *Store) storeDigest(tx *bolt.Tx, last *model.Session) error {
	meta := tx.Bucket(bucketMeta)
	if s.digest == nil {
		return meta.Delete(digest.Key)
	}
	raw, err := s.renderDigest(tx, last)
	if err != nil {
		return meta.Delete(digest.Key)
	}
	return meta.Put(digest.Key, raw)
}

// carryDigest ends every write transaction of this code: one that changed
// what the digest shows has rendered it at the new counter or deleted it
// (storeDigest), so a digest still at the counter the transaction started
// from shows what is still true, and is carried to the new counter. A
// digest already behind (a write that did not render it came between)
// stays behind: the lean binary does not print it.
func carryDigest(meta *bolt.Bucket, from, to uint64) error {
	if raw := digest.Carry(meta.Get(digest.Key), from, to); raw != nil {
		return meta.Put(digest.Key, raw)
	}
	return nil
}

// renderDigest is the encoded digest of what tx holds. The agents' events
// are not read: neither flow status nor the HUD's stored forms show them.
func (s *Store) renderDigest(tx *bolt.Tx, last *model.Session) ([]byte, error) {
	g := &Glance{}
	if id := string(tx.Bucket(bucketMeta).Get(keyActive)); id != "" {
		if last != nil && last.ID == id {
			g.Active = last
		} else {
			var err error
			if g.Active, err = loadActive(tx); err != nil {
				return nil, err
			}
		}
	}
	var err error
	if g.Decisions, err = decisionsTx(tx, true); err != nil {
		return nil, err
	}
	d, err := s.digest(g)
	if err != nil {
		return nil, fmt.Errorf("status digest: %w", err)
	}
	d.Changes = getU64(tx.Bucket(bucketMeta).Get(keyChanges))
	return digest.Encode(d), nil
}
