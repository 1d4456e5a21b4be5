package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
)

func TestHUDCommand(t *testing.T) {
	dir := t.TempDir()
	flowdeck(t, dir, "flow", "plan", "start", "hud", "goal")
	out, _, code := flowdeck(t, dir, "hud")
	stamp := regexp.MustCompile(`^flowdeck \(seq 1, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\): hud goal\n`)
	if code != 0 || !stamp.MatchString(out) || !strings.HasSuffix(out, "\nstatus: planning, no plan yet\nnext: flowdeck flow plan apply FILE\n") {
		t.Fatalf("hud: exit %d\n%s", code, out)
	}
	var h struct {
		OK   bool   `json:"ok"`
		Goal string `json:"goal"`
		Next string `json:"next_command"`
	}
	for _, args := range [][]string{{"hud", "--format", "json"}, {"--json", "hud"}} {
		out, _, _ = flowdeck(t, dir, args...)
		if err := json.Unmarshal([]byte(out), &h); err != nil || !h.OK || h.Goal != "hud goal" || h.Next != "flowdeck flow plan apply FILE" {
			t.Fatalf("%v: %s (%v)", args, out, err)
		}
	}
	if _, errs, code := flowdeck(t, dir, "hud", "--format", "html"); code != ExitUsage || !strings.Contains(errs, "html") {
		t.Fatalf("bad format: exit %d %s", code, errs)
	}
}

// init writes nothing with --dry-run, and a second run changes nothing.
func TestInitCommand(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	out, _, code := flowdeck(t, dir, "init", "--agent", "claude", "--dry-run")
	if code != 0 || !strings.Contains(out, "+++ b/.mcp.json") || !strings.Contains(out, "mkdir .flow/") {
		t.Fatalf("dry run: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".mcp.json")); err == nil {
		t.Fatal("--dry-run wrote .mcp.json")
	}
	out, errs, code := flowdeck(t, dir, "init", "--agent", "claude")
	if code != 0 || !strings.Contains(out, "created .claude/settings.json") {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	// Plugging the server in says what its run tool can do, and how to
	// allow only the flow_* tools.
	if !strings.Contains(errs, "run tool that executes any command") || !strings.Contains(errs, `"mcp__flowdeck__flow_*"`) || !strings.Contains(errs, `"flowdeck_run": false`) {
		t.Fatalf("init says nothing about the run tool: %s", errs)
	}
	out, _, code = flowdeck(t, dir, "--json", "init")
	var res struct {
		Agents  []string `json:"agents"`
		Changed []string `json:"changed"`
		Notes   []string `json:"notes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || len(res.Changed) != 0 || !slices.Equal(res.Agents, []string{"claude", "generic"}) ||
		!strings.Contains(strings.Join(res.Notes, " "), "mcp__flowdeck__flow_*") {
		t.Fatalf("second init: %s", out)
	}
	if _, errs, code := flowdeck(t, dir, "init", "--agent", "cursor"); code != ExitUsage || !strings.Contains(errs, "cursor") {
		t.Fatalf("unknown agent: exit %d %s", code, errs)
	}
}

// Claude Code's hooks: the UserPromptSubmit hook prints the HUD as
// additionalContext, found from the cwd in the hook's JSON; the Stop hook
// records idle, and `flowdeck agents` and hud --json say so. A hook never
// exits 2, which Claude Code takes as "block".
func TestClaudeHooks(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	sub := filepath.Join(root, "pkg", "sub")
	os.MkdirAll(sub, 0o755)
	flowdeck(t, root, "flow", "plan", "start", "hooked")
	hook := func(stdin string, args ...string) (string, string, int) {
		cmd := exec.Command(binary, args...)
		cmd.Dir = os.TempDir() // the project comes from the hook's cwd
		cmd.Stdin = strings.NewReader(stdin)
		return runProcess(t, cmd)
	}
	in, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": sub, "hook_event_name": "UserPromptSubmit", "prompt": "go on"})
	out, errs, code := hook(string(in), "hud", "--hook", "claude")
	var res struct {
		Out struct {
			Event   string `json:"hookEventName"`
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || res.Out.Event != "UserPromptSubmit" ||
		!strings.HasPrefix(res.Out.Context, "flowdeck (seq 1, ") || !strings.Contains(res.Out.Context, "): hooked\n") {
		t.Fatalf("hud hook: exit %d %s %s (%v)", code, out, errs, err)
	}
	if _, err := os.Stat(filepath.Join(sub, ".flow")); err == nil {
		t.Fatal("the hook created a project in the subdirectory")
	}
	in, _ = json.Marshal(map[string]any{"session_id": "s1", "cwd": sub, "hook_event_name": "Stop", "stop_hook_active": false})
	if out, errs, code := hook(string(in), "agent-event", "idle", "--agent", "claude", "--hook", "claude"); code != 0 || out != "" {
		t.Fatalf("stop hook: exit %d %q %s", code, out, errs)
	}
	if _, _, code := hook("{}", "hud", "--hook", "claude", "--bogus"); code == ExitUsage || code == 0 {
		t.Fatalf("a hook's usage error exits %d", code)
	}
	out, _, _ = flowdeck(t, root, "agents")
	if !strings.HasPrefix(out, "claude ") || !strings.Contains(out, "idle") {
		t.Fatalf("agents:\n%s", out)
	}
	var agents struct {
		Agents []model.AgentEvent `json:"agents"`
	}
	for _, args := range [][]string{{"--json", "agents"}, {"--json", "hud"}} {
		out, _, _ = flowdeck(t, root, args...)
		if err := json.Unmarshal([]byte(out), &agents); err != nil || len(agents.Agents) != 1 || agents.Agents[0].Event != "idle" || time.Since(agents.Agents[0].At) > time.Minute {
			t.Fatalf("%v: %s (%v)", args, out, err)
		}
	}
}

// One project however a client starts: from a subdirectory every command
// finds the root's database (nearest .git or .flow upward), and commands
// that only read create nothing where there is no database.
func TestProjectFoundFromSubdirectory(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	sub := filepath.Join(root, "pkg", "sub")
	os.MkdirAll(sub, 0o755)
	in := func(dir string, args ...string) string {
		cmd := exec.Command(binary, args...)
		cmd.Dir = dir
		out, errs, code := runProcess(t, cmd)
		if code != 0 {
			t.Fatalf("%v in %s: exit %d %s", args, dir, code, errs)
		}
		return out
	}
	for _, args := range [][]string{{"hud"}, {"flow", "status"}, {"flow", "history"}, {"runs"}, {"recall", "x"}, {"agents"}, {"--json", "hud"}} {
		in(sub, args...)
	}
	cmd := exec.Command(binary, "--json", "diagram")
	cmd.Dir = sub
	if out, _, code := runProcess(t, cmd); code != ExitRejected || !strings.Contains(out, "no_plan") {
		t.Fatalf("diagram without a database: exit %d %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(root, ".flow")); err == nil {
		t.Fatal("a read-only command created .flow/")
	}
	in(sub, "flow", "plan", "start", "from a subdirectory")
	if _, err := os.Stat(filepath.Join(root, db.DBFile)); err != nil {
		t.Fatalf("the database is not at the root: %v", err)
	}
	if out := in(sub, "hud"); !strings.Contains(out, "from a subdirectory") {
		t.Fatalf("hud in the subdirectory:\n%s", out)
	}
	// Without .git, an existing .flow marks the project.
	bare := t.TempDir()
	os.Mkdir(filepath.Join(bare, ".flow"), 0o755)
	deep := filepath.Join(bare, "a", "b")
	os.MkdirAll(deep, 0o755)
	in(deep, "flow", "plan", "start", "bare")
	if _, err := os.Stat(filepath.Join(bare, db.DBFile)); err != nil {
		t.Fatalf("the database is not beside the existing .flow: %v", err)
	}
	// A fresh directory stays empty after hud.
	fresh := t.TempDir()
	in(fresh, "hud")
	if ents, _ := os.ReadDir(fresh); len(ents) != 0 {
		t.Fatalf("hud in a fresh directory created %v", ents)
	}
}

// init warns, with the fix, when the agents could not start flowdeck or
// flowdeck-mcp by name; a config file it cannot read fails with exit 3 and
// the file named, not with the usage hint; opencode.jsonc with comments is
// merged.
func TestInitRealWorld(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	_, errs, code := flowdeckEnv(t, dir, []string{"PATH=/nonexistent"}, "init", "--agent", "claude", "--dry-run")
	if code != 0 || !strings.Contains(errs, "warning: flowdeck is not on PATH") || !strings.Contains(errs, `export PATH="`+filepath.Dir(binary)+`:$PATH"`) {
		t.Fatalf("no PATH warning: exit %d %s", code, errs)
	}
	// flowdeck and flowdeck-cli without flowdeck-mcp beside them.
	noMCP := filepath.Dir(leanAlone(t))
	cli, err := os.ReadFile(filepath.Join(filepath.Dir(binary), "flowdeck-cli"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(noMCP, "flowdeck-cli"), cli, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(noMCP, "flowdeck"), "--dir", dir, "init", "--agent", "opencode", "--dry-run")
	cmd.Env = append(os.Environ(), "PATH="+noMCP)
	_, errs, _ = runProcess(t, cmd)
	if strings.Contains(errs, "flowdeck is not on PATH") || !strings.Contains(errs, "warning: flowdeck-mcp is neither beside") ||
		strings.Contains(errs, "flowdeck-cli is neither") {
		t.Fatalf("flowdeck-mcp warning: %s", errs)
	}
	// A flowdeck on PATH without flowdeck-cli beside it: the agents'
	// hooks would work, their other commands would not.
	onPath := filepath.Dir(leanAlone(t))
	_, errs, _ = flowdeckEnv(t, dir, []string{"PATH=" + onPath}, "init", "--agent", "opencode", "--dry-run")
	if !strings.Contains(errs, "warning: flowdeck-cli is neither beside "+filepath.Join(onPath, "flowdeck")) {
		t.Fatalf("flowdeck-cli warning: %s", errs)
	}
	os.WriteFile(filepath.Join(dir, "opencode.jsonc"), []byte("{\n  // mine\n  \"model\": \"x\",\n}\n"), 0o644)
	if _, errs, code := flowdeck(t, dir, "init", "--agent", "opencode"); code != 0 {
		t.Fatalf("init on JSONC: exit %d %s", code, errs)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "opencode.jsonc")); !strings.Contains(string(data), "// mine") || !strings.Contains(string(data), `"flowdeck": {`) {
		t.Fatalf("opencode.jsonc:\n%s", data)
	}
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte("{\"mcpServers\": "), 0o644)
	_, errs, code = flowdeck(t, dir, "init", "--agent", "claude")
	if code != ExitInternal || !strings.Contains(errs, ".mcp.json") || strings.Contains(errs, "flowdeck help") {
		t.Fatalf("broken .mcp.json: exit %d %s", code, errs)
	}
	if _, errs, code := flowdeck(t, dir, "init", "--agent", "cursor"); code != ExitUsage || !strings.Contains(errs, "flowdeck help") {
		t.Fatalf("unknown agent: exit %d %s", code, errs)
	}
}

func TestAgentEventCommand(t *testing.T) {
	dir := t.TempDir()
	if _, errs, code := flowdeck(t, dir, "agent-event", "idle", "--agent", "opencode"); code != 0 {
		t.Fatal(errs)
	}
	if _, _, code := flowdeck(t, dir, "agent-event", "Idle Now"); code != ExitUsage {
		t.Fatalf("bad event name: exit %d", code)
	}
	st, _ := db.Open(filepath.Join(dir, db.DBFile), db.Options{})
	evs, err := st.AgentEvents()
	if err != nil || len(evs) != 1 || evs[0].Agent != "opencode" || evs[0].Event != "idle" || time.Since(evs[0].At) > time.Minute {
		t.Fatalf("agent events = %+v, %v", evs, err)
	}
}

// BenchmarkHUD runs `flowdeck hud` as a process (start to exit) on a project
// with 100,000 events and reports the median. Target: under 20 ms.
func BenchmarkHUD(b *testing.B) {
	dir := b.TempDir()
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.SeedLog(100_000, time.Now()); err != nil {
		b.Fatal(err)
	}
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		if out, errs, code := flowdeck(b, dir, "hud"); code != 0 || !strings.Contains(out, "next: ") {
			b.Fatalf("hud: exit %d %s %s", code, out, errs)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(ms(times[len(times)/2]), "median-ms")
	b.ReportMetric(ms(times[len(times)*9/10]), "p90-ms")
}
