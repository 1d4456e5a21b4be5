package mcp_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/internal/fakemodel"
)

// opencode names an MCP server's tools SERVER_TOOL.
const ocTool = "flowdeck_"

// runOpencode runs `opencode run` in dir against a fake model that follows
// script (opencode's anthropic provider pointed at it by the user config)
// and returns the requests of its main loop.
func runOpencode(t *testing.T, opencode, dir string, env []string, script []fakemodel.Step) []*fakemodel.Request {
	t.Helper()
	model, err := fakemodel.NewAnthropic(script)
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
	os.WriteFile(filepath.Join(cfg, "opencode.json"), []byte(fmt.Sprintf(`{
  "autoupdate": false, "share": "disabled",
  "model": "anthropic/claude-sonnet-4-5", "small_model": "anthropic/claude-sonnet-4-5",
  "provider": {"anthropic": {"options": {"baseURL": %q, "apiKey": "sk-ant-fake"}}}
}
`, model.URL+"/v1")), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, opencode, "run", "Work the flowdeck session.")
	// opencode takes its directory from $PWD.
	cmd.Dir, cmd.Env = dir, append(env, "PWD="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	main := model.Main()
	if err != nil || len(main) != len(script)+1 {
		t.Fatalf("opencode: %v: %d requests, %d of the main loop for %d steps\nstdout: %s\nstderr: %s",
			err, len(model.Requests()), len(main), len(script), stdout.String(), stderr.String())
	}
	return main
}

// TestOpencodeSession drives the real opencode (from npm) through `flowdeck
// mcp` and the generated plugin, set up by `flowdeck init --agent
// opencode`, with a fake model on 127.0.0.1: the whole session goes
// through, a refusal reaches the model as a tool error, every request
// carries exactly one HUD, stamped and current, and session.idle is
// recorded. Started again in a subdirectory, the plugin and the server are
// on the same session.
func TestOpencodeSession(t *testing.T) {
	if testing.Short() {
		t.Skip("two opencode sessions (~40 s); skipped with -short")
	}
	opencode := npmClient(t, "opencode", "opencode-ai")
	project, sub, env := clientProject(t, "opencode")
	main := runOpencode(t, opencode, project, env, sessionScript(ocTool))
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

	main = runOpencode(t, opencode, sub, env, []fakemodel.Step{{Tool: ocTool + "flow_status"}})
	status := main[len(main)-1].ToolResults()[ocTool+"flow_status"]
	if len(status) != 1 || !strings.Contains(status[0].ResultText(), "fake-model goal") || !strings.Contains(main[0].Text(), "fake-model goal") {
		t.Errorf("from the subdirectory: status %+v, HUD:\n%s", status, main[0].Text())
	}
	if _, err := os.Stat(filepath.Join(sub, ".flow")); err == nil {
		t.Error("the subdirectory got a .flow of its own")
	}
}
