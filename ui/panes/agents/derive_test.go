package agents

import (
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

var t0 = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)

// session applies actions to a plan of independent features a..h (max
// parallel 8), one second apart, through the model's own transitions.
func session(t *testing.T, acts ...model.Action) *model.Session {
	t.Helper()
	var feats []model.Feature
	for _, id := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		feats = append(feats, model.Feature{ID: id, Title: id, Verification: []string{"true"}})
	}
	pre := []model.Action{model.PlanStart{ID: "s1", Goal: "crew"},
		model.PlanApply{Plan: model.Plan{Summary: "crew", MaxParallel: 8, Features: feats}}, model.PlanApprove{}}
	var s *model.Session
	now := t0
	for _, a := range append(pre, acts...) {
		now = now.Add(time.Second)
		next, _, err := model.Execute(s, a, model.Context{Now: now, Actor: "test"})
		if err != nil {
			t.Fatalf("%s: %v", a.Name(), err)
		}
		s = next
	}
	return s
}

func claim(f, agent string) model.Action { return model.RunStart{Feature: f, Agent: agent} }
func pass(f string) model.Action {
	return model.Validate{Feature: f, Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "true"}
}
func done(f string) []model.Action {
	return []model.Action{pass(f), model.ReviewFeature{Feature: f, Decision: model.ReviewApproved},
		model.RunComplete{Feature: f, Outcome: model.OutcomeCompleted}}
}

func flowRun(id string, st model.FlowStatus, vars map[string]any) model.FlowRun {
	return model.FlowRun{ID: id, Flow: "run", Status: st, Step: "work", Vars: vars, Created: t0.Add(time.Minute), Updated: t0.Add(2 * time.Minute)}
}

func review(id, run string) model.Decision {
	return model.Decision{ID: id, FlowRun: run, Status: model.DecisionPending, Kind: model.DecisionChoice, Created: t0.Add(3 * time.Minute),
		Prompt: "Review it", Options: []model.DecisionOption{{ID: "approved"}, {ID: "needs_fix"}, {ID: "blocked"}}}
}

// live is the Executing of flow runs a process executes.
func live(ids ...string) map[string]bool {
	m := map[string]bool{}
	for _, id := range ids {
		m[id] = true
	}
	return m
}

type want struct {
	name, feature string
	state         State
	detail        string // a part of the detail
	since         time.Time
	flow, dec     string
	run           string
}

func TestDerive(t *testing.T) {
	ended := t0.Add(10 * time.Minute)
	cases := []struct {
		name string
		in   func(t *testing.T) Input
		want []want
	}{
		{"a claim is an agent at work since its claim", func(t *testing.T) Input {
			return Input{Session: session(t, claim("a", "w1"))}
		}, []want{{name: "w1", feature: "a", state: Working, since: t0.Add(4 * time.Second)}}},

		{"passing evidence waits for the review", func(t *testing.T) Input {
			return Input{Session: session(t, claim("a", "w1"), pass("a"))}
		}, []want{{name: "w1", feature: "a", state: WaitingReview, detail: "validation passed", since: t0.Add(5 * time.Second)}}},

		{"a flow run's review decision ties to the claim by its feature", func(t *testing.T) Input {
			return Input{Session: session(t, claim("c", "w3"), pass("c")),
				FlowRuns:  []model.FlowRun{flowRun("run-1", model.FlowWaiting, map[string]any{"feature": "c"})},
				Decisions: []model.Decision{review("d1", "run-1")}}
		}, []want{{name: "w3", feature: "c", state: WaitingReview, flow: "run-1", dec: "d1", since: t0.Add(3 * time.Minute)}}},

		{"a live flow run on a feature that passed asks for the review itself: working till then", func(t *testing.T) Input {
			return Input{Session: session(t, claim("c", "w3"), pass("c")),
				FlowRuns: []model.FlowRun{flowRun("run-1", model.FlowRunning, map[string]any{"feature": "c", "agent_name": "w3"})}, Executing: live("run-1")}
		}, []want{{name: "w3", feature: "c", state: Working, detail: "step work"}}},

		{"a running flow run no process executes (its crew scheduler died) is a failure, not work", func(t *testing.T) Input {
			return Input{Session: session(t, claim("c", "w3")),
				FlowRuns: []model.FlowRun{flowRun("run-1", model.FlowRunning, map[string]any{"feature": "c", "agent_name": "w3"})}}
		}, []want{{name: "w3", feature: "c", state: Failed, detail: "no process executes its flow run (stopped at step work)", flow: "run-1"}}},

		{"a pause a live process honours reads pausing; one nobody executes reads stopped", func(t *testing.T) Input {
			r := flowRun("run-1", model.FlowRunning, map[string]any{"feature": "c", "agent_name": "w3"})
			r.PauseRequested = true
			q := flowRun("run-2", model.FlowRunning, map[string]any{"feature": "d", "agent_name": "w4"})
			q.PauseRequested = true
			return Input{Session: session(t, claim("c", "w3"), claim("d", "w4")), FlowRuns: []model.FlowRun{r, q}, Executing: live("run-1")}
		}, []want{{name: "w3", feature: "c", state: Working, detail: "pausing after step work"}, {name: "w4", feature: "d", state: Failed, detail: "no process executes"}}},

		{"a flow run's other decision waits for a decision", func(t *testing.T) Input {
			d := model.Decision{ID: "d2", FlowRun: "run-2", Status: model.DecisionPending, Kind: model.DecisionChoice,
				Prompt: "Which store?\nmore", Options: []model.DecisionOption{{ID: "bolt"}, {ID: "sqlite"}}, Created: t0}
			return Input{Session: session(t, claim("b", "w2")),
				FlowRuns:  []model.FlowRun{flowRun("run-2", model.FlowWaiting, map[string]any{"feature": "b", "agent_name": "w2"})},
				Decisions: []model.Decision{d}}
		}, []want{{name: "w2", feature: "b", state: WaitingDecision, detail: "Which store?", flow: "run-2", dec: "d2", since: t0}}},

		{"a failed flow run fails its agent", func(t *testing.T) Input {
			r := flowRun("run-3", model.FlowFailed, map[string]any{"feature": "a", "agent_name": "w1"})
			r.Error = "agent worker exited 1\ntrace"
			return Input{Session: session(t, claim("a", "w1")), FlowRuns: []model.FlowRun{r}}
		}, []want{{name: "w1", feature: "a", state: Failed, detail: "flow run failed: agent worker exited 1", flow: "run-3"}}},

		{"a paused flow run pauses its agent", func(t *testing.T) Input {
			r := flowRun("run-4", model.FlowInterrupted, map[string]any{"feature": "a", "agent_name": "w1"})
			r.PauseRequested = true
			return Input{Session: session(t, claim("a", "w1")), FlowRuns: []model.FlowRun{r}}
		}, []want{{name: "w1", feature: "a", state: Paused, detail: "paused at step work", since: t0.Add(2 * time.Minute)}}},

		{"an interrupted flow run (its process died) is a failure", func(t *testing.T) Input {
			r := flowRun("run-5", model.FlowInterrupted, map[string]any{"feature": "a", "agent_name": "w1"})
			return Input{Session: session(t, claim("a", "w1")), FlowRuns: []model.FlowRun{r}}
		}, []want{{name: "w1", feature: "a", state: Failed, detail: "no process executes"}}},

		{"an interrupted decision is a failure that waits", func(t *testing.T) Input {
			r := flowRun("run-6", model.FlowWaiting, map[string]any{"feature": "a", "agent_name": "w1"})
			d := model.Decision{ID: "d6", FlowRun: "run-6", Status: model.DecisionPending, Kind: model.DecisionInterrupted,
				Options: []model.DecisionOption{{ID: "retry"}, {ID: "skip"}, {ID: "cancel"}}}
			return Input{Session: session(t, claim("a", "w1")), FlowRuns: []model.FlowRun{r}, Decisions: []model.Decision{d}}
		}, []want{{name: "w1", feature: "a", state: Failed, detail: "cut off", dec: "d6"}}},

		{"an interrupted feature with no decision yet is a failure", func(t *testing.T) Input {
			return Input{Session: session(t, claim("a", "w1"), model.RunInterrupt{Feature: "a", Summary: "agent w1 exited 137\nmore"})}
		}, []want{{name: "w1", feature: "a", state: Failed, detail: "interrupted: agent w1 exited 137"}}},

		{"a resumed feature is worked on again", func(t *testing.T) Input {
			return Input{Session: session(t, claim("a", "w1"), model.RunInterrupt{Feature: "a"}, model.RunResume{Feature: "a"})}
		}, []want{{name: "w1", feature: "a", state: Working}}},

		{"the run flow's agent-failed question is a failure that waits", func(t *testing.T) Input {
			r := flowRun("run-12", model.FlowWaiting, map[string]any{"feature": "a", "agent_name": "worker-2"})
			d := model.Decision{ID: "d12", FlowRun: "run-12", Status: model.DecisionPending, Kind: model.DecisionChoice,
				Options: []model.DecisionOption{{ID: "retry"}, {ID: "reassign"}, {ID: "reset"}}}
			return Input{Session: session(t, claim("a", "worker-2")), FlowRuns: []model.FlowRun{r}, Decisions: []model.Decision{d}}
		}, []want{{name: "worker-2", feature: "a", state: Failed, detail: "retry, reassign or reset? (d12)", dec: "d12", flow: "run-12"}}},

		{"the crew's agent_name variable names the agent before it claims", func(t *testing.T) Input {
			r := flowRun("run-13", model.FlowRunning, map[string]any{"feature": "", "agent_name": "worker-3", "agent": "other"})
			r.Step = "start"
			return Input{Session: session(t), FlowRuns: []model.FlowRun{r}, Executing: live("run-13")}
		}, []want{{name: "worker-3", state: Working, detail: "step start", flow: "run-13"}}},

		{"a cancelled flow run with the claim still held fails", func(t *testing.T) Input {
			r := flowRun("run-7", model.FlowCancelled, map[string]any{"feature": "a", "agent_name": "w1"})
			return Input{Session: session(t, claim("a", "w1")), FlowRuns: []model.FlowRun{r}}
		}, []want{{name: "w1", feature: "a", state: Failed, detail: "cancelled"}}},

		{"an agent whose feature completed is idle since", func(t *testing.T) Input {
			acts := append([]model.Action{claim("a", "w1")}, done("a")...)
			r := flowRun("run-8", model.FlowCompleted, map[string]any{"feature": "a", "agent_name": "w1"})
			r.Ended = &ended
			return Input{Session: session(t, acts...), FlowRuns: []model.FlowRun{r}}
		}, []want{{name: "w1", feature: "a", state: Idle, detail: "completed a", since: ended}}},

		{"a harness's idle event is an idle agent", func(t *testing.T) Input {
			return Input{Session: session(t), Idle: []IdleEvent{{Agent: "opencode", At: t0}, {Agent: "bad name\x1b", At: t0}}}
		}, []want{{name: "opencode", state: Idle, since: t0}}},

		{"a blocked feature fails the agent that had it", func(t *testing.T) Input {
			return Input{Session: session(t, claim("a", "w1"), model.RunComplete{Feature: "a", Outcome: model.OutcomeBlocked, Summary: "no SMTP sandbox"})}
		}, []want{{name: "w1", feature: "a", state: Failed, detail: "blocked: no SMTP sandbox", since: t0.Add(5 * time.Second)}}},

		{"an unnamed claim is a row, after the named", func(t *testing.T) Input {
			return Input{Session: session(t, claim("a", ""), claim("b", "w1"))}
		}, []want{{name: "w1", feature: "b", state: Working}, {name: "", feature: "a", state: Working}}},

		{"names sort with their numbers", func(t *testing.T) Input {
			return Input{Session: session(t, claim("a", "worker-10"), claim("b", "worker-2"), claim("c", "worker-1"))}
		}, []want{{name: "worker-1", feature: "c", state: Working}, {name: "worker-2", feature: "b", state: Working}, {name: "worker-10", feature: "a", state: Working}}},

		{"the newest run is the agent's flow run's, else its feature's", func(t *testing.T) Input {
			runs := []model.RunRecord{
				{ID: "r5", FlowRun: "run-9", Internal: true},
				{ID: "r4", FlowRun: "run-other", Feature: "a", Outcome: model.RunRunning},
				{ID: "r3", FlowRun: "run-9", Outcome: model.RunRunning, Bytes: 42},
				{ID: "r2", Feature: "b", Outcome: "exited", Bytes: 7},
				{ID: "r1", FlowRun: "run-9"},
			}
			return Input{Session: session(t, claim("a", "w1"), claim("b", "w2")),
				FlowRuns: []model.FlowRun{flowRun("run-9", model.FlowRunning, map[string]any{"feature": "a", "agent_name": "w1"})}, Runs: runs, Executing: live("run-9")}
		}, []want{{name: "w1", feature: "a", state: Working, detail: "step work", flow: "run-9", run: "r3"}, {name: "w2", feature: "b", state: Working, run: "r2"}}},

		{"a flow run's feature variable names a feature or nothing", func(t *testing.T) Input {
			return Input{Session: session(t), FlowRuns: []model.FlowRun{flowRun("run-11", model.FlowRunning, map[string]any{"feature": "\x1b]0;x\x07", "agent_name": "w1"})}, Executing: live("run-11")}
		}, []want{{name: "w1", feature: "", state: Working, detail: "step work"}}},

		{"an `agent` variable names nobody: the engine reads only agent_name", func(t *testing.T) Input {
			return Input{Session: session(t), FlowRuns: []model.FlowRun{flowRun("run-14", model.FlowRunning, map[string]any{"feature": "a", "agent": "w1"})},
				Executing: live("run-14")}
		}, nil},

		{"a flow run without the agent variable whose feature nobody claims is nobody's", func(t *testing.T) Input {
			return Input{Session: session(t), FlowRuns: []model.FlowRun{flowRun("run-10", model.FlowRunning, map[string]any{"feature": "a"})}}
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Derive(c.in(t))
			if len(got) != len(c.want) {
				t.Fatalf("%d agents, want %d: %+v", len(got), len(c.want), got)
			}
			for i, w := range c.want {
				g := got[i]
				if g.Name != w.name || g.Feature != w.feature || g.State != w.state {
					t.Errorf("row %d: %q %q %q, want %q %q %q", i, g.Name, g.Feature, g.State, w.name, w.feature, w.state)
				}
				if !strings.Contains(g.Detail, w.detail) {
					t.Errorf("row %d: detail %q lacks %q", i, g.Detail, w.detail)
				}
				if !w.since.IsZero() && !g.Since.Equal(w.since) {
					t.Errorf("row %d: since %v, want %v", i, g.Since, w.since)
				}
				if w.flow != "" && g.FlowRun != w.flow || w.dec != "" && g.Decision != w.dec || w.run != "" && g.Run != w.run {
					t.Errorf("row %d: flow %q decision %q run %q, want %q %q %q", i, g.FlowRun, g.Decision, g.Run, w.flow, w.dec, w.run)
				}
			}
		})
	}
}

func TestElapsed(t *testing.T) {
	for d, want := range map[time.Duration]string{-time.Second: "0s", 40 * time.Second: "40s", 3 * time.Minute: "3m", 125 * time.Minute: "2h05m"} {
		if got := Elapsed(d); got != want {
			t.Errorf("Elapsed(%v) = %q, want %q", d, got, want)
		}
	}
}
