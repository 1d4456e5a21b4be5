package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestAgentSandbox(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(path, []byte(`[agents.worker]
command = ["claude", "-p"]
sandbox = true
sandbox_paths = { read = ["~/tools", "/opt/sdk"], write = ["~/.cache/pip", "build-cache"] }

[agents.reviewer]
command = ["review"]

[agents.planner]
command = ["plan"]
sandbox = true
sandbox_paths = { write = ["~alice/.ssh"] }
`), 0o644)
	c, errs := Load(path)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `:9: agents.planner: sandbox_paths: "~alice/.ssh"`) {
		t.Fatalf("errors: %v", errs)
	}
	w := c.Agents["worker"]
	if !w.Sandbox || !slices.Equal(w.SandboxPaths.Read, []string{"~/tools", "/opt/sdk"}) || !slices.Equal(w.SandboxPaths.Write, []string{"~/.cache/pip", "build-cache"}) {
		t.Fatalf("worker: %+v", w)
	}
	if c.Agents["reviewer"].Sandbox {
		t.Fatal("sandbox is opt-in")
	}
	if _, ok := c.Agents["planner"]; ok {
		t.Fatal("an agent with a bad sandbox path must fall back to the person, never run unsandboxed")
	}
}
