package model

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestCheckVia(t *testing.T) {
	for _, ok := range []string{"", "fleet@laptop", "fleet@host-1.example.org:22", "a_b"} {
		if err := CheckVia("--via", ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"fleet laptop", "a\nb", "\x1b[31m", "caf\u00e9", "a\u202eb", "a/b", strings.Repeat("x", ViaMax+1)} {
		err := CheckVia("--via", bad)
		if err == nil || !strings.HasPrefix(err.Error(), "--via ") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// Via is recorded on an action's events and their history items, and an
// event stored before it existed (no via key) replays as before.
func TestViaRecordedAndOldEventsReplay(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	evs, err := Decide(nil, PlanStart{ID: "s1", Goal: "g"}, Context{Now: now, Actor: "human", Via: "fleet@laptop"})
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].Via != "fleet@laptop" {
		t.Fatalf("event %+v", evs[0])
	}
	sess, err := Replay(evs)
	if err != nil {
		t.Fatal(err)
	}
	h := sess.Execution.History
	if h[len(h)-1].Via != "fleet@laptop" || ByText(h[len(h)-1].Actor, h[len(h)-1].Via) != "human via fleet@laptop" {
		t.Fatalf("history %+v", h)
	}
	data, _ := json.Marshal(evs[0])
	if !strings.Contains(string(data), `"via":"fleet@laptop"`) {
		t.Fatalf("stored as %s", data)
	}
	var old Event
	if err := json.Unmarshal([]byte(strings.Replace(string(data), `,"via":"fleet@laptop"`, "", 1)), &old); err != nil {
		t.Fatal(err)
	}
	s, err := Replay([]Event{old})
	if err != nil || s.Execution.History[0].Via != "" || ByText(s.Execution.History[0].Actor, "") != "human" {
		t.Fatalf("replayed %+v, %v", s, err)
	}
	if again, _ := json.Marshal(old); strings.Contains(string(again), "via") {
		t.Fatalf("an event without via is stored with one: %s", again)
	}
}
