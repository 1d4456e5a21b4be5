package demo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// The crew plan is valid, allows 3 agents, and its critical path (4 of 12
// features) is what makes 3 agents take ≤ 45% of 1 agent's time.
func TestCrewPlanShape(t *testing.T) {
	p := CrewPlan()
	if err := model.ValidatePlan(&p); err != nil {
		t.Fatal(err)
	}
	levels := model.Levels(p.Features)
	if len(p.Features) != 12 || p.MaxParallel != CrewParallel || len(levels) != 4 {
		t.Fatalf("%d features, max_parallel %d, %d levels %v", len(p.Features), p.MaxParallel, len(levels), levels)
	}
	for _, id := range ConflictPair {
		if p.Feature(id) == nil {
			t.Fatalf("conflict pair feature %s is missing", id)
		}
	}
}

// The scripted worker builds the feature in its working directory (no git
// there: no commit) and answers completed; the reviewer approves.
func TestCrewAgentAnswers(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("FLOWDECK_FEATURE", "provider-github")
	t.Setenv("FLOWDECK_AGENT", "worker-2")
	t.Setenv("DEMO_WORK", "1ms")
	t.Setenv("DEMO_PIDS", "")
	var out bytes.Buffer
	if code := CrewAgent("worker", strings.NewReader("prompt"), &out); code != 0 || !strings.Contains(out.String(), `"outcome":"completed"`) {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	data, _ := os.ReadFile(filepath.Join(dir, "internal", "provider-github.go"))
	prov, _ := os.ReadFile(filepath.Join(dir, "internal", "oauth", "providers.go"))
	if !strings.HasPrefix(string(data), "// provider-github: built by worker-2.") || !strings.Contains(string(prov), "provider-github (added by worker-2)") {
		t.Fatalf("files: %q %q", data, prov)
	}
	out.Reset()
	t.Setenv("FLOWDECK_FEATURE", "../x")
	if CrewAgent("worker", strings.NewReader(""), &out); !strings.Contains(out.String(), `"outcome":"blocked"`) {
		t.Fatalf("a feature path was accepted: %s", out.String())
	}
	out.Reset()
	if CrewAgent("reviewer", strings.NewReader(""), &out); !strings.Contains(out.String(), `"verdict":"approved"`) {
		t.Fatalf("reviewer: %s", out.String())
	}
}
