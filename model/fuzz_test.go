package model_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// FuzzParsePlan feeds arbitrary documents to ParsePlan and ValidatePlan. They
// must never panic; a plan they accept must be a real DAG of valid ids that a
// session can take. The seed corpus is in testdata/fuzz/FuzzParsePlan.
func FuzzParsePlan(f *testing.F) {
	f.Add([]byte(examplePlan))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := model.ParsePlan(data)
		if err != nil {
			if p != nil {
				t.Fatalf("ParsePlan returned a plan and an error: %v", err)
			}
			return
		}
		verr := model.ValidatePlan(p)
		if verr != nil {
			e, ok := model.AsError(verr)
			if !ok || !strings.HasPrefix(e.Code, "plan_") || e.Message == "" || e.Recovery.NextCommand == "" {
				t.Fatalf("ValidatePlan error %#v is not a structured plan error", verr)
			}
			return
		}
		for _, f := range p.Features {
			if !model.ValidFeatureID(f.ID) {
				t.Fatalf("accepted invalid id %q", f.ID)
			}
		}
		levels := model.Levels(p.Features)
		if levels == nil {
			t.Fatal("accepted plan has no levels")
		}
		if c := model.FindCycle(p.Features); c != nil {
			t.Fatalf("accepted plan has cycle %v", c)
		}
		// Every feature sits in exactly one level, after everything it waits for.
		level := map[string]int{}
		for i, l := range levels {
			for _, id := range l {
				if _, dup := level[id]; dup {
					t.Fatalf("%s in two levels", id)
				}
				level[id] = i
			}
		}
		for _, f := range p.Features {
			li, ok := level[f.ID]
			if !ok {
				t.Fatalf("%s in no level", f.ID)
			}
			for _, d := range slices.Concat(f.DependsOn, f.BlockedBy) {
				if level[d] >= li {
					t.Fatalf("%s (level %d) waits for %s (level %d)", f.ID, li, d, level[d])
				}
			}
		}
		// Encoding the plan and parsing it again gives the same plan.
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		again, err := model.ParsePlan(b)
		if err != nil {
			t.Fatalf("re-parsing %s: %v", b, err)
		}
		if b2, _ := json.Marshal(again); string(b2) != string(b) {
			t.Fatalf("round trip changed the plan:\n%s\n%s", b, b2)
		}
		// A session takes the plan unless its completion count is negative.
		r := &testRig{t: t, now: baseTime, actor: "fuzz"}
		r.do(model.PlanStart{ID: "fuzz", Goal: "fuzz"})
		_, err = r.exec(model.PlanApply{Plan: *p})
		if (err != nil) != (p.Completion.MinCompletedFeatures < 0) {
			t.Fatalf("PlanApply of an accepted plan: %v", err)
		}
		if err == nil {
			if got := model.Runnable(r.s.Plan); len(got) == 0 || !slices.Contains(levels[0], got[0]) {
				t.Fatalf("Runnable %v, want the first level %v", got, levels[0])
			}
		}
	})
}

// validFeatureIDReference is the id rule written out by hand: 1 to 64
// characters, lowercase ASCII letters, digits and single hyphens between them.
func validFeatureIDReference(id string) bool {
	if len(id) == 0 || len(id) > 64 || id[0] == '-' || id[len(id)-1] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-':
			if id[i-1] == '-' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// kebabRE is the documented id rule; ValidFeatureID checks it with a loop.
var kebabRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// FuzzFeatureID checks ValidFeatureID against the hand-written reference. The
// seed corpus is in testdata/fuzz/FuzzFeatureID.
func FuzzFeatureID(f *testing.F) {
	f.Add("feature-1")
	f.Fuzz(func(t *testing.T, id string) {
		got, want := model.ValidFeatureID(id), validFeatureIDReference(id)
		if got != want {
			t.Fatalf("ValidFeatureID(%q) = %v, reference says %v", id, got, want)
		}
		if re := len(id) <= 64 && kebabRE.MatchString(id); got != re {
			t.Fatalf("ValidFeatureID(%q) = %v, the documented regexp says %v", id, got, re)
		}
		if got {
			// A valid id is safe as a file name and needs no shell quoting.
			if model.ShellQuote(id) != id || strings.ContainsAny(id, "/.\\ ") {
				t.Fatalf("valid id %q is not path and shell safe", id)
			}
			p := mkPlan(model.Feature{ID: id, Title: "t"})
			if err := model.ValidatePlan(&p); err != nil {
				t.Fatalf("a plan of the single valid id %q: %v", id, err)
			}
		}
	})
}
