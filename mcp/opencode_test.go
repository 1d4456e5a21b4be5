package mcp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/internal/fakemodel"
)

// opencode names an MCP server's tools SERVER_TOOL.
const ocTool = "flowdeck_"

// ocProviders are opencode's user configurations pointing a provider at
// the fake model (%q: its URL), by the API it speaks: opencode's own
// anthropic provider, and a custom provider on the AI SDK's
// OpenAI-compatible package (chat completions).
var ocProviders = map[string]string{
	"anthropic": `"model": "anthropic/claude-sonnet-4-5", "small_model": "anthropic/claude-sonnet-4-5",
  "provider": {"anthropic": {"options": {"baseURL": "%s/v1", "apiKey": "sk-ant-fake"}}}`,
	"openai": `"model": "fake/fake-model", "small_model": "fake/fake-model",
  "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake model",
    "options": {"baseURL": "%s/v1", "apiKey": "sk-fake"},
    "models": {"fake-model": {"name": "Fake model", "tool_call": true}}}}`,
}

// runOpencode runs `opencode run` in dir against a fake model that follows
// script, reached over api (a key of ocProviders), and returns the
// requests of its main loop.
func runOpencode(t *testing.T, opencode, api, dir string, env []string, script []fakemodel.Step) []*fakemodel.Request {
	t.Helper()
	model, err := fakemodel.New(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	var home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_CONFIG_HOME="); ok {
			home = v
		}
	}
	cfg := filepath.Join(home, "opencode")
	os.MkdirAll(cfg, 0o755)
	os.WriteFile(filepath.Join(cfg, "opencode.json"), []byte(`{
  "autoupdate": false, "share": "disabled",
  `+fmt.Sprintf(ocProviders[api], model.URL)+"\n}\n"), 0o644)
	// opencode takes its directory from $PWD.
	main := runClient(t, model, len(script), dir, append(env, "PWD="+dir), opencode, "run", "Work the flowdeck session.")
	// Streamed: the fake's server-sent events are what opencode parsed.
	for _, r := range main {
		if r.API != api || !r.Stream {
			t.Fatalf("opencode spoke %s (streaming: %v), not streamed %s", r.API, r.Stream, api)
		}
	}
	return main
}

// TestOpencodeSession drives the real opencode (from npm) through `flowdeck
// mcp` and the generated plugin, set up by `flowdeck init --agent
// opencode`, with a fake model on 127.0.0.1: the whole session goes
// through, a refusal reaches the model as a tool error, every request
// carries exactly one HUD, stamped and current, and session.idle is
// recorded. Started again in a subdirectory, the plugin and the server are
// on the same session. All of it over each API opencode can speak to a
// model: Anthropic Messages and OpenAI chat completions.
func TestOpencodeSession(t *testing.T) {
	if testing.Short() {
		t.Skip("two opencode sessions per model API (~40 s each); skipped with -short")
	}
	opencode := npmClient(t, "opencode", "opencode-ai")
	for _, api := range []string{"anthropic", "openai"} {
		t.Run(api, func(t *testing.T) { opencodeSession(t, opencode, api) })
	}
}

func opencodeSession(t *testing.T, opencode, api string) {
	project, sub, env := clientProject(t, "opencode")
	main := runOpencode(t, opencode, api, project, env, sessionScript(ocTool))
	if !main[0].HasTool(ocTool + "flow_status") {
		t.Error("flowdeck's tools are not offered to the model")
	}
	stamp := regexp.MustCompile(`<flowdeck-hud>\nflowdeck \((seq \d+, )?\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)`)
	for i, r := range main {
		if text := r.Text(); strings.Count(text, "<flowdeck-hud>") != 1 || !stamp.MatchString(text) {
			t.Fatalf("request %d: not exactly one stamped HUD:\n%s", i, text)
		}
	}
	if last := main[len(main)-1].Text(); !strings.Contains(last, "(seq ") || !strings.Contains(last, "fake-model goal") {
		t.Errorf("the last HUD is not the current session's:\n%s", last)
	}
	checkSession(t, project, ocTool, "opencode", main[len(main)-1])

	main = runOpencode(t, opencode, api, sub, env, []fakemodel.Step{{Tool: ocTool + "flow_status"}})
	status := main[len(main)-1].ToolResults()[ocTool+"flow_status"]
	if len(status) != 1 || !strings.Contains(status[0].ResultText(), "fake-model goal") || !strings.Contains(main[0].Text(), "fake-model goal") {
		t.Errorf("from the subdirectory: status %+v, HUD:\n%s", status, main[0].Text())
	}
	if _, err := os.Stat(filepath.Join(sub, ".flow")); err == nil {
		t.Error("the subdirectory got a .flow of its own")
	}
}
