package db

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

// Verify replays every session's events through model.Apply, the same code
// that executed them, and compares the result with the materialized session.
func (s *Store) Verify() (*model.VerifyReport, error) {
	rep := &model.VerifyReport{Checked: map[string]uint64{}, Problems: []model.VerifyProblem{}}
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSessions).ForEach(func(k, stored []byte) error {
			rep.Sessions++
			id := string(k)
			n, problem := verifySession(tx, id, stored)
			rep.Events += n
			rep.Checked[id] = uint64(n)
			if problem != nil {
				rep.Problems = append(rep.Problems, *problem)
			}
			return nil
		})
	})
	return rep, err
}

func verifySession(tx *bolt.Tx, id string, stored []byte) (int, *model.VerifyProblem) {
	log := tx.Bucket(bucketEvents).Bucket([]byte(id))
	if log == nil {
		return 0, &model.VerifyProblem{Session: id, Message: "no event log"}
	}
	sess := &model.Session{}
	var hashes []hashPoint
	n := 0
	var expect uint64 = 1
	c := log.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		seq := getU64(k)
		var rec storedEvent
		if err := json.Unmarshal(v, &rec); err != nil {
			return n, &model.VerifyProblem{Session: id, Seq: seq, Message: "undecodable event: " + err.Error()}
		}
		if seq != expect || rec.Seq != seq {
			return n, &model.VerifyProblem{Session: id, Seq: seq, Message: fmt.Sprintf("expected event %d here", expect)}
		}
		expect++
		if err := model.Apply(sess, rec.Event); err != nil {
			return n, &model.VerifyProblem{Session: id, Seq: seq, Message: err.Error()}
		}
		n++
		if rec.StateHash != "" {
			hashes = append(hashes, hashPoint{seq, rec.StateHash})
		}
	}
	replayed, err := json.Marshal(sess)
	if err != nil {
		return n, &model.VerifyProblem{Session: id, Message: err.Error()}
	}
	if bytes.Equal(replayed, stored) {
		return n, nil
	}
	return n, &model.VerifyProblem{Session: id, Seq: firstDivergence(log, hashes, sess.Seq),
		Message: "replayed state differs from the stored session: " + firstFieldDiff(replayed, stored)}
}

type hashPoint struct {
	seq  uint64
	hash string
}

// firstDivergence replays again, hashing the state at every event that
// recorded a hash, and returns the first event whose state differs. Only run
// when the final states differ, since hashing every step is slow.
func firstDivergence(log *bolt.Bucket, points []hashPoint, last uint64) uint64 {
	want := map[uint64]string{}
	for _, p := range points {
		want[p.seq] = p.hash
	}
	sess := &model.Session{}
	c := log.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		var rec storedEvent
		if json.Unmarshal(v, &rec) != nil || model.Apply(sess, rec.Event) != nil {
			return getU64(k)
		}
		if h, ok := want[rec.Seq]; ok {
			raw, _ := json.Marshal(sess)
			if hashState(raw) != h {
				return rec.Seq
			}
		}
	}
	return last
}

// firstFieldDiff names the first top-level field that differs.
func firstFieldDiff(a, b []byte) string {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return "stored session is not valid JSON"
	}
	for _, k := range []string{"id", "goal", "status", "approval", "plan", "execution", "notes", "notes_total", "artifacts", "timestamps", "archived", "seq"} {
		if !bytes.Equal(ma[k], mb[k]) {
			return "field " + k
		}
	}
	return "field order or unknown fields"
}
