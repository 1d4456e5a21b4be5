package ops

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/flowdeck/flowdeck/model"
)

// glance builds the fleet glance of the seed's store.
func (s *seed) glance() *FleetGlance {
	s.t.Helper()
	g, err := BuildFleetGlance(s.st, "/the/root")
	if err != nil {
		s.t.Fatal(err)
	}
	return g
}

func kinds(ws []FleetWait) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Kind+" "+w.Label)
	}
	return out
}

// A project without a database (nil store) is a glance with no session:
// the API version and the root are always there.
func TestFleetGlanceWithoutDatabase(t *testing.T) {
	g, err := BuildFleetGlance(nil, "/r")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(g)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m["ok"] != true || m["api"] != float64(FleetAPI) || m["root"] != "/r" || m["status"] != "no active session" || m["waits"] != nil {
		t.Fatalf("glance %s", data)
	}
}

// The glance says progress, the features in progress with their agents and
// what waits, oldest first: a flow's decision made before a review was
// asked comes before it (the cockpit lists session waits first), with its
// prompt and options; a flow that asks for a feature's review itself is
// counted once, as its decision, named by the feature its run works on.
func TestFleetGlanceWaitsOldestFirstAndCountedOnce(t *testing.T) {
	s := newSeed(t)
	s.do(model.PlanStart{Goal: "ship it"})
	s.do(model.PlanApply{Plan: model.Plan{Summary: "p", MaxParallel: 2, Features: []model.Feature{
		{ID: "a", Title: "Alpha", Verification: []string{"true"}},
		{ID: "b", Title: "Beta", Verification: []string{"true"}},
	}}})
	s.do(model.PlanApprove{})
	s.do(model.RunStart{Feature: "a", Agent: "worker-1"})
	s.do(model.RunStart{Feature: "b", Agent: "worker-2"})
	early := s.now.Add(-time.Hour)
	if _, err := s.st.CreateFlowRun(&model.FlowRun{ID: "ask-1", Flow: "ask", Source: "builtin:ask", MaxSteps: 10}, "start", nil, "agent", early); err != nil {
		t.Fatal(err)
	}
	d, _, err := s.st.CreateDecision(&model.Decision{FlowRun: "ask-1", Flow: "ask", Step: "pick", Kind: model.DecisionChoice, Prompt: "Which database?",
		Options: []model.DecisionOption{{ID: "pg", Description: "PostgreSQL"}, {ID: "sqlite"}}}, "agent", early)
	if err != nil {
		t.Fatal(err)
	}
	s.do(model.Validate{Feature: "a", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "true", Source: model.SourceObserved})
	evAt := s.now
	s.do(model.Validate{Feature: "b", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "true", Source: model.SourceObserved})

	g := s.glance()
	sess, _ := s.st.Active()
	if !g.OK || g.API != FleetAPI || g.Root != "/the/root" || g.Seq != sess.Seq || g.Session != sess.ID || g.Goal != "ship it" ||
		g.Done != 0 || g.Total != 2 || g.NextCommand == "" || !g.LastActivity.Equal(s.now) {
		t.Fatalf("glance %+v", g)
	}
	if len(g.Active) != 2 || g.Active[0] != (FleetActive{Feature: "a", Title: "Alpha", Agent: "worker-1", State: string(model.StateAwaitingReview)}) {
		t.Fatalf("active %+v", g.Active)
	}
	want := []string{"decision decision ask-1 pick", "review review a", "review review b"}
	if got := kinds(g.Waits); !slices.Equal(got, want) {
		t.Fatalf("waits %q, want %q", got, want)
	}
	dw := g.Waits[0]
	if dw.Decision != d.ID || dw.Key != DecisionWaitKey(d.ID) || dw.Reason != "Which database?" || !dw.Since.Equal(early) ||
		len(dw.Options) != 2 || dw.Options[0] != (FleetOption{ID: "pg", Label: "PostgreSQL"}) {
		t.Fatalf("decision wait %+v", dw)
	}
	if w := g.Waits[1]; w.Feature != "a" || !w.Since.Equal(evAt) {
		t.Fatalf("review wait %+v (evidence at %v)", w, evAt)
	}

	// worker-1's run flow asks for a's review itself: one wait for it.
	if _, err := s.st.CreateFlowRun(&model.FlowRun{ID: "run-1", Flow: "run", Source: "builtin:run", MaxSteps: 10}, "review",
		map[string]any{"feature": "a"}, "worker-1", s.now); err != nil {
		t.Fatal(err)
	}
	rd, _, err := s.st.CreateDecision(&model.Decision{FlowRun: "run-1", Flow: "run", Step: "review", Kind: model.DecisionChoice, Prompt: "Review a",
		Options: []model.DecisionOption{{ID: "approved"}, {ID: "needs_fix"}}}, "worker-1", s.now.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	g = s.glance()
	want = []string{"decision decision ask-1 pick", "review review b", "decision decision run-1 review"}
	if got := kinds(g.Waits); !slices.Equal(got, want) {
		t.Fatalf("waits %q, want %q", got, want)
	}
	if w := g.Waits[2]; w.Decision != rd.ID || w.Feature != "a" {
		t.Fatalf("the run's review decision %+v", w)
	}
}

// The glance bounds the store's text: a goal of many kilobytes, a
// decision with a long prompt and many options.
func TestFleetGlanceBoundsText(t *testing.T) {
	s := newSeed(t)
	s.do(model.PlanStart{Goal: strings.Repeat("é", 20_000)})
	var opts []model.DecisionOption
	for i := range 40 {
		opts = append(opts, model.DecisionOption{ID: fmt.Sprintf("o%d", i), Description: strings.Repeat("x", 1000)})
	}
	if _, _, err := s.st.CreateDecision(&model.Decision{Kind: model.DecisionChoice, Prompt: strings.Repeat("?", 10_000), Options: opts}, "agent", s.now); err != nil {
		t.Fatal(err)
	}
	g := s.glance()
	if n := utf8.RuneCountInString(g.Goal); n != fleetTextMax {
		t.Fatalf("goal of %d runes", n)
	}
	w := g.Waits[0]
	if len(w.Reason) != fleetPromptMax || len(w.Options) != fleetOptionsMax || len(w.Options[0].Label) != fleetLabelMax {
		t.Fatalf("prompt of %d, %d options, label of %d", len(w.Reason), len(w.Options), len(w.Options[0].Label))
	}
}
