package fleet

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/project"
)

// newProject makes a project in a temp dir with a session whose plan waits
// for approval (goal: goal), and returns its root and a handle acting as
// the agent "agent-1".
func newProject(t *testing.T, goal string) (string, *project.Project) {
	t.Helper()
	dir := t.TempDir()
	p, err := project.Open(dir, project.Options{AsRoot: true, Actor: "agent-1"})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := model.ParsePlan([]byte(`{"summary": "p", "features": [{"id": "parser", "title": "Parser"}, {"id": "lexer", "title": "Lexer"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	do(t, p, model.PlanStart{Goal: goal})
	do(t, p, model.PlanApply{Plan: *plan})
	return dir, p
}

// do executes an action that must be accepted.
func do(t *testing.T, p *project.Project, a model.Action) *ops.ActionResult {
	t.Helper()
	res, err := p.Do(a, 0, false)
	if err != nil {
		t.Fatalf("%s: %v", a.Name(), err)
	}
	if !res.OK {
		t.Fatalf("%s refused: %+v", a.Name(), res.Error)
	}
	return res
}

// awaitingReview brings p's session to parser waiting for its review: the
// plan approved by the person, parser claimed by worker-1 and validated.
func awaitingReview(t *testing.T, p *project.Project) {
	t.Helper()
	do(t, p.As("human"), model.PlanApprove{})
	do(t, p, model.RunStart{Feature: "parser", Agent: "worker-1"})
	do(t, p, model.Validate{Feature: "parser", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test", Source: model.SourceReported})
}

// addDecision stores a flow's pending question in the project at dir.
func addDecision(t *testing.T, dir string) string {
	t.Helper()
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := st.CreateDecision(&model.Decision{Kind: model.DecisionChoice, Prompt: "Ship it?",
		Options: []model.DecisionOption{{ID: "yes"}, {ID: "no"}}}, "flow", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return d.ID
}

// kinds are the kinds of what waits in a status's glance.
func kinds(s Status) []string {
	if s.Glance == nil {
		return nil
	}
	var out []string
	for _, w := range s.Glance.Waits {
		out = append(out, w.Kind)
	}
	return out
}

// item finds the queue's item of project and kind.
func item(t *testing.T, f *Fleet, project, kind string) Item {
	t.Helper()
	for _, it := range f.Queue() {
		if it.Project == project && it.Wait.Kind == kind {
			return it
		}
	}
	t.Fatalf("no %s of %s in the queue %+v", kind, project, f.Queue())
	return Item{}
}

// reviews counts the reviews recorded on feature in the project at dir.
func reviews(t *testing.T, p *project.Project, feature string) int {
	t.Helper()
	s, err := p.Active()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Plan.Features {
		if f.ID == feature {
			return len(f.Reviews)
		}
	}
	t.Fatalf("no feature %s", feature)
	return 0
}

// A fleet over two real local projects (served in process) shows both
// with their goals and waits; the person's review and decision from the
// queue are applied once: the same answer again, made stale by the first,
// is refused. A write from elsewhere reaches the fleet by the project's
// change notification.
func TestLocalFleet(t *testing.T) {
	dirA, pa := newProject(t, "alpha goal")
	dirB, pb := newProject(t, "beta goal")
	awaitingReview(t, pb)
	decision := addDecision(t, dirB)

	f := Open([]Entry{{Name: "alpha", Dir: dirA}, {Name: "beta", Dir: dirB}}, Options{Version: "test-1", CallTimeout: 30 * time.Second})
	defer f.Close()
	st := waitFor(t, f, "both reachable with their waits", time.Second, func(st []Status) bool {
		return st[0].Reach == Reachable && st[1].Reach == Reachable && len(kinds(st[1])) == 2
	})
	if g := st[0].Glance; g.Goal != "alpha goal" || g.Root != dirA || !slices.Equal(kinds(st[0]), []string{ops.FleetWaitPlan}) {
		t.Errorf("alpha: %+v", g)
	}
	if g := st[1].Glance; g.Goal != "beta goal" || len(g.Active) != 1 || g.Active[0].Agent != "worker-1" ||
		!slices.Equal(kinds(st[1]), []string{ops.FleetWaitReview, ops.FleetWaitDecision}) {
		t.Errorf("beta: %+v", g)
	}
	if st[0].Version != "test-1" {
		t.Errorf("version %q", st[0].Version)
	}
	if q := f.Queue(); len(q) != 3 {
		t.Fatalf("queue: %+v", q)
	}

	// The review, from the queue, with the sequence it was seen at.
	rv := item(t, f, "beta", ops.FleetWaitReview)
	if me, err := f.Review(t.Context(), "beta", rv.Wait.Feature, false, "approved", []string{"fine"}, rv.Seq); err != nil || me != nil {
		t.Fatalf("review: %v %+v", err, me)
	}
	me, err := f.Review(t.Context(), "beta", rv.Wait.Feature, false, "approved", nil, rv.Seq)
	if err != nil || me == nil || me.Code != model.CodeStaleDecision {
		t.Fatalf("the same review again: %v %+v", err, me)
	}
	if n := reviews(t, pb, "parser"); n != 1 {
		t.Fatalf("%d reviews recorded", n)
	}

	// The decision, answered once.
	dv := item(t, f, "beta", ops.FleetWaitDecision)
	if dv.Wait.Decision != decision || dv.Wait.Reason != "Ship it?" || len(dv.Wait.Options) != 2 {
		t.Fatalf("decision wait: %+v", dv.Wait)
	}
	if me, err := f.Resolve(t.Context(), "beta", decision, "yes", "from the fleet"); err != nil || me != nil {
		t.Fatalf("resolve: %v %+v", err, me)
	}
	if me, err := f.Resolve(t.Context(), "beta", decision, "no", ""); err != nil || me == nil || me.Code != model.CodeDecisionNotPending {
		t.Fatalf("resolve again: %v %+v", err, me)
	}
	waitFor(t, f, "beta's glance without its answered waits", time.Second, func(st []Status) bool { return len(kinds(st[1])) == 0 })

	// A write elsewhere: the plan approved outside the fleet.
	do(t, pa.As("human"), model.PlanApprove{})
	waitFor(t, f, "alpha's approval seen", time.Second, func(st []Status) bool { return st[0].Glance != nil && len(kinds(st[0])) == 0 })

	// The diff of a project outside git is the project's refusal.
	if _, err := f.Diff(t.Context(), "beta", "parser"); err == nil || !strings.Contains(err.Error(), "diff of parser refused") {
		t.Fatalf("diff: %v", err)
	}
}

// A local project whose directory is gone is unreachable, saying so; its
// neighbour is not held up.
func TestLocalProjectGone(t *testing.T) {
	dir, _ := newProject(t, "here")
	gone := filepath.Join(t.TempDir(), "gone")
	f := Open([]Entry{{Name: "gone", Dir: gone}, {Name: "here", Dir: dir}}, Options{})
	defer f.Close()
	st := waitFor(t, f, "settled", time.Second, settled)
	if st[0].Reach != Unreachable || !strings.Contains(st[0].Err, "not a directory") || st[1].Reach != Reachable {
		t.Fatalf("%+v", st)
	}
}
