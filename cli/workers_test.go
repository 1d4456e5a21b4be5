package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/internal/fakemodel"
	"github.com/flowdeck/flowdeck/internal/gitwork"
)

// workerClient is how a test drives one agent client as the worker and
// reviewer that `flowdeck init --workers` writes: its tool names and the
// setup of the person's own account (the model's URL and key), which init
// leaves to them.
type workerClient struct {
	agent, pkg             string // --agent, and its npm package
	write, bash, read      string // tool names
	path, content, command string // argument names
	// setup returns the environment that points the client at the fake
	// model at url, with home as $HOME.
	setup func(t *testing.T, home, url string) []string
}

var workerClients = []workerClient{
	{agent: "claude", pkg: "@anthropic-ai/claude-code", write: "Write", bash: "Bash", read: "Read",
		path: "file_path", content: "content", command: "command",
		setup: func(t *testing.T, home, url string) []string {
			return []string{"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=sk-ant-fake",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1"}
		}},
	{agent: "opencode", pkg: "opencode-ai", write: "write", bash: "bash", read: "read",
		path: "filePath", content: "content", command: "command",
		setup: func(t *testing.T, home, url string) []string {
			dir := filepath.Join(home, ".config", "opencode")
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "opencode.json"), []byte(`{"autoupdate": false, "share": "disabled",
  "model": "anthropic/claude-sonnet-4-5", "small_model": "anthropic/claude-sonnet-4-5",
  "provider": {"anthropic": {"options": {"baseURL": "`+url+`/v1", "apiKey": "sk-ant-fake"}}}}`), 0o644)
			return nil
		}},
}

// TestInitWorkersClaude runs the worker and reviewer that `flowdeck init
// --agent claude --workers` writes, unchanged, with the real Claude Code.
func TestInitWorkersClaude(t *testing.T) { initWorkers(t, workerClients[0]) }

// TestInitWorkersOpencode is the same with the real opencode (`opencode
// run`).
func TestInitWorkersOpencode(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: three opencode sessions (~15 s each)")
	}
	initWorkers(t, workerClients[1])
}

// initWorkers: in a new git repository, `flowdeck init --agent CLIENT
// --workers`, committed, and a one-feature plan in worktrees; `flows run
// run` sends the feature to the worker, which a fake model on 127.0.0.1
// has write a file and run a shell command that commits it in its
// worktree (neither refused for want of a permission: the verification
// finds both files); then the reviewer, which may read the file but has no
// tool to write one. The run ends waiting for the person's review.
func initWorkers(t *testing.T, c workerClient) {
	client := needClient(t, c)
	if !gitwork.Available() {
		t.Skip("git is not installed")
	}
	dir, home := t.TempDir(), t.TempDir()
	wt := filepath.Join(dir, ".flow", "worktrees", "hello")
	answer := func(v string) fakemodel.Step { return fakemodel.Step{Text: "```json\n" + v + "\n```"} }
	worker := []fakemodel.Step{
		{Tool: c.write, Input: map[string]any{c.path: filepath.Join(wt, "hello.txt"), c.content: "hello\n"}},
		{Tool: c.bash, Input: map[string]any{c.command: `sh -c 'echo ran > ran.txt' && git add hello.txt ran.txt && git commit -q -m hello`,
			"description": "record the run and commit"}},
		{Tool: c.write, Input: map[string]any{c.path: filepath.Join(dir, "outside.txt"), c.content: "x\n"}},
		answer(`{"outcome": "completed", "summary": "hello.txt written and committed"}`),
	}
	reviewer := []fakemodel.Step{
		{Tool: c.read, Input: map[string]any{c.path: filepath.Join(wt, "hello.txt")}},
		{Tool: c.write, Input: map[string]any{c.path: filepath.Join(wt, "review.txt"), c.content: "x\n"}},
		answer(`{"verdict": "approved", "findings": []}`),
	}
	role := func(r *fakemodel.Request) string {
		switch text := r.Text(); {
		case strings.Contains(text, "Review feature **hello**"):
			return "reviewer"
		case strings.Contains(text, "merge the integration branch into your branch"):
			return "catch-up"
		case strings.Contains(text, "You are the worker on feature **hello**"):
			return "worker"
		}
		return ""
	}
	fm, err := fakemodel.NewRouted(func(r *fakemodel.Request) []fakemodel.Step {
		switch role(r) {
		case "worker":
			return worker
		case "reviewer":
			return reviewer
		}
		return []fakemodel.Step{answer(`{"outcome": "completed", "summary": "up to date"}`)}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer fm.Close()

	env := append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"FLOWDECK_CONFIG=" + filepath.Join(home, "no-user-config.toml"),
		"PATH=" + filepath.Dir(binary) + string(os.PathListSeparator) + filepath.Dir(client) + string(os.PathListSeparator) + os.Getenv("PATH")},
		c.setup(t, home, fm.URL)...)
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q", "-b", "main")
	git("config", "user.name", "tester")
	git("config", "user.email", "tester@example.com")
	must := func(args ...string) string {
		t.Helper()
		out, errs, code := flowdeckEnv(t, dir, env, args...)
		if code != 0 {
			t.Fatalf("flowdeck %v: exit %d\n%s\n%s", args, code, out, errs)
		}
		return out
	}
	must("init", "--agent", c.agent, "--workers")
	if _, errs, _ := flowdeckEnv(t, dir, env, "config", "show"); errs != "" {
		t.Fatalf("the config init wrote has problems: %s", errs)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "flowdeck init --workers")
	os.WriteFile(filepath.Join(home, "plan.json"), []byte(`{"summary": "one feature", "worktrees": true, "features": [
		{"id": "hello", "title": "Hello", "verification": ["test -f hello.txt", "test -f ran.txt"]}]}`), 0o644)
	must("flow", "plan", "start", "workers")
	must("flow", "plan", "apply", filepath.Join(home, "plan.json"))
	must("flow", "plan", "approve")

	out, errs, code := flowdeckEnv(t, dir, env, "flows", "run", "run", "hello", "--no-wait")
	defer func() {
		if t.Failed() {
			t.Logf("flows run: exit %d\n%s\n%s", code, out, errs)
			for _, r := range fm.Main() {
				for name, res := range r.ToolResults() {
					for _, b := range res {
						t.Logf("%s: %s (error %v): %.300s", role(r), name, b.IsError, b.ResultText())
					}
				}
			}
		}
	}()
	if code != 0 {
		t.Fatalf("flows run run: exit %d", code)
	}

	// The worker: both tool calls went through, in its worktree.
	for _, f := range []string{"hello.txt", "ran.txt"} {
		if _, err := os.Stat(filepath.Join(wt, f)); err != nil {
			t.Errorf("the worker's %s is not in its worktree: %v", f, err)
		}
	}
	if log, err := exec.Command("git", "-C", wt, "log", "-1", "--format=%s").Output(); err != nil || strings.TrimSpace(string(log)) != "hello" {
		t.Errorf("the worker's commit: %q %v", log, err)
	}
	// The last request of each conversation holds all its tool results.
	last := map[string]map[string][]fakemodel.Block{}
	for _, r := range fm.Main() {
		last[role(r)] = r.ToolResults()
	}
	w := last["worker"]
	if len(w[c.write]) != 2 || len(w[c.bash]) != 1 {
		t.Fatalf("the worker's tool results: %+v", w)
	}
	for _, b := range []fakemodel.Block{w[c.write][0], w[c.bash][0]} {
		if b.IsError {
			t.Errorf("a tool call of the worker was refused: %s", b.ResultText())
		}
	}
	// Outside its worktree (the project root is), it writes nothing.
	if _, err := os.Stat(filepath.Join(dir, "outside.txt")); err == nil || !w[c.write][1].IsError {
		t.Errorf("the worker wrote outside its worktree: %s", w[c.write][1].ResultText())
	}
	rv := last["reviewer"]
	if len(rv[c.read]) != 1 || rv[c.read][0].IsError || !strings.Contains(rv[c.read][0].ResultText(), "hello") {
		t.Errorf("the reviewer's %s: %+v", c.read, rv[c.read])
	}
	if _, err := os.Stat(filepath.Join(wt, "review.txt")); err == nil {
		t.Error("the reviewer wrote a file")
	}
}
