package db

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/internal/digest"
	"github.com/flowdeck/flowdeck/model"
)

// Verify replays every session's events through model.Apply, the same code
// that executed them, and compares the result with the materialized session;
// then, with a renderer (Options.Digest), renders the status digest from the
// state and compares it with the stored one.
func (s *Store) Verify() (*model.VerifyReport, error) {
	rep := &model.VerifyReport{Checked: map[string]uint64{}, Problems: []model.VerifyProblem{}}
	err := s.view(func(tx *bolt.Tx) error {
		err := tx.Bucket(bucketSessions).ForEach(func(k, stored []byte) error {
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
		if p := s.verifyDigest(tx); p != nil {
			rep.Problems = append(rep.Problems, *p)
		}
		return err
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

// verifyDigest compares the stored status digest with one rendered from
// the state in tx now. Any difference is reported, naming the file that
// holds it: the lean binary prints a digest whose counter is the
// database's without looking further, so one whose content is not what
// the state renders (planted, or written by a faulty flowdeck) would be
// shown as the truth, and one behind the counter says a write did not
// render it. No digest is no problem: the lean binary then asks the full
// code.
func (s *Store) verifyDigest(tx *bolt.Tx) *model.VerifyProblem {
	stored := tx.Bucket(bucketMeta).Get(digest.Key)
	if stored == nil || s.digest == nil {
		return nil
	}
	where := s.path + " (status digest, meta/digest)"
	problem := func(format string, args ...any) *model.VerifyProblem {
		return &model.VerifyProblem{File: where, Message: fmt.Sprintf(format, args...)}
	}
	now := getU64(tx.Bucket(bucketMeta).Get(keyChanges))
	d, err := digest.Decode(stored)
	switch {
	case err != nil:
		return problem("not a digest this flowdeck writes (%v): it is not printed, and the next flow action renders it again", err)
	case d.Changes != now:
		return problem("it shows change %d, the database is at change %d (a write did not render it): it is not printed, and the next flow action renders it again", d.Changes, now)
	}
	want, err := s.renderDigest(tx, nil)
	if err != nil {
		return problem("the state does not render (%v), yet a digest is stored: flow status and hud print it until the next flow action", err)
	}
	if bytes.Equal(want, stored) {
		return nil
	}
	return problem("%s: flow status and hud print it until the next flow action renders it again", digestDiff(want, stored))
}

// digestDiff names the first part where two encoded digests differ.
func digestDiff(want, got []byte) string {
	w, _ := digest.Decode(want)
	g, _ := digest.Decode(got)
	for _, p := range []struct {
		name      string
		want, got []byte
	}{
		{"flow status", w.StatusText, g.StatusText},
		{"flow status --json", w.StatusJSON, g.StatusJSON},
		{"hud", w.HUDText.Out, g.HUDText.Out},
		{"hud --format markdown", w.HUDMarkdown.Out, g.HUDMarkdown.Out},
		{"hud --hook claude", w.HUDHook.Out, g.HUDHook.Out},
	} {
		if !bytes.Equal(p.want, p.got) {
			return "its " + p.name + " is not what the state renders"
		}
	}
	return "its HUD time stamps are not where the state's render has them"
}
