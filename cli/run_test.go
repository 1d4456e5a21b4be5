package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

func TestRunExitStatusJSONAndShow(t *testing.T) {
	dir := t.TempDir()
	out, _, code := flowdeck(t, dir, "run", "--", "sh", "-c", `printf 'hi\033]52;c;SGVsbG8=\007 there\n'; exit 3`)
	if code != 3 || !strings.Contains(out, "✗") {
		t.Fatalf("exit %d, out %q", code, out)
	}
	out, _, _ = flowdeck(t, dir, "--json", "runs")
	var runs struct {
		Runs []struct {
			ID       string `json:"id"`
			ExitCode int    `json:"exit_code"`
			Outcome  string `json:"outcome"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &runs); err != nil || len(runs.Runs) != 1 || runs.Runs[0].ExitCode != 3 || runs.Runs[0].Outcome != "exited" {
		t.Fatalf("runs = %s (%v)", out, err)
	}
	id := runs.Runs[0].ID
	shown, _, _ := flowdeck(t, dir, "show", id)
	if strings.ContainsRune(shown, 0x1b) || strings.ContainsRune(shown, 0x07) || !strings.Contains(shown, "hi there") {
		t.Fatalf("show printed escape sequences or lost text: %q", shown)
	}
	raw, _, _ := flowdeck(t, dir, "show", "--raw", id)
	if !strings.Contains(raw, "\x1b]52;c;") {
		t.Fatalf("show --raw = %q", raw)
	}
	out, _, code = flowdeck(t, dir, "--json", "recall", "there")
	if code != 0 || !strings.Contains(out, `"line": 1`) || strings.Contains(out, `\u001b`) {
		t.Fatalf("recall = %s", out)
	}
	if out, errs, code := flowdeck(t, dir, "run", "--", "no-such-cmd-xyz"); code != 127 || !strings.Contains(out, "not found") {
		t.Fatalf("missing command: exit %d %q %q", code, out, errs)
	}
}

func TestRunDefaultsAndRedactionFromConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte("[run]\ntimeout = \"300ms\"\nredact = ['internal-token-[a-z0-9]+']\n"), 0o644)
	env := []string{"FLOWDECK_CONFIG=" + cfg}
	if _, _, code := flowdeckEnv(t, dir, env, "run", "--", "sleep", "10"); code != 128+9 {
		t.Fatalf("config timeout: exit %d, want 137", code)
	}
	flowdeckEnv(t, dir, env, "run", "--", "echo", "key internal-token-abc123 here")
	out, _, _ := flowdeck(t, dir, "recall", "key here")
	if strings.Contains(out, "abc123") || !strings.Contains(out, "[REDACTED]") {
		t.Fatalf("configured secret not redacted: %q", out)
	}
	// A broken config is reported with file and line, and the run goes on.
	os.WriteFile(cfg, []byte("[run]\ntimeout = \"soon\"\n"), 0o644)
	_, errs, code := flowdeckEnv(t, dir, env, "run", "--", "true")
	if code != 0 || !strings.Contains(errs, cfg+":2") {
		t.Fatalf("broken config: exit %d, stderr %q", code, errs)
	}
}

func TestRunFeatureEvidenceThroughCLI(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"features":[{"id":"a","title":"A","verification":["true"]}]}`), 0o644)
	for _, args := range [][]string{{"flow", "plan", "start", "g"}, {"flow", "plan", "apply", plan}, {"flow", "plan", "approve"}} {
		if _, errs, code := flowdeck(t, dir, args...); code != 0 {
			t.Fatal(errs)
		}
	}
	// Not active yet: refused before the command runs.
	if _, errs, code := flowdeck(t, dir, "run", "--feature", "a", "--", "sh", "-c", "touch ran"); code != ExitRejected || !strings.Contains(errs, "feature_not_active") {
		t.Fatalf("run for an inactive feature: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("the command ran although its evidence would be refused")
	}
	flowdeck(t, dir, "flow", "run", "start")
	out, _, code := flowdeck(t, dir, "--json", "run", "--feature", "a", "--", "go", "version")
	if code != 0 || !strings.Contains(out, `"source": "observed"`) || !strings.Contains(out, `"status": "passed"`) {
		t.Fatalf("observed evidence: exit %d %s", code, out)
	}
	status, _, _ := flowdeck(t, dir, "flow", "status")
	if !strings.Contains(status, "[observed passed]") {
		t.Fatalf("status does not show the evidence kind:\n%s", status)
	}
}

// show --json writes JSON on the raw stream, C1 and bidi characters escaped
// as JSON: an argv holding a C1 OSC introducer (U+009D) stays valid JSON
// and round-trips, instead of going through the human sanitiser, whose
// `\e]…` rendering is no JSON escape.
func TestShowJSONKeepsHostileArgv(t *testing.T) {
	dir := t.TempDir()
	arg := "\u009d0;title\u0007 \u202eevil"
	r := runJSONIn(t, dir, nil, "echo", arg)
	out, errs, code := flowdeck(t, dir, "--json", "show", r.ID)
	var res struct {
		OK  bool            `json:"ok"`
		Run model.RunRecord `json:"run"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
		t.Fatalf("exit %d, not JSON: %v\n%q\n%s", code, err, out, errs)
	}
	if len(res.Run.Argv) != 2 || res.Run.Argv[1] != arg {
		t.Fatalf("argv %q, want [echo %q]", res.Run.Argv, arg)
	}
	if strings.ContainsAny(out, "\u009d\u202e") {
		t.Fatalf("raw C1 or bidi character in the JSON: %q", out)
	}
}
