package db

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
	"unicode"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

// Outcome is what an accepted action changed. For some refused actions (a
// rejected completion, a run start that blocks the session) events are still
// stored: then Do returns both an Outcome and the *model.Error.
type Outcome struct {
	Session *model.Session `json:"session"`
	Events  []model.Event  `json:"events"`
}

// storedEvent is an event as kept in the log. StateHash, set on the last event
// of each action, fingerprints the session after it, so verify can name the
// first event where a replay goes astray.
type storedEvent struct {
	model.Event
	StateHash string `json:"state_hash,omitempty"`
}

// Do executes one action in one write transaction: load the active session,
// let model decide, append the events, store the new session, move the active
// pointer. All or nothing. Docs are refreshed after the commit.
func (s *Store) Do(a model.Action, actor string, now time.Time) (*Outcome, error) {
	return s.DoSeen(a, 0, actor, now)
}

// DoSeen is Do for a caller that decided on the active session as of
// sequence seen (0: no guard): when an event stored after it touches what a
// decides, the action is refused with model.CodeStaleDecision.
func (s *Store) DoSeen(a model.Action, seen uint64, actor string, now time.Time) (*Outcome, error) {
	return s.DoBy(a, seen, model.Context{Now: now, Actor: actor})
}

// DoBy is DoSeen for the caller ctx says: who acts, when, and where the
// call came from (ctx.Via, recorded on the events).
func (s *Store) DoBy(a model.Action, seen uint64, ctx model.Context) (*Outcome, error) {
	if ctx.Actor == "" {
		ctx.Actor = "human"
	}
	if err := model.CheckVia("via", ctx.Via); err != nil {
		return nil, err // the front-ends refuse it first, naming their flag
	}
	now := ctx.Now
	var out *Outcome
	var refusal error
	var touched []docsJob
	err := s.updateRoot(func(r *os.Root, tx *bolt.Tx) error {
		out, refusal, touched = nil, nil, nil
		active, err := loadActive(tx)
		if err != nil {
			return err
		}
		if seen > 0 && active != nil && active.Seq > seen {
			since, err := eventsTx(tx, active.ID, seen+1)
			if err != nil {
				return err
			}
			if e := model.Stale(a, seen, since); e != nil {
				return e
			}
		}
		act, target := a, (*model.Session)(nil)
		switch x := a.(type) {
		case model.PlanStart:
			x.ID = uniqueSessionID(tx, now, x.Goal)
			act = x
		case model.ActivateSession:
			if target, err = loadSession(tx, x.ID); err != nil {
				return err
			}
		}
		steps := model.Steps(active, target, act)
		out = &Outcome{Session: active}
		if len(steps) == 0 {
			return nil // already done: nothing to store
		}
		touched, refusal, err = storeSteps(tx, steps, ctx, out)
		if err != nil {
			return err
		}
		if len(out.Events) == 0 && refusal != nil {
			// Nothing to store: roll back so the change counter stays put.
			return refusal
		}
		if len(out.Events) > 0 {
			if err := s.storeDigest(tx, out.Session); err != nil {
				return err
			}
		}
		if out.Session != nil && out.Session.Archived {
			out.Session = nil
		}
		return s.checkDocsDirs(r, touched)
	}, func() {
		for _, job := range touched {
			s.refreshDocs(job)
		}
	})
	if err != nil {
		return nil, err
	}
	return out, refusal
}

// storeSteps executes steps in turn, appending each one's events to the log
// and recording them in out. A refusal stops the steps; the events before it
// stay. touched are the sessions whose docs the events change.
func storeSteps(tx *bolt.Tx, steps []model.Step, ctx model.Context, out *Outcome) (touched []docsJob, refusal, err error) {
	for _, st := range steps {
		before := model.MarkDocs(st.Session)
		if _, ok := st.Action.(model.PlanStart); ok {
			before = model.MarkDocs(nil) // a new session: render all
		}
		next, events, derr := model.Execute(st.Session, st.Action, ctx)
		if len(events) > 0 {
			if err := appendEvents(tx, next, events); err != nil {
				return nil, nil, err
			}
			if err := moveActivePointer(tx, next, events); err != nil {
				return nil, nil, err
			}
			out.Events = append(out.Events, events...)
			touched = append(touched, docsJob{next, before, events})
			out.Session = next
		}
		if derr != nil {
			if _, ok := model.AsError(derr); !ok {
				return nil, nil, derr
			}
			refusal = derr
			break
		}
		out.Session = next
	}
	return touched, refusal, nil
}

func loadActive(tx *bolt.Tx) (*model.Session, error) {
	id := tx.Bucket(bucketMeta).Get(keyActive)
	if len(id) == 0 {
		return nil, nil
	}
	sess, err := loadSession(tx, string(id))
	if err != nil {
		return nil, err
	}
	if sess == nil {
		return nil, fmt.Errorf("the active session %q is missing from the sessions bucket", id)
	}
	return sess, nil
}

func loadSession(tx *bolt.Tx, id string) (*model.Session, error) {
	raw := tx.Bucket(bucketSessions).Get([]byte(id))
	if raw == nil {
		return nil, nil
	}
	var sess model.Session
	if err := json.Unmarshal(raw, &sess); err != nil {
		return nil, fmt.Errorf("session %s: decode: %w", id, err)
	}
	sess.Index()
	return &sess, nil
}

func appendEvents(tx *bolt.Tx, sess *model.Session, events []model.Event) error {
	log, err := tx.Bucket(bucketEvents).CreateBucketIfNotExists([]byte(sess.ID))
	if err != nil {
		return fmt.Errorf("events of %s: %w", sess.ID, err)
	}
	state, err := json.Marshal(sess)
	if err != nil {
		return fmt.Errorf("encode session %s: %w", sess.ID, err)
	}
	for i, e := range events {
		rec := storedEvent{Event: e}
		if i == len(events)-1 {
			rec.StateHash = hashState(state)
		}
		raw, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("encode event %d of %s: %w", e.Seq, sess.ID, err)
		}
		if err := log.Put(u64(e.Seq), raw); err != nil {
			return fmt.Errorf("append event %d of %s: %w", e.Seq, sess.ID, err)
		}
	}
	return tx.Bucket(bucketSessions).Put([]byte(sess.ID), state)
}

func hashState(state []byte) string {
	sum := sha256.Sum256(state)
	return hex.EncodeToString(sum[:12])
}

func moveActivePointer(tx *bolt.Tx, sess *model.Session, events []model.Event) error {
	meta := tx.Bucket(bucketMeta)
	for _, e := range events {
		switch e.Type {
		case model.EventSessionStarted, model.EventSessionActivated:
			if err := meta.Put(keyActive, []byte(sess.ID)); err != nil {
				return err
			}
		case model.EventSessionArchived:
			if bytes.Equal(meta.Get(keyActive), []byte(sess.ID)) {
				if err := meta.Delete(keyActive); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// uniqueSessionID makes a readable, sortable id: date, time and the goal's
// first words, with a counter when two sessions start in the same second.
func uniqueSessionID(tx *bolt.Tx, now time.Time, goal string) string {
	base := now.UTC().Format("20060102-150405")
	if slug := slugify(goal, 40); slug != "" {
		base += "-" + slug
	}
	id := base
	for n := 2; tx.Bucket(bucketSessions).Get([]byte(id)) != nil; n++ {
		id = fmt.Sprintf("%s-%d", base, n)
	}
	return id
}

func slugify(s string, max int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= max {
			break
		}
	}
	return strings.Trim(b.String(), "-")
}

// Active returns the active session, or nil when there is none.
func (s *Store) Active() (*model.Session, error) {
	var sess *model.Session
	err := s.view(func(tx *bolt.Tx) (err error) {
		sess, err = loadActive(tx)
		return err
	})
	return sess, err
}

// Session returns a stored session by id, or nil.
func (s *Store) Session(id string) (*model.Session, error) {
	var sess *model.Session
	err := s.view(func(tx *bolt.Tx) (err error) {
		sess, err = loadSession(tx, id)
		return err
	})
	return sess, err
}

// Sessions lists every stored session, newest first.
func (s *Store) Sessions() ([]model.SessionInfo, error) {
	var out []model.SessionInfo
	err := s.view(func(tx *bolt.Tx) (err error) {
		out, err = sessionsTx(tx)
		return err
	})
	return out, err
}

func sessionsTx(tx *bolt.Tx) ([]model.SessionInfo, error) {
	var out []model.SessionInfo
	active := string(tx.Bucket(bucketMeta).Get(keyActive))
	err := tx.Bucket(bucketSessions).ForEach(func(k, v []byte) error {
		// Only what the list shows: decoding whole sessions (evidence,
		// history, every feature's texts) made listing cost the plan's size.
		var sess struct {
			ID         string              `json:"id"`
			Goal       string              `json:"goal"`
			Status     model.SessionStatus `json:"status"`
			Approval   model.Approval      `json:"approval"`
			Archived   bool                `json:"archived"`
			Seq        uint64              `json:"seq"`
			Timestamps model.Timestamps    `json:"timestamps"`
			Plan       *struct {
				Features []struct {
					Status model.FeatureStatus `json:"status"`
				} `json:"features"`
			} `json:"plan"`
		}
		if err := json.Unmarshal(v, &sess); err != nil {
			return fmt.Errorf("session %s: decode: %w", k, err)
		}
		info := model.SessionInfo{
			ID: sess.ID, Goal: sess.Goal, Status: sess.Status, Approval: sess.Approval,
			Active: sess.ID == active, Archived: sess.Archived, Events: sess.Seq,
			Created: sess.Timestamps.Created, Updated: sess.Timestamps.Updated,
		}
		if sess.Plan != nil {
			info.Features = len(sess.Plan.Features)
			for _, f := range sess.Plan.Features {
				if f.Status == model.FeatureCompleted {
					info.Completed++
				}
			}
		}
		out = append(out, info)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Created.After(out[j].Created) })
	return out, err
}

// Events returns the events of a session with from <= seq, at most limit of
// them (0 = all), oldest first.
func (s *Store) Events(sessionID string, from uint64, limit int) ([]model.Event, error) {
	var out []model.Event
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		out, err = eventsLimitTx(tx, sessionID, from, limit)
		return err
	})
	return out, err
}

// eventsTx reads a session's events with seq >= from.
func eventsTx(tx *bolt.Tx, sessionID string, from uint64) ([]model.Event, error) {
	return eventsLimitTx(tx, sessionID, from, 0)
}

func eventsLimitTx(tx *bolt.Tx, sessionID string, from uint64, limit int) ([]model.Event, error) {
	var out []model.Event
	log := tx.Bucket(bucketEvents).Bucket([]byte(sessionID))
	if log == nil {
		return nil, nil
	}
	c := log.Cursor()
	for k, v := c.Seek(u64(from)); k != nil; k, v = c.Next() {
		var rec storedEvent
		if err := json.Unmarshal(v, &rec); err != nil {
			return nil, fmt.Errorf("session %s event %d: decode: %w", sessionID, getU64(k), err)
		}
		out = append(out, rec.Event)
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return out, nil
}
