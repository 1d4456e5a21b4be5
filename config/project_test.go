package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadUser(t *testing.T, text string) Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(path, []byte(text), 0o644)
	c, errs := Load(path)
	if len(errs) > 0 {
		t.Fatalf("user config: %v", errs)
	}
	return c
}

const userText = `bell = "off"
[run]
timeout = "30m"
pids = 64
redact = ['corp-[0-9]{6}']
[run.env]
PAGER = "less"
EDITOR = "vi"

[agents.worker]
command = ["claude", "-p"]
timeout = "1h"
env = { MODEL = "x" }

[agents.planner]
command = ["plan"]
`

// The project's file wins key by key in [run], [run.env] and [session],
// adds its redaction rules, and replaces an agent of the same name whole.
func TestMergeProject(t *testing.T) {
	user := loadUser(t, userText)
	c, errs := Merge(user, "/p/.flow/config.toml", []byte(`[run]
timeout = "2h"
redact = ['team-[a-z]{8}']
[run.env]
PAGER = "cat"
[session]
max_parallel = 3

[agents.worker]
command = ["opencode", "run"]
`))
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	r := c.Run
	if r.Timeout != "2h" || r.Pids != 64 || r.Env["PAGER"] != "cat" || r.Env["EDITOR"] != "vi" ||
		strings.Join(r.Redact, " ") != "corp-[0-9]{6} team-[a-z]{8}" || c.Session.MaxParallel != 3 {
		t.Fatalf("run %+v session %+v", r, c.Session)
	}
	w := c.Agents["worker"]
	if strings.Join(w.Command, " ") != "opencode run" || w.Timeout != "" || w.Env != nil || w.Prompt != PromptStdin {
		t.Fatalf("worker not replaced whole: %+v", w)
	}
	if c.Agents["planner"].Command[0] != "plan" || c.Bell != BellOff {
		t.Fatalf("the user's other settings: %+v", c)
	}
	if user.Run.Env["PAGER"] != "less" || len(user.Run.Redact) != 1 {
		t.Fatal("Merge changed the user's config")
	}
}

// Personal settings, unknown keys and broken values of a project file are
// errors naming its file and line; the rest of it applies. A file that does
// not parse is not used, naming its line.
func TestMergeProjectErrors(t *testing.T) {
	user := loadUser(t, userText)
	path := "/p/.flow/config.toml"
	c, errs := Merge(user, path, []byte(`actor = "mallory"
[keys]
quit = ["x"]
[run]
colour = 3
stall = "soon"
[agents.worker]
command = []
[agents.reviewer]
command = ["review"]
env = { A = "${UNCLOSED" }
`))
	want := []string{path + ":1: actor is a personal setting", path + ":2: keys is a personal setting",
		path + `:5: unknown setting "run.colour"`, path + `:6: run.stall = "soon"`,
		path + ":7: agents.worker: command is empty", path + ":9: agents.reviewer: env A"}
	all := ""
	for _, e := range errs {
		all += e.Error() + "\n"
	}
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no error %q in:\n%s", w, all)
		}
	}
	if c.Actor != "" || c.Keys != nil || c.Agents["worker"].Command != nil || c.Agents["reviewer"].Command != nil || c.Agents["planner"].Command == nil {
		t.Fatalf("merged %+v", c)
	}

	c, errs = Merge(user, path, []byte("[run]\ntimeout = \"1h\"\npids = = 1\n"))
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), path+":3: ") || c.Run.Timeout != "30m" {
		t.Fatalf("bad TOML: %v, timeout %q", errs, c.Run.Timeout)
	}
}

// A literal the redaction rules take for a secret refuses the whole project
// file, naming the line; ${NAME} references are fine, and the user's own
// run.redact rules count.
func TestMergeProjectSecrets(t *testing.T) {
	user := loadUser(t, userText)
	path := "/p/.flow/config.toml"
	for text, line := range map[string]int{
		"[agents.worker]\ncommand = [\"claude\"]\nenv = { ANTHROPIC_API_KEY = \"sk-ant-api03-abcdefghijklmnopqrstuvwxyz\" }\n": 3,
		"[agents.worker]\ncommand = [\"claude\"]\n[agents.worker.env]\nMODEL = \"x\"\nGITHUB_TOKEN = \"abc123\"\n":             5,
		"[agents.worker]\ncommand = [\"tool\", \"--api-key\", \"hunter2\"]\n":                                                  2,
		"[run.env]\nX = \"corp-123456\"\n":                                                  2,
		"# old key: sk-ant-api03-abcdefghijklmnopqrstuvwxyz\n[session]\nmax_parallel = 2\n": 1,
	} {
		c, errs := Merge(user, path, []byte(text))
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), fmt.Sprintf("%s:%d:", path, line)) || !strings.Contains(errs[0].Error(), "secret") {
			t.Errorf("%q: errors %v, want one at line %d", text, errs, line)
		}
		if strings.Contains(errs[0].Error(), "abcdefghij") || strings.Contains(errs[0].Error(), "hunter2") {
			t.Errorf("the error shows the secret: %v", errs[0])
		}
		if c.Agents["worker"].Command[0] != "claude" || c.Session.MaxParallel != 0 {
			t.Errorf("%q: the file was used: %+v", text, c)
		}
	}
	c, errs := Merge(user, path, []byte("[agents.worker]\ncommand = [\"claude\"]\nenv = { ANTHROPIC_API_KEY = \"${ANTHROPIC_API_KEY}\", GH_TOKEN = \"${CI_GH_TOKEN}\" }\n"))
	if len(errs) != 0 || c.Agents["worker"].Env["GH_TOKEN"] != "${CI_GH_TOKEN}" {
		t.Fatalf("references refused: %v", errs)
	}
}

// Environ fills ${NAME} from the environment and refuses a missing one.
func TestAgentEnviron(t *testing.T) {
	a := Agent{Env: map[string]string{"ANTHROPIC_API_KEY": "${K}", "URL": "http://${HOST}:80", "PLAIN": "$x {y}"}}
	env := map[string]string{"K": "sk-1", "HOST": "h"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	got, err := a.Environ("worker", lookup)
	if err != nil || got["ANTHROPIC_API_KEY"] != "sk-1" || got["URL"] != "http://h:80" || got["PLAIN"] != "$x {y}" {
		t.Fatalf("%v %v", got, err)
	}
	delete(env, "HOST")
	if _, err := a.Environ("worker", lookup); err == nil || !strings.Contains(err.Error(), "agents.worker: env URL") || !strings.Contains(err.Error(), "HOST is not set") {
		t.Fatalf("missing variable: %v", err)
	}
}

// Settings say where each value in effect came from.
func TestSettingsOrigins(t *testing.T) {
	dir := t.TempDir()
	upath := filepath.Join(dir, "config.toml")
	os.WriteFile(upath, []byte(userText), 0o644)
	user, _ := Load(upath)
	ppath := "/p/.flow/config.toml"
	c, errs := Merge(user, ppath, []byte("[run]\ntimeout = \"2h\"\nredact = ['x-[0-9]{4}']\n\n[agents.worker]\ncommand = [\"opencode\", \"run\"]\n"))
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	got := map[string]string{}
	for _, s := range c.Settings(nil) {
		var from []string
		for _, o := range s.From {
			from = append(from, o.String())
		}
		got[s.Key] = jsonText(s.Value) + " " + strings.Join(from, ",")
	}
	for key, want := range map[string]string{
		"bell":                   `"off" ` + upath + ":1",
		"theme":                  `"auto" `,
		"mouse":                  `true `,
		"run.timeout":            `"2h" ` + ppath + ":2",
		"run.pids":               `64 ` + upath + ":4",
		"run.redact":             `["corp-[0-9]{6}","x-[0-9]{4}"] ` + upath + ":5," + ppath + ":3",
		"run.env.EDITOR":         `"vi" ` + upath + ":8",
		"agents.worker.command":  `["opencode","run"] ` + ppath + ":6",
		"agents.planner.command": `["plan"] ` + upath + ":16",
	} {
		if got[key] != want {
			t.Errorf("%s: %q, want %q", key, got[key], want)
		}
	}
	if _, ok := got["agents.worker.timeout"]; ok {
		t.Error("the user's worker timeout shows though the project replaced the worker")
	}
}

// A project's config (agents can write it) may ask for a sandbox but
// never drop the person's or widen its paths.
func TestProjectCannotLoosenTheSandbox(t *testing.T) {
	user := loadUser(t, "[agents.worker]\ncommand = [\"claude\", \"-p\"]\nsandbox = true\nsandbox_paths = { write = [\"~/.cache/pip\"] }\n")
	c, errs := Merge(user, "/p/.flow/config.toml", []byte("[agents.worker]\ncommand = [\"opencode\", \"run\"]\nsandbox = false\n"+
		"sandbox_paths = { write = [\"/\"] }\n\n[agents.reviewer]\ncommand = [\"opencode\", \"run\"]\nsandbox = true\n"))
	w := c.Agents["worker"]
	if !w.Sandbox || len(w.SandboxPaths.Write) != 1 || w.SandboxPaths.Write[0] != "~/.cache/pip" || w.Command[0] != "opencode" {
		t.Fatalf("the worker after the project's config: %+v", w)
	}
	if !c.Agents["reviewer"].Sandbox {
		t.Fatal("the project's own sandbox request was dropped")
	}
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "config.toml:1: agents.worker") {
		t.Fatalf("the loosening is not reported with the file and line: %v", errs)
	}
}

// A project's [agents.worker-2] keeps the sandbox the person gave the
// role's agents ([agents.worker]) unless the person configured worker-2
// too.
func TestProjectWorkerKKeepsTheRolesSandbox(t *testing.T) {
	user := loadUser(t, "[agents.worker]\ncommand = [\"claude\", \"-p\"]\nsandbox = true\n\n[agents.worker-3]\ncommand = [\"claude\", \"-p\"]\n")
	c, _ := Merge(user, "/p/.flow/config.toml", []byte("[agents.worker-2]\ncommand = [\"opencode\", \"run\"]\n\n"+
		"[agents.worker-3]\ncommand = [\"opencode\", \"run\"]\n\n[agents.planner-x]\ncommand = [\"opencode\", \"run\"]\n"))
	if w := c.Agents["worker-2"]; !w.Sandbox || w.Command[0] != "opencode" {
		t.Errorf("the project's worker-2: %+v", w)
	}
	if w := c.Agents["worker-3"]; w.Sandbox {
		t.Errorf("worker-3 is the person's own, unsandboxed: %+v", w)
	}
	for name, role := range map[string]string{"worker-2": "worker", "worker-12": "worker", "worker": "worker", "worker-": "worker-",
		"-2": "-2", "worker-1-b": "worker-1-b", "code-reviewer": "code-reviewer"} {
		if got := AgentRole(name); got != role {
			t.Errorf("AgentRole(%q) = %q, want %q", name, got, role)
		}
	}
}
