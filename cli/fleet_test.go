package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fleet's commands through the real binaries: init records the
// projects that list offers; add and rm edit the config (refusing bad and
// duplicate entries); list (which flowdeck-cli hands to flowdeck-mcp)
// shows each project's state and exits 0 with an unreachable one; a broken
// config is exit 3 naming its line.
func TestFleetCommands(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, "config")
	env := []string{"XDG_CONFIG_HOME=" + cfg, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	run := func(args ...string) (string, string, int) {
		t.Helper()
		return flowdeckEnv(t, home, env, args...)
	}
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if _, errOut, code := flowdeckEnv(t, d, env, "init"); code != 0 {
			t.Fatalf("init: %d %s", code, errOut)
		}
	}
	if _, errOut, code := flowdeckEnv(t, a, env, "flow", "plan", "start", "alpha goal"); code != 0 {
		t.Fatalf("plan start: %s", errOut)
	}

	out, errOut, code := run("fleet", "list")
	if code != 0 || !strings.Contains(out, "The fleet is empty") ||
		!strings.Contains(out, "not in the fleet: "+filepath.Base(b)+" "+b+" — flowdeck fleet add "+filepath.Base(b)+" "+b) {
		t.Fatalf("empty list: %d\n%s%s", code, out, errOut)
	}

	if out, errOut, code := run("fleet", "add", "alpha", a); code != 0 || !strings.Contains(out, "added alpha: "+a) {
		t.Fatalf("add alpha: %d %s%s", code, out, errOut)
	}
	for _, bad := range [][]string{
		{"fleet", "add", "again", a},
		{"fleet", "add", "alpha", b},
		{"fleet", "add", "r", "--", "ssh", "host", "flowdeck"},
		{"fleet", "add", "x y", b},
		{"fleet", "add", "f", filepath.Join(a, "nope")},
		{"fleet", "rm", "nope"},
	} {
		if _, errOut, code := run(bad...); code != ExitUsage || errOut == "" {
			t.Errorf("%q: exit %d, %s", bad, code, errOut)
		}
	}
	if _, errOut, _ := run("fleet", "add", "r", "--", "ssh", "host", "flowdeck"); !strings.Contains(errOut, "e.g. ssh HOST flowdeck --dir /srv/app mcp") {
		t.Errorf("no example: %s", errOut)
	}
	if _, errOut, code := run("fleet", "add", "down", "--", "false", "mcp"); code != 0 {
		t.Fatalf("add down: %s", errOut)
	}

	out, errOut, code = run("--json", "fleet", "list")
	var l struct {
		OK       bool
		Config   string
		Projects []struct {
			Name, Dir, Reach, Error string
			Command                 []string
			Glance                  *struct{ Goal string }
		}
		Offers []struct{ Name, Dir, Command string }
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil || code != 0 {
		t.Fatalf("list --json: %d %v\n%s%s", code, err, out, errOut)
	}
	if l.Config != filepath.Join(cfg, "flowdeck", "fleet.toml") || len(l.Projects) != 2 || len(l.Offers) != 1 || l.Offers[0].Dir != b {
		t.Fatalf("list: %+v", l)
	}
	if p := l.Projects[0]; p.Name != "alpha" || p.Reach != "reachable" || p.Glance == nil || p.Glance.Goal != "alpha goal" {
		t.Errorf("alpha: %+v", p)
	}
	if p := l.Projects[1]; p.Name != "down" || p.Reach != "unreachable" || !strings.Contains(p.Error, "exited (exit status 1)") {
		t.Errorf("down: %+v", p)
	}
	out, _, code = run("fleet", "list")
	if code != 0 || !strings.Contains(out, "alpha  "+a+"  reachable") || !strings.Contains(out, "  goal      alpha goal") ||
		!strings.Contains(out, "down  false mcp  unreachable: ") {
		t.Errorf("list: %d\n%s", code, out)
	}

	// The fleet view paints a terminal; piped, it says what to use instead.
	if _, errOut, code := run("fleet"); code != ExitUsage || !strings.Contains(errOut, "the fleet view needs a terminal") {
		t.Errorf("fleet without a terminal: %d %s", code, errOut)
	}

	if out, errOut, code := run("fleet", "rm", "down"); code != 0 || !strings.Contains(out, "removed down") {
		t.Fatalf("rm: %d %s%s", code, out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(cfg, "flowdeck", "fleet.toml"))
	if err != nil || strings.Contains(string(data), "down") || !strings.Contains(string(data), `name = "alpha"`) {
		t.Fatalf("config after rm: %v\n%s", err, data)
	}

	// A broken config: list and add say where, exit 3.
	os.WriteFile(filepath.Join(cfg, "flowdeck", "fleet.toml"), []byte("[[project]]\nname = \"a\"\ndir = /x\n"), 0o600)
	for _, args := range [][]string{{"fleet", "list"}, {"fleet", "add", "b", b}} {
		if _, errOut, code := run(args...); code != ExitInternal || !strings.Contains(errOut, "fleet.toml:3: ") {
			t.Errorf("%q with a broken config: %d %s", args, code, errOut)
		}
	}
}

// A failure to record the project only warns: init's work is done.
func TestInitRecordFailureWarns(t *testing.T) {
	state := filepath.Join(t.TempDir(), "file")
	os.WriteFile(state, nil, 0o644)
	dir := t.TempDir()
	_, errOut, code := flowdeckEnv(t, dir, []string{"XDG_STATE_HOME=" + state}, "init")
	if code != 0 || !strings.Contains(errOut, "warning: not recorded among the projects flowdeck fleet list offers") {
		t.Fatalf("init: %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "AGENTS.md")); err != nil {
		t.Fatalf("init did not do its work: %v", err)
	}
}
