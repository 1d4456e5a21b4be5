package mcp_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/internal/fakemodel"
)

// npmClient finds an agent client as .ci/run installs it. Outside CI a
// missing client skips the test with how to install it; under .ci/run
// ($FLOWDECK_CI) it fails, so the check cannot quietly stop running.
func npmClient(t *testing.T, name, pkg string) string {
	t.Helper()
	p, _ := filepath.Abs("../.ci/node_modules/.bin/" + name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	msg := name + " is not installed: npm install --prefix .ci " + pkg + " (.ci/run does)"
	if os.Getenv("FLOWDECK_CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

const mcpTool = "mcp__flowdeck__"

// sessionScript is the model's side of a short session, its tools named
// with the client's prefix for flowdeck's: look, start a session, try to
// approve before there is a plan (refused), plan, approve, work one feature
// with observed evidence (broad: it is the last one), review it, record the
// final review, and complete it (which completes the session).
func sessionScript(prefix string) []fakemodel.Step {
	return []fakemodel.Step{
		{Tool: prefix + "flow_status"},
		{Tool: prefix + "flow_plan_start", Input: map[string]any{"goal": "fake-model goal"}},
		{Tool: prefix + "flow_plan_approve"},
		{Tool: prefix + "flow_plan_apply", Input: map[string]any{"plan": map[string]any{"features": []any{
			map[string]any{"id": "alpha", "title": "Alpha", "verification": []any{"true"}}}}}},
		{Tool: prefix + "flow_plan_approve"},
		{Tool: prefix + "flow_run_start"},
		{Tool: prefix + "run", Input: map[string]any{"command": []any{"true"}, "feature_id": "alpha", "scope": "broad"}},
		{Tool: prefix + "flow_review_record_feature", Input: map[string]any{"feature_id": "alpha", "decision": "approved"}},
		{Tool: prefix + "flow_review_record_final", Input: map[string]any{"decision": "approved"}},
		{Tool: prefix + "flow_run_complete_feature", Input: map[string]any{"feature_id": "alpha", "outcome": "completed"}},
	}
}

// checkSession checks what a scripted session left for the model and in
// the project: the refused approve reached the model as a tool error, the
// other actions went through, the session completed and replays, and the
// client's idle event is recorded.
func checkSession(t *testing.T, project, prefix, agent string, last *fakemodel.Request) {
	t.Helper()
	results := last.ToolResults()
	approve := results[prefix+"flow_plan_approve"]
	// OpenAI's chat completions have no error flag on a tool result: there
	// the refusal is the result's own {"ok":false, ...}.
	flagged := approve != nil && (approve[0].IsError || last.API == "openai" && strings.Contains(approve[0].ResultText(), `"ok":false`))
	if len(approve) != 2 || !flagged || !strings.Contains(approve[0].ResultText(), `"code":"no_plan"`) {
		t.Errorf("the refused approve did not reach the model as a tool error: %+v", approve)
	}
	for _, tool := range []string{"flow_plan_apply", "run", "flow_run_complete_feature"} {
		if r := results[prefix+tool]; len(r) != 1 || r[0].IsError {
			t.Errorf("%s: %+v", tool, r)
		}
	}
	if out := flowdeck(t, project, "--json", "flow", "status"); !strings.Contains(out, `"status": "completed"`) {
		t.Fatalf("status after the session: %s", out)
	}
	flowdeck(t, project, "flow", "verify")
	if agents := flowdeck(t, project, "--json", "agents"); !strings.Contains(agents, `"agent": "`+agent+`"`) || !strings.Contains(agents, `"event": "idle"`) {
		t.Errorf("no idle recorded for %s: %s", agent, agents)
	}
}

// clientProject is a git repository set up by `flowdeck init --agent
// AGENT`, with a subdirectory, and the environment the client runs in:
// flowdeck on PATH, a home of its own.
func clientProject(t *testing.T, agent string) (project, sub string, env []string) {
	project = t.TempDir()
	// A real repository: Claude Code reads a project's settings at its
	// top level.
	if out, err := exec.Command("git", "init", "-q", project).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	sub = filepath.Join(project, "pkg", "sub")
	os.MkdirAll(sub, 0o755)
	home := t.TempDir()
	// The person allows the project's MCP server once; a test cannot
	// click, so the user settings say so.
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"enableAllProjectMcpServers": true}`), 0o644)
	env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	initCmd := exec.Command(bin, "init", "--agent", agent)
	initCmd.Dir, initCmd.Env = project, env
	if out, err := initCmd.CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	return project, sub, env
}

// runClaude runs `claude -p` in dir against a fake model that follows
// script, and returns the requests of its main loop (one per step, and the
// last, answered with text).
func runClaude(t *testing.T, claude, dir string, env []string, script []fakemodel.Step) []*fakemodel.Request {
	t.Helper()
	model, err := fakemodel.New(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	return runClient(t, model, len(script), dir, append(env, "ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=sk-ant-fake",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1"),
		claude, "-p", "Work the flowdeck session.", "--output-format", "json",
		"--allowedTools", "mcp__flowdeck", "--model", "claude-sonnet-4-5")
}

// runClient runs an agent client's argv in dir with env against model and
// returns the requests of its main loop: one per step of the script, and
// the last, answered with text.
func runClient(t *testing.T, model *fakemodel.Server, steps int, dir string, env []string, argv ...string) []*fakemodel.Request {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	main := model.Main()
	if err != nil || len(main) != steps+1 {
		t.Fatalf("%s: %v: %d requests, %d of the main loop for %d steps\nstdout: %s\nstderr: %s",
			filepath.Base(argv[0]), err, len(model.Requests()), len(main), steps, stdout.String(), stderr.String())
	}
	return main
}

// TestClaudeCodeSession drives the real Claude Code (from npm) through
// `flowdeck mcp`, set up by `flowdeck init --agent claude`, with a fake
// model on 127.0.0.1: the whole session goes through, a refusal reaches the
// model as a tool error, the core tools are in the model's context without
// a tool search, the HUD arrives as the hook's additional context with its
// stamp, and the Stop hook records the agent as idle. Started again in a
// subdirectory, its MCP server works on the same session.
func TestClaudeCodeSession(t *testing.T) {
	claude := npmClient(t, "claude", "@anthropic-ai/claude-code")
	project, sub, env := clientProject(t, "claude")
	main := runClaude(t, claude, project, env, sessionScript(mcpTool))
	first, last := main[0], main[len(main)-1]
	for _, tool := range []string{"flow_status", "flow_run_start", "run", "flow_run_complete_feature"} {
		if !first.HasTool(mcpTool + tool) {
			t.Errorf("%s is not in the model's context (behind the tool search?)", tool)
		}
	}
	// The HUD, stamped, as the hook's additional context (not as the
	// "hook success" text of a plain stdout).
	hud := regexp.MustCompile(`hook additional context: flowdeck \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)\nstatus: no active session\n`)
	if text := first.Text(); !hud.MatchString(text) || strings.Contains(text, "hook success") {
		t.Errorf("no HUD in the first prompt's context:\n%s", text)
	}
	// Each prompt gets a fresh one: the last request carries the first
	// prompt's only (claude -p submits one prompt).
	if n := strings.Count(last.Text(), "hook additional context: flowdeck ("); n != 1 {
		t.Errorf("%d HUDs in the last request", n)
	}
	if text := last.Text(); !strings.Contains(text, "## Working under flowdeck") {
		t.Errorf("CLAUDE.md did not bring in AGENTS.md")
	}
	checkSession(t, project, mcpTool, "claude", last)

	// From a subdirectory (Claude Code reads the project's hooks only at
	// its top level, but finds .mcp.json): the server is on the root's
	// session, and no second project appears.
	main = runClaude(t, claude, sub, env, []fakemodel.Step{{Tool: mcpTool + "flow_status"}})
	status := main[len(main)-1].ToolResults()[mcpTool+"flow_status"]
	if len(status) != 1 || !strings.Contains(status[0].ResultText(), "fake-model goal") {
		t.Errorf("flow_status from the subdirectory: %+v", status)
	}
	if _, err := os.Stat(filepath.Join(sub, ".flow")); err == nil {
		t.Error("the subdirectory got a .flow of its own")
	}
}
