package fleetview

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/fleet"
	"github.com/flowdeck/flowdeck/internal/tmuxtest"
	"github.com/flowdeck/flowdeck/runner"
)

// runEntriesEnv names the file of entries with which the test binary, run
// again, is the fleet view itself (Run on a terminal) instead of the tests.
const runEntriesEnv = "FLEETVIEW_TEST_RUN"

func TestMain(m *testing.M) {
	// A project's cockpit may run commands that re-execute this binary
	// to join their cgroups (cgroup v1), as flowdeck-mcp does.
	runner.Reexec()
	if path := os.Getenv(runEntriesEnv); path != "" {
		os.Exit(runFleet(path))
	}
	os.Exit(m.Run())
}

// runFleet is the fleet view of the entries in the file at path, as
// flowdeck fleet runs it.
func runFleet(path string) int {
	raw, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var entries []fleet.Entry
	if err := json.Unmarshal(raw, &entries); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cfg := config.Default()
	cfg.Theme = "dark"
	if err := Run(entries, Options{Config: &cfg, Fleet: fleet.Options{Version: "test", Origin: "fleet@test"}}); err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		return 1
	}
	return 0
}

// TestRunOpensProjectsAndComesBack runs the fleet view in a real terminal
// (tmux) and goes into each kind of project and back: enter on alpha runs
// its full cockpit in the same program, whose q comes back to the fleet;
// enter on gamma runs its transport's interactive form (ssh -t …) with the
// terminal, and its end comes back too. The fleet's connections live
// across: alpha's row is there again without reconnecting. The terminal's
// title counts what waits.
func TestRunOpensProjectsAndComesBack(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the test of Run in a real terminal")
	}
	dir := t.TempDir()
	a := alpha(t, dir)
	bin := filepath.Join(dir, "bin")
	// ssh: the transport hangs (as a host that does not answer); its
	// interactive form (-t) is a "cockpit" that says what it was run as
	// and ends at enter.
	script := "#!/bin/sh\nif [ \"$1\" = -t ]; then echo \"REMOTE COCKPIT $*\"; read x; exit 0; fi\nexec sleep 600\n"
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "ssh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	entries := []fleet.Entry{{Name: "alpha", Dir: a.root}, {Name: "gamma", Command: []string{"ssh", "build", "flowdeck", "--dir", "/srv/app", "mcp"}}}
	raw, _ := json.Marshal(entries)
	list := filepath.Join(dir, "entries.json")
	if err := os.WriteFile(list, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := fmt.Sprintf("env %s=%s XDG_CONFIG_HOME=%s HOME=%s PATH=%s:$PATH TERM=xterm-256color %s; echo fleet exited $?; sleep 60",
		runEntriesEnv, list, dir, dir, bin, self)
	tm := tmuxtest.New(t, 100, 30, cmd)

	tm.WaitFor("Password reset")
	tm.WaitFor("review reset-api")
	if got := tm.Title(); got != "⚑ 1 waiting · flowdeck fleet" {
		t.Errorf("title %q", got)
	}

	tm.Keys("Enter") // alpha's full cockpit, in this process
	tm.WaitFor("Features")
	tm.WaitFor("Review reset-api")
	time.Sleep(time.Second) // the review prompt opened by itself: keys wait its grace period
	tm.Keys("q")
	tm.WaitFor("Waiting for you")
	tm.WaitFor("Password reset")

	tm.Keys("j", "Enter") // gamma: ssh -t build flowdeck --dir /srv/app
	tm.WaitFor("REMOTE COCKPIT -t build flowdeck --dir /srv/app")
	tm.Keys("Enter")
	tm.WaitFor("Waiting for you")
	if scr := tm.WaitFor("Password reset"); !strings.Contains(scr, "gamma") {
		t.Fatalf("back from gamma:\n%s", scr)
	}

	tm.Keys("q")
	tm.WaitFor("fleet exited 0")
}
