package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// The MCP Inspector's CLI, a client other than the Go SDK's, lists the
// tools of the real server and calls one that is accepted and one that is
// refused. .ci/run installs it from npm; without it the test skips.
func TestInspectorCLI(t *testing.T) {
	inspector, _ := filepath.Abs("../.ci/node_modules/.bin/mcp-inspector")
	if _, err := os.Stat(inspector); err != nil {
		t.Skip("the MCP Inspector is not installed: npm install --prefix .ci @modelcontextprotocol/inspector (.ci/run does)")
	}
	project := t.TempDir()
	inspect := func(args ...string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, inspector, append([]string{"--cli", bin, "--dir", project, "mcp"}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s", args, err, out)
		}
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("inspector %v: %v\n%s", args, err, out)
		}
		return v
	}
	if tools := inspect("--method", "tools/list")["tools"].([]any); len(tools) != len(allTools) {
		t.Fatalf("%d tools", len(tools))
	}
	res := inspect("--method", "tools/call", "--tool-name", "flow_plan_start", "--tool-arg", "goal=From the inspector")
	sc, _ := res["structuredContent"].(map[string]any)
	if res["isError"] == true || sc["ok"] != true || sc["session"].(map[string]any)["goal"] != "From the inspector" {
		t.Fatalf("plan start = %v", res)
	}
	res = inspect("--method", "tools/call", "--tool-name", "flow_plan_approve")
	sc, _ = res["structuredContent"].(map[string]any)
	if e, _ := sc["error"].(map[string]any); res["isError"] != true || e["code"] != model.CodeNoPlan || e["recovery"] == nil {
		t.Fatalf("refused approve = %v", res)
	}
}
