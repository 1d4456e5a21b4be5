package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// [session] max_parallel in the config ($FLOWDECK_CONFIG) is the
// max_parallel of a plan that sets none; a plan's own value wins. The value
// is stored with the plan, so verify replays it.
func TestMaxParallelFromConfig(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("[session]\nmax_parallel = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"FLOWDECK_CONFIG=" + cfg}
	run := func(dir string, want int, args ...string) string {
		t.Helper()
		out, errs, code := flowdeckEnv(t, dir, env, args...)
		if code != want {
			t.Fatalf("%v: exit %d, want %d: %s %s", args, code, want, out, errs)
		}
		return out
	}
	session := func(dir, plan string) {
		t.Helper()
		path := filepath.Join(dir, "plan.json")
		if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
			t.Fatal(err)
		}
		run(dir, 0, "flow", "plan", "start", "parallel")
		run(dir, 0, "flow", "plan", "apply", path)
		run(dir, 0, "flow", "plan", "approve")
	}
	const features = `"features":[{"id":"a","title":"A"},{"id":"b","title":"B"},{"id":"c","title":"C"},{"id":"d","title":"D"}]`

	dir := t.TempDir()
	session(dir, `{"summary":"p",`+features+`}`)
	for _, id := range []string{"a", "b", "c"} {
		run(dir, 0, "flow", "run", "start", id, "--agent", "w-"+id)
	}
	if e := oneError(t, "fourth claim", run(dir, ExitRejected, "--json", "flow", "run", "start", "d", "--agent", "w-d")); e.Code != model.CodeMaxParallelReached {
		t.Fatalf("fourth claim under the config's max_parallel 3: %+v", e)
	}
	var status struct {
		Session struct {
			Plan struct {
				MaxParallel int `json:"max_parallel"`
			}
		}
	}
	if err := json.Unmarshal([]byte(run(dir, 0, "--json", "flow", "status", "--full")), &status); err != nil || status.Session.Plan.MaxParallel != 3 {
		t.Fatalf("stored plan's max_parallel %d (%v)", status.Session.Plan.MaxParallel, err)
	}
	run(dir, 0, "flow", "verify")

	// The plan says 1: the config does not raise it.
	dir = t.TempDir()
	session(dir, `{"summary":"p","max_parallel":1,`+features+`}`)
	run(dir, 0, "flow", "run", "start", "a")
	if e := oneError(t, "second claim", run(dir, ExitRejected, "--json", "flow", "run", "start", "b")); e.Code != model.CodeFeatureAlreadyActive {
		t.Fatalf("second claim under the plan's max_parallel 1: %+v", e)
	}
}
