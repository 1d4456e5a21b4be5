package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// config show prints the user's config with the project's merged over it,
// each value with its file and line; a project file with a secret, or one
// that is a symlink, is not used and the error names it.
func TestConfigShow(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".flow"), 0o755)
	user := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(user, []byte("[run]\ntimeout = \"30m\"\n[agents.worker]\ncommand = [\"mine\"]\nenv = { OPENAI_API_KEY = \"sk-proj-abcdefghijklmnopqrstuvwxyz\" }\n"), 0o600)
	proj := filepath.Join(dir, ".flow", "config.toml")
	os.WriteFile(proj, []byte("# the team's agents\n[agents.reviewer]\ncommand = [\"theirs\"]\n[run]\ntimeout = \"1h\"\n"), 0o644)
	env := []string{"FLOWDECK_CONFIG=" + user}

	out, errs, code := flowdeckEnv(t, dir, env, "config", "show")
	for _, want := range []string{
		`run.timeout = "1h"  # ` + proj + ":5",
		`agents.reviewer.command = ["theirs"]  # ` + proj + ":3",
		`agents.worker.command = ["mine"]  # ` + user + ":4",
		`agents.worker.env.OPENAI_API_KEY = "[REDACTED]"  # ` + user + ":5",
		`bell = "bell"  # default`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if code != 0 || errs != "" || strings.Contains(out, "abcdefghij") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}

	out, _, code = flowdeckEnv(t, dir, env, "--json", "config", "show")
	var res struct {
		OK       bool
		Settings []struct {
			Key  string
			From []struct {
				File string
				Line int
			}
		}
		Files map[string]struct {
			Path string
			Read bool
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || !res.OK || !res.Files["project"].Read || res.Files["user"].Path != user {
		t.Fatalf("--json: %v %s", err, out)
	}
	found := false
	for _, s := range res.Settings {
		if s.Key == "run.timeout" && len(s.From) == 1 && s.From[0].File == proj && s.From[0].Line == 5 {
			found = true
		}
	}
	if !found {
		t.Errorf("--json: run.timeout's origin missing: %s", out)
	}

	os.WriteFile(proj, []byte("[agents.worker]\ncommand = [\"x\"]\nenv = { ANTHROPIC_API_KEY = \"sk-ant-api03-abcdefghijklmnopqrstuvwxyz\" }\n"), 0o644)
	out, errs, _ = flowdeckEnv(t, dir, env, "config", "show")
	if !strings.Contains(errs, proj+":3: agents.worker.env.ANTHROPIC_API_KEY looks like a secret") || !strings.Contains(out, `agents.worker.command = ["mine"]`) {
		t.Errorf("a secret in the project file: stdout\n%s\nstderr %s", out, errs)
	}

	os.Remove(proj)
	os.WriteFile(filepath.Join(dir, "elsewhere.toml"), []byte("[run]\ntimeout = \"9h\"\n"), 0o644)
	os.Symlink("../elsewhere.toml", proj)
	out, errs, _ = flowdeckEnv(t, dir, env, "config", "show")
	if !strings.Contains(errs, proj+" is a symbolic link") || strings.Contains(out, "9h") {
		t.Errorf("a symlinked project file: stdout\n%s\nstderr %s", out, errs)
	}
}
