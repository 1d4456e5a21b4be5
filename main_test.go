package main

import (
	"os/exec"
	"strings"
	"testing"
)

// heavyPackages are imports the lean binary must not link: the cockpit's
// and the MCP server's libraries, and x/ansi, whose go-runewidth dependency
// alone spends ~17 ms of init in every process (an agent calls flowdeck
// many times a minute). x/ansi/parser, the bare state table, is fine.
var heavyPackages = []string{
	"github.com/charmbracelet/x/ansi",
	"github.com/mattn/go-runewidth",
	"charm.land/lipgloss",
	"github.com/charmbracelet/lipgloss",
	"charm.land/bubbletea",
	"github.com/charmbracelet/bubbletea",
	"charm.land/bubbles",
	"charm.land/glamour",
	"github.com/alecthomas/chroma",
	"github.com/modelcontextprotocol/go-sdk",
}

// TestLeanBinaryDeps fails when the lean flowdeck binary links a heavy
// package; the cockpit and the MCP server live in cmd/ for this reason.
func TestLeanBinaryDeps(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: cannot list the lean binary's dependencies")
	}
	out, err := exec.Command(goCmd, "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps .: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "github.com/charmbracelet/x/ansi/parser" {
			continue
		}
		for _, heavy := range heavyPackages {
			if pkg == heavy || strings.HasPrefix(pkg, heavy+"/") {
				t.Errorf("the lean flowdeck binary links %s (a heavy package: keep it in cmd/flowdeck-cockpit or cmd/flowdeck-mcp); find the path with: go mod why -m %s", pkg, heavy)
			}
		}
	}
}
