package agentinit

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixture copies testdata/NAME (or nothing, for "") into a new repository.
func fixture(t *testing.T, name string) string {
	t.Helper()
	root := t.TempDir()
	if name != "" {
		if err := os.CopyFS(root, os.DirFS(filepath.Join("testdata", name))); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func initRepo(t *testing.T, root string, agents ...string) *Plan {
	t.Helper()
	p, err := Prepare(root, agents)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(root, p.Changes); err != nil {
		t.Fatal(err)
	}
	return p
}

func read(t *testing.T, root, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// mustNoop asserts that init has nothing left to do.
func mustNoop(t *testing.T, root string, agents ...string) {
	t.Helper()
	p, err := Prepare(root, agents)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 0 {
		t.Fatalf("second run would change %d files:\n%s", len(p.Changes), Diff(p.Changes))
	}
}

func paths(p *Plan) []string {
	var out []string
	for _, c := range p.Changes {
		out = append(out, c.Path)
	}
	return out
}

func TestInitEmptyRepo(t *testing.T) {
	root := fixture(t, "")
	p := initRepo(t, root, Claude, OpenCode)
	want := []string{".flow/", ".gitignore", ".mcp.json", ".claude/settings.json", "CLAUDE.md", "opencode.json", ".opencode/plugins/flowdeck.ts", "AGENTS.md"}
	if !slices.Equal(paths(p), want) {
		t.Fatalf("changes = %v", paths(p))
	}
	if fi, err := os.Stat(filepath.Join(root, ".flow")); err != nil || !fi.IsDir() {
		t.Fatal(".flow/ was not created")
	}
	if got := read(t, root, ".mcp.json"); got != `{
  "mcpServers": {
    "flowdeck": {
      "type": "stdio",
      "command": "flowdeck",
      "args": ["mcp"],
      "alwaysLoad": true
    }
  }
}
` {
		t.Fatalf(".mcp.json:\n%s", got)
	}
	if got := read(t, root, "CLAUDE.md"); got != claudeBegin+"\n@AGENTS.md\n"+claudeEnd+"\n" {
		t.Fatalf("CLAUDE.md:\n%s", got)
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(read(t, root, ".claude/settings.json")), &settings); err != nil ||
		settings.Hooks["UserPromptSubmit"][0].Hooks[0].Command != "flowdeck hud --hook claude" ||
		settings.Hooks["Stop"][0].Hooks[0].Command != "flowdeck agent-event idle --agent claude --hook claude" {
		t.Fatalf("settings = %+v (%v)", settings, err)
	}
	var oc struct {
		Schema string `json:"$schema"`
		MCP    map[string]struct {
			Type    string   `json:"type"`
			Command []string `json:"command"`
			Enabled bool     `json:"enabled"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal([]byte(read(t, root, "opencode.json")), &oc); err != nil || oc.Schema == "" ||
		!slices.Equal(oc.MCP["flowdeck"].Command, []string{"flowdeck", "mcp"}) || !oc.MCP["flowdeck"].Enabled {
		t.Fatalf("opencode.json = %+v (%v)", oc, err)
	}
	if read(t, root, ".opencode/plugins/flowdeck.ts") != pluginSource {
		t.Fatal("plugin differs from the template")
	}
	if got := read(t, root, ".gitignore"); got != IgnoreComment+"\n/.flow/flowdeck.db\n/.flow/flowdeck.db.lock\n/.flow/git.lock\n/.flow/runs/\n/.flow/flowruns/\n/.flow/worktrees/\n" {
		t.Fatalf(".gitignore:\n%s", got)
	}
	agents := read(t, root, "AGENTS.md")
	if !strings.HasPrefix(agents, beginMarker+"\n") || !strings.HasSuffix(agents, endMarker+"\n") ||
		!strings.Contains(agents, "`flowdeck run --feature ID -- CMD [ARG...]`") {
		t.Fatalf("AGENTS.md:\n%s", agents)
	}
	mustNoop(t, root, Claude, OpenCode)
	mustNoop(t, root) // detected from the files now there
}

// Existing files keep everything they had, in their order; flowdeck's
// entries are added beside them, and a value the user set wins.
func TestInitMergesExistingFiles(t *testing.T) {
	root := fixture(t, "existing")
	before := map[string]string{}
	for _, f := range []string{".mcp.json", ".claude/settings.json", "opencode.json", "AGENTS.md", ".gitignore"} {
		before[f] = read(t, root, f)
	}
	p := initRepo(t, root) // no --agent: both are detected from their files
	if !slices.Equal(p.Agents, []string{Claude, OpenCode, Generic}) {
		t.Fatalf("agents = %v", p.Agents)
	}

	if got := read(t, root, ".mcp.json"); got != `{
  "mcpServers": {
    "github": {
      "command": "github-mcp",
      "args": ["stdio"],
      "env": {
        "GITHUB_TOKEN": "${GITHUB_TOKEN}"
      }
    },
    "flowdeck": {
      "type": "stdio",
      "command": "flowdeck",
      "args": ["mcp"],
      "alwaysLoad": true
    }
  }
}
` {
		t.Fatalf(".mcp.json:\n%s", got)
	}
	settings := read(t, root, ".claude/settings.json")
	for _, want := range []string{`"allow": ["Bash(go test:*)"]`, `"command": "./check.sh"`, `"command": "date"`, `"command": "flowdeck hud --hook claude"`, `"Stop"`} {
		if !strings.Contains(settings, want) {
			t.Fatalf("settings.json lacks %s:\n%s", want, settings)
		}
	}
	if strings.Index(settings, "permissions") > strings.Index(settings, "hooks") || strings.Index(settings, `"date"`) > strings.Index(settings, "hud") {
		t.Fatalf("settings.json was reordered:\n%s", settings)
	}
	// The user's own flowdeck entry (another path) stays; only "enabled",
	// which they did not set, is added.
	if got := read(t, root, "opencode.json"); got != `{
  "$schema": "https://opencode.ai/config.json",
  "model": "anthropic/claude-sonnet-4",
  "mcp": {
    "flowdeck": {
      "type": "local",
      "command": ["/opt/flowdeck/bin/flowdeck", "mcp"],
      "enabled": true
    }
  }
}
` {
		t.Fatalf("opencode.json:\n%s", got)
	}
	agents := read(t, root, "AGENTS.md")
	if !strings.HasPrefix(agents, before["AGENTS.md"]+"\n"+beginMarker) {
		t.Fatalf("AGENTS.md did not keep its text first:\n%s", agents)
	}
	if got := read(t, root, ".gitignore"); !strings.HasPrefix(got, "node_modules/\n*.log\n\n# flowdeck") || !strings.HasSuffix(got, "/.flow/worktrees/\n") {
		t.Fatalf(".gitignore:\n%s", got)
	}
	mustNoop(t, root)

	// An edited section is put back; the text around it stays.
	edited := strings.Replace(read(t, root, "AGENTS.md"), "Never edit", "Always edit", 1) + "\n## After\n"
	os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte(edited), 0o644)
	initRepo(t, root)
	if got := read(t, root, "AGENTS.md"); strings.Contains(got, "Always edit") || !strings.HasSuffix(got, endMarker+"\n\n## After\n") || strings.Count(got, markerStem) != 1 {
		t.Fatalf("AGENTS.md after re-init:\n%s", got)
	}
	mustNoop(t, root)

	// A plugin the person made their own is left alone, and said so.
	plugin := filepath.Join(root, ".opencode/plugins/flowdeck.ts")
	os.WriteFile(plugin, []byte("// mine\n"), 0o644)
	p, err := Prepare(root, nil)
	if err != nil || len(p.Changes) != 0 || len(p.Notes) != 1 {
		t.Fatalf("edited plugin: %v %v %v", paths(p), p.Notes, err)
	}
}

// CLAUDE.md imports AGENTS.md between markers of its own: the person's text
// stays, an import they wrote themselves is enough, and a CLAUDE.md that is
// a link to AGENTS.md is not made to import itself.
func TestClaudeMDImportsAgentsMD(t *testing.T) {
	root := fixture(t, "")
	os.WriteFile(filepath.Join(root, "CLAUDE.md"), []byte("# Mine\n\nBe brief."), 0o644)
	initRepo(t, root)
	want := "# Mine\n\nBe brief.\n\n" + claudeBegin + "\n@AGENTS.md\n" + claudeEnd + "\n"
	if got := read(t, root, "CLAUDE.md"); got != want {
		t.Fatalf("CLAUDE.md:\n%s", got)
	}
	edited := strings.Replace(want, "@AGENTS.md", "@OTHER.md", 1) + "More of mine.\n"
	os.WriteFile(filepath.Join(root, "CLAUDE.md"), []byte(edited), 0o644)
	initRepo(t, root)
	if got := read(t, root, "CLAUDE.md"); got != want+"More of mine.\n" {
		t.Fatalf("CLAUDE.md after re-init:\n%s", got)
	}
	mustNoop(t, root)

	own := fixture(t, "")
	os.WriteFile(filepath.Join(own, "CLAUDE.md"), []byte("See:\n@AGENTS.md\n"), 0o644)
	initRepo(t, own, Claude)
	if got := read(t, own, "CLAUDE.md"); got != "See:\n@AGENTS.md\n" {
		t.Fatalf("CLAUDE.md with its own import:\n%s", got)
	}

	linked := fixture(t, "")
	os.Symlink("AGENTS.md", filepath.Join(linked, "CLAUDE.md"))
	p := initRepo(t, linked, Claude)
	if got := read(t, linked, "AGENTS.md"); strings.Contains(got, "@AGENTS.md") || !strings.Contains(strings.Join(p.Notes, " "), "link to AGENTS.md") {
		t.Fatalf("AGENTS.md behind the CLAUDE.md link:\n%s\nnotes %v", got, p.Notes)
	}
	mustNoop(t, linked, Claude)
}

// The hook that earlier versions wrote (--dir "$CLAUDE_PROJECT_DIR") is
// replaced by the one that finds the project from the hook's cwd; the Stop
// hook is added beside the person's own.
func TestClaudeHooksUpgrade(t *testing.T) {
	root := fixture(t, "")
	os.MkdirAll(filepath.Join(root, ".claude"), 0o755)
	os.WriteFile(filepath.Join(root, ".claude/settings.json"), []byte(`{
  "hooks": {
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "flowdeck --dir \"$CLAUDE_PROJECT_DIR\" hud"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  }
}
`), 0o644)
	initRepo(t, root, Claude)
	got := read(t, root, ".claude/settings.json")
	if strings.Contains(got, "CLAUDE_PROJECT_DIR") || strings.Count(got, "flowdeck hud --hook claude") != 1 ||
		!strings.Contains(got, "notify-send done") || !strings.Contains(got, "agent-event idle --agent claude --hook claude") {
		t.Fatalf("settings.json:\n%s", got)
	}
	mustNoop(t, root, Claude)
}

// JSONC is merged in place: every comment and trailing comma stays, the
// file's indentation is followed, and a second run changes nothing.
func TestInitMergesJSONC(t *testing.T) {
	root := fixture(t, "")
	jsonc := "{\n\t// the model we pay for\n\t\"model\": \"anthropic/claude-sonnet-4\", // keep\n\t\"mcp\": {\n\t\t\"github\": {\"type\": \"remote\", \"url\": \"https://x\"}, // theirs\n\t},\n}\n"
	os.WriteFile(filepath.Join(root, "opencode.jsonc"), []byte(jsonc), 0o644)
	os.MkdirAll(filepath.Join(root, ".claude"), 0o755)
	settings := "{\n  /* team settings */\n  \"hooks\": {\n    \"Stop\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]},\n    ],\n  },\n}\n"
	os.WriteFile(filepath.Join(root, ".claude/settings.json"), []byte(settings), 0o644)
	initRepo(t, root, Claude, OpenCode)
	got := read(t, root, "opencode.jsonc")
	want := "{\n\t// the model we pay for\n\t\"model\": \"anthropic/claude-sonnet-4\", // keep\n\t\"mcp\": {\n\t\t\"github\": {\"type\": \"remote\", \"url\": \"https://x\"}, // theirs\n" +
		"\t\t\"flowdeck\": {\n\t\t\t\"type\": \"local\",\n\t\t\t\"command\": [\"flowdeck\", \"mcp\"],\n\t\t\t\"enabled\": true\n\t\t},\n\t},\n}\n"
	if got != want {
		t.Fatalf("opencode.jsonc:\n%s\nwant:\n%s", got, want)
	}
	got = read(t, root, ".claude/settings.json")
	for _, w := range []string{"/* team settings */", "say done", `"command": "flowdeck hud --hook claude"`, "agent-event idle", "    ],\n  },\n}\n"} {
		if !strings.Contains(got, w) {
			t.Fatalf("settings.json lacks %q:\n%s", w, got)
		}
	}
	for _, f := range []string{"opencode.jsonc", ".claude/settings.json"} {
		std, _, err := readJSONC([]byte(read(t, root, f)))
		if err != nil || std == nil {
			t.Fatalf("%s does not parse: %v", f, err)
		}
	}
	mustNoop(t, root, Claude, OpenCode)
}

// opencode's current shapes: the plugin goes to .opencode/plugins/ (the one
// earlier versions wrote to .opencode/plugin/ is removed while it is still
// flowdeck's), and a config in opencode 2's shape gets the server under
// mcp.servers.
func TestInitOpencodeCurrentShape(t *testing.T) {
	root := fixture(t, "")
	os.MkdirAll(filepath.Join(root, ".opencode/plugin"), 0o755)
	os.WriteFile(filepath.Join(root, oldPluginPath), []byte(pluginHeader+"\nold body\n"), 0o644)
	os.WriteFile(filepath.Join(root, "opencode.jsonc"), []byte("{\n  \"mcp\": {\n    \"servers\": {},\n  },\n}\n"), 0o644)
	p, err := Prepare(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(p.Changes); !strings.Contains(d, "--- a/"+oldPluginPath+"\n+++ /dev/null\n") {
		t.Fatalf("diff:\n%s", d)
	}
	if err := Apply(root, p.Changes); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, oldPluginPath)); err == nil {
		t.Fatal("the old plugin is still there")
	}
	if read(t, root, pluginPath) != pluginSource {
		t.Fatal("the plugin is not in .opencode/plugins/")
	}
	want := "{\n  \"mcp\": {\n    \"servers\": {\n      \"flowdeck\": {\n        \"type\": \"local\",\n        \"command\": [\"flowdeck\", \"mcp\"]\n      }\n    },\n  },\n}\n"
	if got := read(t, root, "opencode.jsonc"); got != want {
		t.Fatalf("opencode.jsonc:\n%s\nwant:\n%s", got, want)
	}
	mustNoop(t, root)
	// One the person edited stays.
	os.WriteFile(filepath.Join(root, oldPluginPath), []byte("// mine\n"), 0o644)
	mustNoop(t, root)
}

func TestInitLeavesCoveredGitignoreAndRejectsBrokenJSON(t *testing.T) {
	root := fixture(t, "")
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("/.flow/\n"), 0o644)
	p, err := Prepare(root, nil)
	if err != nil || slices.Contains(paths(p), ".gitignore") || !slices.Equal(p.Agents, []string{Generic}) {
		t.Fatalf("changes %v, agents %v, %v", paths(p), p.Agents, err)
	}
	os.WriteFile(filepath.Join(root, "opencode.json"), []byte("{\n  \"mcp\": {\n}\n"), 0o644)
	if _, err := Prepare(root, []string{OpenCode}); err == nil || !strings.Contains(err.Error(), "opencode.json") || !strings.Contains(err.Error(), "not JSON or JSONC") {
		t.Fatalf("broken opencode.json: %v", err)
	}
	if _, err := Prepare(root, []string{"cursor"}); err == nil {
		t.Fatal("unknown agent accepted")
	}
}

func TestDryRunDiff(t *testing.T) {
	root := fixture(t, "existing")
	p, err := Prepare(root, []string{Claude})
	if err != nil {
		t.Fatal(err)
	}
	d := Diff(p.Changes)
	for _, want := range []string{"mkdir .flow/\n", "--- a/.mcp.json\n+++ b/.mcp.json\n", "+    \"flowdeck\": {\n", "--- a/.gitignore\n+++ b/.gitignore\n"} {
		if !strings.Contains(d, want) {
			t.Fatalf("diff lacks %q:\n%s", want, d)
		}
	}
	if !strings.Contains(d, "--- a/.claude/settings.json") || !strings.Contains(d, "--- a/AGENTS.md") {
		t.Fatalf("diff:\n%s", d)
	}
	// Prepare wrote nothing.
	if _, err := os.Stat(filepath.Join(root, ".flow")); err == nil {
		t.Fatal("Prepare created .flow/")
	}
	p, err = Prepare(fixture(t, ""), []string{Claude})
	if d := Diff(p.Changes); err != nil || !strings.Contains(d, "--- /dev/null\n+++ b/.mcp.json\n@@ -0,0 +1,10 @@\n+{\n") {
		t.Fatalf("diff of a new file:\n%s", d)
	}
}

// needNode finds a Node tool for the plugin test: outside CI a missing one
// skips the test with how to install it; in CI ($FLOWDECK_CI, set by .ci/run)
// it fails, so that the check cannot quietly stop running.
func needNode(t *testing.T, what, path, install string) string {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		return path
	}
	msg := what + " is not installed: " + install + " (.ci/run does)"
	if os.Getenv("FLOWDECK_CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// The generated opencode plugin type-checks (tsc --noEmit) against the real
// @opencode-ai/plugin that .ci/run installs, and node runs it on a fake
// messages array: after two calls exactly one HUD is in the context, and
// flowdeck runs in opencode's directory rather than with --dir.
func TestOpencodePlugin(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		needNode(t, "node", "/nonexistent/node", "apt-get install nodejs")
	}
	modules, _ := filepath.Abs("../.ci/node_modules")
	tsc := needNode(t, "tsc", filepath.Join(modules, ".bin/tsc"), "npm install --prefix .ci typescript")
	needNode(t, "@opencode-ai/plugin", filepath.Join(modules, "@opencode-ai/plugin/package.json"), "npm install --prefix .ci @opencode-ai/plugin")
	dir := t.TempDir()
	// The plugin imports the package as opencode's plugin directory does:
	// from a node_modules beside it.
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "flowdeck.ts"), []byte(pluginSource), 0o644)
	// skipLibCheck: the package's own .d.ts files need @types/node and Bun;
	// the plugin's use of them is checked in full.
	os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(`{
  "compilerOptions": {
    "strict": true, "target": "ES2022", "module": "ES2022", "moduleResolution": "bundler",
    "lib": ["ES2022", "DOM"], "types": [], "skipLibCheck": true, "outDir": "out", "rootDir": "."
  },
  "files": ["flowdeck.ts"]
}
`), 0o644)
	for _, args := range [][]string{{"--noEmit", "-p", dir}, {"-p", dir}} {
		if out, err := exec.Command(tsc, args...).CombinedOutput(); err != nil {
			t.Fatalf("tsc %v: %v\n%s", args, err, out)
		}
	}
	out := filepath.Join(dir, "out")
	os.WriteFile(filepath.Join(out, "package.json"), []byte(`{"type":"module"}`), 0o644)
	test, _ := filepath.Abs("testdata/plugin_test.mjs")
	cmd := exec.Command(node, "--test", test)
	cmd.Env = append(os.Environ(), "PLUGIN_JS="+filepath.Join(out, "flowdeck.js"))
	if res, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node --test: %v\n%s", err, res)
	}
}

// --workers appends the client's worker and reviewer to .flow/config.toml,
// keeps an agent the file defines already, changes nothing the second
// time, and refuses a file that is not TOML naming its line.
func TestInitWorkers(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".flow"), 0o755)
	cfg := filepath.Join(root, ".flow", "config.toml")
	os.WriteFile(cfg, []byte("[agents.reviewer]\ncommand = [\"mine\"]\n"), 0o644)
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte(".flow/\n"), 0o644)
	p, err := PrepareWith(root, Options{Agents: []string{OpenCode}, Workers: OpenCode})
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(root, p.Changes); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(cfg)
	text := string(data)
	if !strings.HasPrefix(text, "[agents.reviewer]\ncommand = [\"mine\"]\n") || !strings.Contains(text, workerAgents[OpenCode][0]) || strings.Contains(text, workerAgents[OpenCode][1]) {
		t.Fatalf(".flow/config.toml:\n%s", text)
	}
	notes := strings.Join(p.Notes, "\n")
	if !strings.Contains(notes, "defines agents.reviewer already") || !strings.Contains(notes, ".gitignore keeps .flow/config.toml out of git") {
		t.Errorf("notes: %s", notes)
	}
	if p, err = PrepareWith(root, Options{Agents: []string{OpenCode}, Workers: OpenCode}); err != nil || len(p.Changes) != 0 {
		t.Fatalf("second init: %v %+v", err, p.Changes)
	}
	os.WriteFile(cfg, []byte("x = = 1\n"), 0o644)
	if _, err := PrepareWith(root, Options{Agents: []string{Claude}, Workers: Claude}); err == nil || !strings.Contains(err.Error(), ".flow/config.toml: line 1") {
		t.Fatalf("broken TOML: %v", err)
	}
}

// The docs show the agents --workers writes, as they are written.
func TestDocsShowTheWorkers(t *testing.T) {
	doc, err := os.ReadFile("../docs/flows.md")
	if err != nil {
		t.Fatal(err)
	}
	for client, tables := range workerAgents {
		if !strings.Contains(string(doc), tables[0]+"\n"+tables[1]) {
			t.Errorf("docs/flows.md does not show the %s worker and reviewer exactly as init writes them", client)
		}
	}
}
