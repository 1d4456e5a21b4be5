package fleet

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/gittest"
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

// reviews are the reviews recorded on feature in p's active session.
func reviews(t *testing.T, p *project.Project, feature string) []model.Review {
	t.Helper()
	s, err := p.Active()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Plan.Features {
		if f.ID == feature {
			return f.Reviews
		}
	}
	t.Fatalf("no feature %s", feature)
	return nil
}

// personVia checks that the one review on feature in p is the person's
// (named person), recorded as coming from via.
func personVia(t *testing.T, p *project.Project, feature, person, via string) {
	t.Helper()
	rs := reviews(t, p, feature)
	if len(rs) != 1 || rs[0].Actor != person {
		t.Fatalf("reviews of %s: %+v, want one by %s", feature, rs, person)
	}
	s, _ := p.Active()
	for _, h := range s.Execution.History {
		if h.Seq == rs[0].Seq {
			if h.Actor != person || h.Via != via {
				t.Fatalf("the review's history item: %+v, want %s via %s", h, person, via)
			}
			return
		}
	}
	t.Fatalf("no history item for the review at %d", rs[0].Seq)
}

// A fleet over two real local projects (served in process) shows both
// with their goals and waits; the person's review and decision from the
// queue are applied once, recorded as the person's with where they came
// from: the same answer again, made stale by the first, is refused. A write from elsewhere reaches the fleet by the project's
// change notification.
func TestLocalFleet(t *testing.T) {
	dirA, pa := newProject(t, "alpha goal")
	dirB, pb := newProject(t, "beta goal")
	awaitingReview(t, pb)
	decision := addDecision(t, dirB)

	f := Open([]Entry{{Name: "alpha", Dir: dirA}, {Name: "beta", Dir: dirB}}, Options{Version: "test-1", Origin: "fleet@test", Actor: "ann", CallTimeout: 30 * time.Second})
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
	personVia(t, pb, "parser", "ann", "fleet@test")

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
	if d, err := pb.Decision(decision); err != nil || d.Resolution == nil || d.Resolution.Option != "yes" ||
		d.Resolution.Actor != "ann" || d.Resolution.Via != "fleet@test" {
		t.Fatalf("the decision: %v %+v", err, d)
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

// A local project whose database another process holds (bbolt's lock)
// does not answer: an answer to it fails after the call timeout and the
// project shows unreachable, without holding up Statuses or the project
// beside it; it answers again once the lock is let go.
func TestLocalProjectBusy(t *testing.T) {
	busyDir, _ := newProject(t, "busy")
	okDir, pok := newProject(t, "ok")
	f := Open([]Entry{{Name: "busy", Dir: busyDir}, {Name: "ok", Dir: okDir}}, Options{CallTimeout: time.Second})
	defer f.Close()
	waitFor(t, f, "both reachable", time.Second/2, func(st []Status) bool { return st[0].Reach == Reachable && st[1].Reach == Reachable })

	holder, err := bolt.Open(filepath.Join(busyDir, db.DBFile), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	answered := make(chan error, 1)
	go func() {
		_, err := f.Resolve(t.Context(), "busy", "d1", "yes", "")
		answered <- err
	}()
	// The other project changes meanwhile, and is seen to.
	do(t, pok.As("human"), model.PlanApprove{})
	st := waitFor(t, f, "busy unreachable, ok up to date", time.Second/2, func(st []Status) bool {
		return st[0].Reach == Unreachable && len(kinds(st[1])) == 0
	})
	if err := <-answered; err == nil || !strings.Contains(err.Error(), "no answer within 1s (decision_resolve)") {
		t.Fatalf("the answer to the busy project: %v", err)
	}
	if !strings.HasPrefix(st[0].Err, "no answer within 1s (") || st[0].Glance == nil {
		t.Fatalf("busy: %+v", st[0])
	}
	holder.Close()
	waitFor(t, f, "busy reachable again", time.Second/2, func(st []Status) bool { return st[0].Reach == Reachable })
}

// A feature's change, as the project's diff tool gives it: its lines and
// tabs kept, the escape sequences its code holds gone.
func TestDiff(t *testing.T) {
	dir := gittest.Repo(t, "the diff needs the git program on PATH", map[string]string{"README": "hi\n"})
	p, err := project.Open(dir, project.Options{AsRoot: true, Actor: "agent-1"})
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := model.ParsePlan([]byte(`{"features": [{"id": "greet", "title": "Greet"}, {"id": "bye", "title": "Bye"}]}`))
	do(t, p, model.PlanStart{Goal: "diff"})
	do(t, p, model.PlanApply{Plan: *plan})
	do(t, p.As("human"), model.PlanApprove{})
	do(t, p, model.RunStart{Feature: "greet"})
	code := "package greet\n\nfunc Hello() string {\n\treturn \"\x1b]0;owned\x07\x1b[31mhello\u202e\"\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "greet.go"), []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	f := Open([]Entry{{Name: "p", Dir: dir}}, Options{})
	defer f.Close()
	waitFor(t, f, "reachable", time.Second, func(st []Status) bool { return st[0].Reach == Reachable })
	diff, err := f.Diff(t.Context(), "p", "greet")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diff, "+func Hello() string {\n+\treturn \"hello\"\n") || strings.ContainsAny(diff, "\x1b\x07\u202e") {
		t.Fatalf("diff:\n%q", diff)
	}
	// No feature: the session's whole change, what a final review decides
	// on: greet's code, completed, and bye's, active, where bye's own diff
	// holds only its own.
	do(t, p, model.Validate{Feature: "greet", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test", Source: model.SourceReported})
	do(t, p.As("human"), model.ReviewFeature{Feature: "greet", Decision: model.ReviewApproved})
	do(t, p, model.RunComplete{Feature: "greet", Outcome: model.OutcomeCompleted, Summary: "done"})
	do(t, p, model.RunStart{Feature: "bye"})
	if err := os.WriteFile(filepath.Join(dir, "bye.go"), []byte("package greet\n\nfunc Bye() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bye, err := f.Diff(t.Context(), "p", "bye")
	if err != nil {
		t.Fatal(err)
	}
	whole, err := f.Diff(t.Context(), "p", "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(bye, "Hello") || !strings.Contains(bye, "+func Bye() {}") {
		t.Fatalf("bye's diff:\n%s", bye)
	}
	if !strings.Contains(whole, "+func Hello() string {") || !strings.Contains(whole, "+func Bye() {}") || strings.ContainsAny(whole, "\x1b\x07\u202e") {
		t.Fatalf("the session's diff:\n%s", whole)
	}
}
