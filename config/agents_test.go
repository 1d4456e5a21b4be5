package config

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestAgents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(path, []byte(`bell = "off"

[agents.worker]
command = ["claude", "-p"]
env = { MODEL = "x" }
timeout = "30m"
limits = { memory = "2G", pids = 64, cpu = 1.5 }

[agents.planner]
command = ["plan"]
prompt = "file"

[agents.reviewer]
command = ["review"]
prompt = "telepathy"
`), 0o644)
	c, errs := Load(path)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), ":13: agents.reviewer: prompt = \"telepathy\"") {
		t.Fatalf("errors: %v", errs)
	}
	w := c.Agents["worker"]
	if w.Prompt != PromptStdin || w.Env["MODEL"] != "x" || w.AgentTimeout().Minutes() != 30 || w.Limits.Pids != 64 || w.Limits.Memory != "2G" {
		t.Fatalf("worker: %+v", w)
	}
	if c.Agents["planner"].Prompt != PromptFile || c.Bell != BellOff {
		t.Fatalf("config: %+v", c)
	}
	if roles := slices.Sorted(maps.Keys(c.Agents)); strings.Join(roles, ",") != "planner,worker" {
		t.Fatalf("roles %v", roles)
	}
}
