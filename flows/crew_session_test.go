package flows

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/model"
)

// A crew run left by a scheduler of a session since archived is not adopted
// by a scheduler of the session now active: it would resume work on a
// feature of another session (whose feature of the same id it would claim).
func TestCrewAdoptsOnlyTheActiveSessionsRuns(t *testing.T) {
	e, _ := project(t, nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := e.Store.Do(model.PlanStart{ID: "old", Goal: "old goal"}, "tester", now); err != nil {
		t.Fatal(err)
	}
	id, err := e.Store.ReserveFlowRunID("auto")
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]any{VarCrew: true, VarFeature: "f1", VarAgent: "worker-1"}
	if _, err := e.Store.CreateFlowRun(&model.FlowRun{ID: id, Flow: "auto"}, "start", vars, "tester", now); err != nil {
		t.Fatal(err)
	}
	c := &Crew{Engine: e, Flow: &flowfile.Flow{Name: "auto"}}
	active := func() *model.Session {
		s, err := e.Store.Active()
		if err != nil || s == nil {
			t.Fatalf("active session: %v", err)
		}
		return s
	}
	if orphans, _, err := c.orphans(active()); err != nil || len(orphans) != 1 {
		t.Fatalf("the session's own crew run is not adopted: %d orphans", len(orphans))
	}
	if _, err := e.Store.Do(model.PlanStart{ID: "new", Goal: "new goal", Replaces: "old"}, "tester", now); err != nil {
		t.Fatal(err)
	}
	if orphans, claimed, err := c.orphans(active()); err != nil || len(orphans) != 0 || claimed["f1"] {
		t.Fatalf("another session's run adopted: %d orphans, claimed %v", len(orphans), claimed)
	}
}

// approvedSession gives e's store an approved session of one feature, f1.
func approvedSession(t *testing.T, e *Engine) *model.Session {
	t.Helper()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, a := range []model.Action{
		model.PlanStart{ID: "s1", Goal: "goal"},
		model.PlanApply{Plan: model.Plan{Summary: "plan", Features: []model.Feature{{ID: "f1", Title: "Feature f1"}}}},
		model.PlanApprove{},
	} {
		if _, err := e.Store.Do(a, "tester", now); err != nil {
			t.Fatalf("%s: %v", a.Name(), err)
		}
	}
	s, err := e.Store.Active()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// storeDo is a crew's action path straight to the store (no worktrees).
func storeDo(e *Engine) func(model.Action, string) ([]model.Event, error) {
	return func(a model.Action, actor string) ([]model.Event, error) {
		out, err := e.Store.Do(a, actor, e.now())
		if out == nil {
			return nil, err
		}
		return out.Events, err
	}
}

// The scheduler's own vars (feature, agent_name, crew) win over a caller's:
// a var must not move every slot to one feature or agent, or make the runs
// un-adoptable.
func TestCrewVarsCannotOverrideTheSchedulers(t *testing.T) {
	e, _ := project(t, nil)
	approvedSession(t, e)
	f := parse(t, "run.md", "---\nliterate: true\nargs: [feature]\n---\n```yaml {config}\nstep: one\nstop: true\n```\ndone\n")
	c := &Crew{Engine: e, Flow: f, Source: "run.md", Parallel: 1, Do: storeDo(e),
		Vars: map[string]any{VarFeature: "other", VarAgent: "intruder", VarCrew: false, "keep": "me"}}
	rep, err := c.Run(context.Background())
	if err != nil || len(rep.Runs) != 1 {
		t.Fatalf("%v: %+v", err, rep)
	}
	run, err := e.Store.FlowRun(rep.Runs[0].Run)
	if err != nil {
		t.Fatal(err)
	}
	if run.Vars[VarFeature] != "f1" || run.Vars[VarAgent] != "worker-1" || run.Vars[VarCrew] != true || run.Vars["keep"] != "me" {
		t.Fatalf("vars %v", run.Vars)
	}
}

// A crew without an action path is refused before it claims anything: the
// store's own Do would skip the worktrees and the redaction.
func TestCrewNeedsAnActionPath(t *testing.T) {
	e, _ := project(t, nil)
	s := approvedSession(t, e)
	c := &Crew{Engine: e, Flow: &flowfile.Flow{Name: "run"}, Parallel: 1}
	if rep, err := c.Run(context.Background()); err == nil || rep != nil {
		t.Fatalf("%v %+v", err, rep)
	}
	if after, _ := e.Store.Active(); len(model.ActiveClaims(after)) != 0 || after.Seq != s.Seq {
		t.Fatalf("claims %v", model.ActiveClaims(after))
	}
}

// A second scheduler on a session (its crew lock held) is refused with
// scheduler_running before it claims anything.
func TestCrewRefusedWhileAnotherSchedulerRuns(t *testing.T) {
	e, _ := project(t, nil)
	s := approvedSession(t, e)
	lock, err := tryLock(e.Store, "crew-"+s.ID)
	if err != nil || lock == nil {
		t.Fatalf("lock: %v", err)
	}
	defer lock.release()
	evs, _ := e.Store.Events(s.ID, 0, 0)
	c := &Crew{Engine: e, Flow: &flowfile.Flow{Name: "run"}, Parallel: 2, Do: storeDo(e)}
	rep, err := c.Run(context.Background())
	if me, ok := model.AsError(err); !ok || me.Code != model.CodeSchedulerRunning || rep != nil {
		t.Fatalf("%v %+v", err, rep)
	}
	if after, _ := e.Store.Events(s.ID, 0, 0); len(after) != len(evs) {
		t.Fatalf("events went from %d to %d", len(evs), len(after))
	}
}

// A crew lock that cannot be opened is an error of its own, not another
// scheduler.
func TestCrewLockFaultIsNotSchedulerRunning(t *testing.T) {
	e, _ := project(t, nil)
	s := approvedSession(t, e)
	if err := os.MkdirAll(filepath.Join(e.Root, ".flow", "flowruns", "crew-"+s.ID+".lock"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := &Crew{Engine: e, Flow: &flowfile.Flow{Name: "run"}, Parallel: 1, Do: storeDo(e)}
	_, err := c.Run(context.Background())
	if _, refused := model.AsError(err); err == nil || refused || !strings.Contains(err.Error(), "crew lock") {
		t.Fatalf("%v", err)
	}
}

// An adopted run is booked under the agent it acts as (its agent_name),
// even when another adopted run has the same one.
func TestCrewAdoptsUnderTheRunsOwnAgent(t *testing.T) {
	e, _ := project(t, nil)
	approvedSession(t, e)
	src := "---\nliterate: true\nargs: [feature]\n---\n```yaml {config}\nstep: one\nstop: true\n```\ndone\n"
	f := parse(t, "run.md", src)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, feature := range []string{"f1", "f2"} {
		id, err := e.Store.ReserveFlowRunID("run")
		if err != nil {
			t.Fatal(err)
		}
		vars := map[string]any{VarCrew: true, VarFeature: feature, VarAgent: "worker-7"}
		if _, err := e.Store.CreateFlowRun(&model.FlowRun{ID: id, Flow: "run", Source: "run.md", Hash: f.Hash, Text: src}, "one", vars, "tester", now); err != nil {
			t.Fatal(err)
		}
	}
	c := &Crew{Engine: e, Flow: f, Source: "run.md", Parallel: 1, Do: storeDo(e)}
	rep, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	adopted := 0
	for _, r := range rep.Runs {
		if r.Adopted {
			adopted++
			if r.Agent != "worker-7" {
				t.Errorf("run %s on %s booked under %s", r.Run, r.Feature, r.Agent)
			}
		}
	}
	if adopted != 2 {
		t.Fatalf("adopted %d: %+v", adopted, rep.Runs)
	}
}
