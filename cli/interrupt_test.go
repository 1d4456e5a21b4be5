package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// flow run interrupt and resume through the real binary: the result objects
// carry the state and the next command, the text says what happened,
// resuming a feature that is not interrupted is refused with its code, and
// flow verify replays both events.
func TestFlowRunInterruptAndResume(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"summary":"s","max_parallel":2,"features":[{"id":"a","title":"A"},{"id":"b","title":"B"}]}`), 0o644)
	for _, args := range [][]string{{"flow", "plan", "start", "goal"}, {"flow", "plan", "apply", plan}, {"flow", "plan", "approve"},
		{"flow", "run", "start", "a", "--agent", "w1"}, {"flow", "run", "start", "b", "--agent", "w2"}} {
		if _, errs, code := flowdeck(t, dir, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	out, errs, code := flowdeck(t, dir, "--json", "flow", "run", "interrupt", "a", "--summary", "agent w1 exited 137")
	var res struct {
		OK      bool `json:"ok"`
		Feature struct {
			State       string `json:"state"`
			Agent       string `json:"agent"`
			Interrupted struct {
				Summary string `json:"summary"`
			} `json:"interrupted"`
		} `json:"feature"`
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || !res.OK || res.Feature.State != "interrupted" ||
		res.Feature.Agent != "w1" || res.Feature.Interrupted.Summary != "agent w1 exited 137" {
		t.Fatalf("interrupt (exit %d, %v): %s%s", code, err, out, errs)
	}
	if out, _, _ := flowdeck(t, dir, "flow", "status"); !strings.Contains(out, "! a") || !strings.Contains(out, "interrupted") ||
		!strings.Contains(out, "(agent w1 exited 137)") {
		t.Fatalf("status does not show a interrupted:\n%s", out)
	}
	if out, _, code := flowdeck(t, dir, "flow", "run", "resume", "a"); code != 0 || !strings.Contains(out, "▶ resumed a") {
		t.Fatalf("resume (exit %d): %s", code, out)
	}
	out, _, code = flowdeck(t, dir, "--json", "flow", "run", "resume", "b")
	res.OK, res.Error.Code = true, ""
	if json.Unmarshal([]byte(out), &res); code == 0 || res.OK || res.Error.Code != "feature_not_interrupted" {
		t.Fatalf("resume of b (exit %d): %s", code, out)
	}
	if out, errs, code := flowdeck(t, dir, "flow", "verify"); code != 0 {
		t.Fatalf("flow verify (exit %d): %s%s", code, out, errs)
	}
}
