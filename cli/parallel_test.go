package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// Two agents claim features of a max_parallel 2 plan through the real
// binary: flow status shows both with their agents and next steps, a third
// claim is refused with max_parallel_reached (exit 3), and the log replays.
func TestParallelClaimsThroughTheBinary(t *testing.T) {
	dir := t.TempDir()
	plan := `{"summary":"p","max_parallel":2,"features":[
		{"id":"api","title":"API"},{"id":"ui","title":"UI"},{"id":"docs","title":"Docs"},
		{"id":"release","title":"Release","depends_on":["api","ui","docs"]},
		{"id":"client","title":"Client","depends_on":["api"]}]}`
	if err := os.WriteFile(filepath.Join(dir, "plan.json"), []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	must := func(args ...string) string {
		t.Helper()
		out, errs, code := flowdeck(t, dir, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s %s", args, code, out, errs)
		}
		return out
	}
	must("flow", "plan", "start", "parallel")
	must("flow", "plan", "apply", filepath.Join(dir, "plan.json"))
	must("flow", "plan", "approve")
	// api has the longest remaining chain (api -> client/release): first.
	if out := must("flow", "run", "start", "--agent", "w1"); !strings.Contains(out, "started api for agent w1") {
		t.Fatalf("first claim: %s", out)
	}
	must("flow", "run", "start", "docs", "--agent", "w2")

	out := must("flow", "status")
	for _, want := range []string{
		"active:   api (agent w1), docs (agent w2)",
		"in_progress       @w1",
		"next: flowdeck flow validate docs",
		"  api (agent w1): flowdeck flow validate api",
		"  docs (agent w2): flowdeck flow validate docs",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("flow status lacks %q:\n%s", want, out)
		}
	}

	out, _, code := flowdeck(t, dir, "--json", "flow", "run", "start", "--agent", "w3")
	if e := oneError(t, "third claim", out); code != ExitRejected || e.Code != model.CodeMaxParallelReached {
		t.Fatalf("third claim: exit %d, %s", code, out)
	}

	var st struct {
		Session struct {
			Plan struct {
				Features []struct{ ID, Agent string }
			}
		}
	}
	out = must("--json", "flow", "status")
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	agents := map[string]string{}
	for _, f := range st.Session.Plan.Features {
		agents[f.ID] = f.Agent
	}
	if agents["api"] != "w1" || agents["docs"] != "w2" || agents["ui"] != "" {
		t.Fatalf("agents in flow status --json: %v\n%s", agents, out)
	}

	must("flow", "validate", "docs", "--status", "passed", "--scope", "targeted", "--command", "true")
	must("flow", "review", "docs", "--decision", "approved")
	must("flow", "run", "complete", "docs", "--outcome", "completed")
	if out := must("flow", "run", "start", "--agent", "w2"); !strings.Contains(out, "started ui for agent w2") {
		t.Fatalf("claim after docs completed: %s", out)
	}
	must("flow", "verify")
}
