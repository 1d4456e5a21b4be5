package db

import (
	"github.com/flowdeck/flowdeck/model"

	"testing"
	"time"
)

// An agent's latest event replaces its previous one and moves the change
// counter, so a cockpit notices that the agent went idle.
func TestAgentEventsKeepTheLatestPerAgent(t *testing.T) {
	st := newStore(t)
	before, _ := st.changes()
	for i, ev := range []model.AgentEvent{{Agent: "opencode", Event: "busy", At: t0}, {Agent: "opencode", Event: "idle", At: t0.Add(time.Second)}, {Agent: "claude", Event: "idle", At: t0}} {
		if err := st.RecordAgentEvent(ev); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	got, err := st.AgentEvents()
	if err != nil || len(got) != 2 || got[0].Agent != "claude" || got[1].Event != "idle" || !got[1].At.Equal(t0.Add(time.Second)) {
		t.Fatalf("events = %+v, %v", got, err)
	}
	if after, _ := st.changes(); after != before+3 {
		t.Fatalf("change counter %d -> %d", before, after)
	}
	if err := st.RecordAgentEvent(model.AgentEvent{Agent: "x"}); err == nil {
		t.Fatal("an event without a name was stored")
	}
}
