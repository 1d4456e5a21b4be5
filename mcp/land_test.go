package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/internal/gittest"

	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/ops"
)

// gitIn runs git in dir and returns its trimmed output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gittest.Git(t, dir, args...)
}

// flow_land through the real server: refused while the session runs,
// with force it lands what is merged so far on main, and its result is the
// object `flowdeck --json flow land` prints.
func TestFlowLand(t *testing.T) {
	if !gitwork.Available() {
		t.Skip("git is not installed: flow_land needs the git program on PATH")
	}
	dir := gittest.Repo(t, "flow_land needs the git program on PATH", map[string]string{"a.txt": "one\n"})

	cs := connect(t, dir, nil)
	mustOK(t, cs, "flow_plan_start", map[string]any{"goal": "land"})
	mustOK(t, cs, "flow_plan_apply", map[string]any{"plan": map[string]any{"summary": "p", "max_parallel": 2,
		"features": []any{map[string]any{"id": "a", "title": "A"}, map[string]any{"id": "b", "title": "B"}}}})
	mustOK(t, cs, "flow_plan_approve", nil)
	start := mustOK(t, cs, "flow_run_start", map[string]any{"feature_id": "a", "agent": "w1"})
	wt, _ := start["git"].(map[string]any)["worktree"].(string)
	if wt != filepath.Join(dir, ".flow", "worktrees", "a") {
		t.Fatalf("claim of a: %v", start)
	}
	if err := os.WriteFile(filepath.Join(wt, "fa.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustOK(t, cs, "run", map[string]any{"command": []any{"test", "-f", "fa.txt"}, "feature_id": "a"})
	mustOK(t, cs, "flow_review_record_feature", map[string]any{"feature_id": "a", "decision": "approved"})
	mustOK(t, cs, "flow_run_complete_feature", map[string]any{"feature_id": "a", "outcome": "completed"})

	out, isErr := call(t, cs, "flow_land", nil)
	if e, _ := out["error"].(map[string]any); !isErr || out["ok"] != false || e["code"] != ops.CodeNotLandable {
		t.Fatalf("land of a running session: %v (isError %v)", out, isErr)
	}
	out = mustOK(t, cs, "flow_land", map[string]any{"force": true})
	integ, _ := out["integration"].(string)
	if out["branch"] != "main" || out["fast_forward"] != true || !strings.HasPrefix(integ, "flowdeck/") ||
		gitIn(t, dir, "rev-parse", "main") != gitIn(t, dir, "rev-parse", integ) || out["commit"] != gitIn(t, dir, "rev-parse", "main") {
		t.Fatalf("forced land: %v", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "fa.txt")); err != nil {
		t.Fatal("a's work is not on main after land")
	}

	// Landed already: the CLI and the tool answer the same object.
	var cli map[string]any
	if err := json.Unmarshal([]byte(flowdeck(t, dir, "--json", "flow", "land", "--force")), &cli); err != nil {
		t.Fatal(err)
	}
	again := mustOK(t, cs, "flow_land", map[string]any{"force": true})
	if again["up_to_date"] != true || !jsonEqual(again, cli) {
		t.Fatalf("tool %v, CLI %v", again, cli)
	}
}
