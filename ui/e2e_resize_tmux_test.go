package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/internal/tmuxtest"
)

// TestTmuxGrowThenQuitLeavesShellClean (issue 23.2): the window grows from
// 80x24 to 120x40 while the cockpit runs; after q the shell's screen holds
// the shell's own lines and nothing of the cockpit's frame.
func TestTmuxGrowThenQuitLeavesShellClean(t *testing.T) {
	needTmux(t)
	dir := t.TempDir()
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(binaries(t), "flowdeck")
	cmd := "echo before the cockpit; env XDG_CONFIG_HOME=" + dir + " TERM=xterm-256color " + bin + " --dir " + project +
		"; echo flowdeck exited $?; sleep 60"
	tm := tmuxtest.New(t, 80, 24, cmd)
	tm.WaitFor("no active session")
	tm.Run("resize-window", "-t", tmuxtest.Name, "-x", "120", "-y", "40")
	tm.WaitFor("╭─ 2 Graph") // the wide layout: drawn at the new size
	tm.Keys("q")
	scr := tm.WaitFor("flowdeck exited 0")
	for _, frame := range []string{"Features", "Graph", "│", "╭", "╰", "help"} {
		if strings.Contains(scr, frame) {
			t.Fatalf("the cockpit's frame (%q) is left on the shell after growing and q:\n%s", frame, scr)
		}
	}
	if lines := strings.Split(strings.TrimSpace(scr), "\n"); len(lines) != 2 || lines[0] != "before the cockpit" {
		t.Fatalf("the shell's screen is not its own after q:\n%s", scr)
	}
}
