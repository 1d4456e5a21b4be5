package fleetview

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/fleet"
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

// tmux is a detached tmux session on its own socket.
type tmux struct {
	t          *testing.T
	bin, sock  string
	name, dead string
}

func newTmux(t *testing.T, dir string, w, h int, cmd string) *tmux {
	t.Helper()
	bin, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not on PATH (.ci/run installs it): skipping the test of Run in a real terminal")
	}
	s := &tmux{t: t, bin: bin, sock: filepath.Join(dir, "tmux.sock"), name: "fleet"}
	s.run("-f", "/dev/null", "new-session", "-d", "-s", s.name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), cmd)
	t.Cleanup(func() { exec.Command(bin, "-S", s.sock, "kill-server").Run() })
	return s
}

func (s *tmux) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command(s.bin, append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *tmux) screen() string { return s.run("capture-pane", "-p", "-t", s.name) }

func (s *tmux) keys(k ...string) { s.run(append([]string{"send-keys", "-t", s.name}, k...)...) }

func (s *tmux) title() string {
	return strings.TrimSpace(s.run("display-message", "-p", "-t", s.name, "#{pane_title}"))
}

// waitFor waits until the screen shows want (a backstop of two minutes: a
// loaded machine draws late).
func (s *tmux) waitFor(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		scr := s.screen()
		if strings.Contains(scr, want) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q:\n%s", want, scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
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
	tm := newTmux(t, dir, 100, 30, cmd)

	tm.waitFor("Password reset")
	tm.waitFor("review reset-api")
	if got := tm.title(); got != "⚑ 1 waiting · flowdeck fleet" {
		t.Errorf("title %q", got)
	}

	tm.keys("Enter") // alpha's full cockpit, in this process
	tm.waitFor("Features")
	tm.waitFor("Review reset-api")
	time.Sleep(time.Second) // the review prompt opened by itself: keys wait its grace period
	tm.keys("q")
	tm.waitFor("Waiting for you")
	tm.waitFor("Password reset")

	tm.keys("j", "Enter") // gamma: ssh -t build flowdeck --dir /srv/app
	tm.waitFor("REMOTE COCKPIT -t build flowdeck --dir /srv/app")
	tm.keys("Enter")
	tm.waitFor("Waiting for you")
	if scr := tm.waitFor("Password reset"); !strings.Contains(scr, "gamma") {
		t.Fatalf("back from gamma:\n%s", scr)
	}

	tm.keys("q")
	tm.waitFor("fleet exited 0")
}
