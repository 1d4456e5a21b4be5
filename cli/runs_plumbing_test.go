package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// A flow's exec blocks are its plumbing: `flowdeck runs` (text and JSON)
// leaves them out, --all lists them, labelled as the flow's runs, not the
// person's who started the flow; the person's own runs stay listed.
func TestRunsHidePlumbingUntilAll(t *testing.T) {
	dir := t.TempDir()
	if _, errs, code := flowdeck(t, dir, "run", "--", "echo", "person-run"); code != 0 {
		t.Fatalf("run: exit %d %s", code, errs)
	}
	flow := filepath.Join(dir, "gather.md")
	os.WriteFile(flow, []byte("---\nliterate: true\n---\n```yaml {config}\nstep: one\n```\n"+
		"```sh {exec}\necho prompt-plumbing\n```\n```sh {exec mode=store}\necho '{\"k\": \"store-plumbing\"}'\n```\n"), 0o644)
	if out, errs, code := flowdeck(t, dir, "flows", "run", flow); code != 0 {
		t.Fatalf("flows run: exit %d\n%s%s", code, out, errs)
	}
	out, _, code := flowdeck(t, dir, "runs")
	if code != 0 || !strings.Contains(out, "echo person-run") || strings.Contains(out, "plumbing") {
		t.Fatalf("runs: exit %d\n%s", code, out)
	}
	out, _, _ = flowdeck(t, dir, "runs", "--all")
	lines := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "plumbing") {
			lines++
			if !strings.Contains(l, "flow gather") || strings.Contains(l, "human") {
				t.Errorf("a plumbing run is not labelled as the flow's: %q", l)
			}
		}
	}
	if lines != 2 || !strings.Contains(out, "echo person-run") {
		t.Fatalf("runs --all lists %d plumbing runs, want 2:\n%s", lines, out)
	}
	for _, c := range []struct {
		args []string
		want int
	}{{[]string{"--json", "runs"}, 1}, {[]string{"--json", "runs", "--all"}, 3}} {
		out, _, _ := flowdeck(t, dir, c.args...)
		var res struct {
			Runs []model.RunRecord `json:"runs"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Runs) != c.want {
			t.Fatalf("%v: %d runs, want %d (%v)\n%s", c.args, len(res.Runs), c.want, err, out)
		}
	}
}
