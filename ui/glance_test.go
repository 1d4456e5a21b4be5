package ui

import (
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// finishActive validates, approves and completes the active feature from
// another process, then starts next.
func finishActive(t *testing.T, s *seeder, id, next string) {
	t.Helper()
	s.pass(id, model.ScopeTargeted)
	s.do(model.ReviewFeature{Feature: id, Decision: model.ReviewApproved})
	s.do(model.RunComplete{Feature: id, Outcome: model.OutcomeCompleted})
	s.do(model.RunStart{Feature: next})
}

// Until the person moves it, the selection (and so the detail pane)
// follows the active feature as agents move on; once moved it stays; esc
// hands it back.
func TestSelectionFollowsActiveUntilMoved(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 160, 48, zeroConfig())
	h.mustSee("3 Detail  reset-api")
	agent := &seeder{tb: t, st: st, now: t0}
	finishActive(t, agent, "reset-api", "rate-limit")
	h.tick()
	h.mustSee("3 Detail  rate-limit", "active rate-limit")

	h.clk.Add(followGrace) // the person saw it move (a key sooner acts where it was)
	h.key("j")             // the person looks at reset-ui
	h.mustSee("3 Detail  reset-ui")
	finishActive(t, agent, "rate-limit", "audit-log")
	h.tick()
	h.mustSee("3 Detail  reset-ui", "active audit-log")

	h.key("esc")
	h.mustSee("3 Detail  audit-log", "the selection follows the active feature again")
}

// The session bar says what runs (from any process) after what waits.
func TestSessionBarShowsWhatRuns(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "review")
	addRun(t, st, t0, []string{"go", "test", "./reset-api/..."}, "reset-api", "=== RUN TestA\n", 0, true)
	h := newHarness(t, st, 160, 48, zeroConfig())
	h.key("esc") // later: the review prompt
	h.mustSee("⚑ 1 waiting: review reset-api  · ⟳ go test ./reset-api/... (agent)")
	h.mustSee("›⟳ go test ./reset-api/... running 1 line so far · reset-api · agent")
}

// An agent whose harness reported it idle, and that has done nothing since,
// shows as idle in the session bar; once it acts again the mark goes.
func TestSessionBarShowsIdleAgent(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	clk := &clock{now: t0.Add(time.Hour)}
	cfg := zeroConfig()
	h := newHarness(t, st, 160, 48, cfg)
	h.m.now = clk.Now
	if err := st.RecordAgentEvent(model.AgentEvent{Agent: "opencode", Event: "idle", At: t0.Add(50 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	h.tick()
	h.mustSee("☾ opencode idle 10m")
	agent := &seeder{tb: t, st: st, now: t0.Add(55 * time.Minute)}
	agent.do(model.AddNote{Text: "back at work"})
	h.tick()
	h.mustNotSee("opencode idle")
}
