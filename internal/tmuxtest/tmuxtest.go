// Package tmuxtest drives a real terminal for end-to-end tests: a command
// in a detached tmux session on a socket of its own, keys sent to it and
// its screen captured, waits on what the screen shows (conditions with a
// generous backstop, never a deadline a loaded machine could miss).
package tmuxtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Backstop ends a wait that would otherwise hang: a loaded machine draws
// late, so it is minutes, not what a frame takes.
const Backstop = 2 * time.Minute

// Session is one tmux session running a command.
type Session struct {
	tb        testing.TB
	bin, sock string
}

// Name is the session's name on its own server (a tmux command's -t).
const Name = "e2e"

// Need returns tmux's path; without it the test skips, or fails under
// FLOWDECK_CI (where .ci/run installed it and nothing may skip).
func Need(tb testing.TB) string {
	tb.Helper()
	bin, err := exec.LookPath("tmux")
	if err != nil {
		msg := "tmux is not on PATH (apt-get install tmux; .ci/run does): skipping the test in a real terminal"
		if os.Getenv("FLOWDECK_CI") != "" {
			tb.Fatal("FLOWDECK_CI: " + msg)
		}
		tb.Skip(msg)
	}
	return bin
}

// New runs cmd (a shell command line) in a tmux session of w×h, killed at
// the test's end.
func New(tb testing.TB, w, h int, cmd string) *Session {
	tb.Helper()
	bin := Need(tb)
	s := &Session{tb: tb, bin: bin, sock: filepath.Join(tb.TempDir(), "tmux.sock")}
	s.Run("-f", "/dev/null", "new-session", "-d", "-s", Name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), cmd)
	tb.Cleanup(func() { exec.Command(bin, "-S", s.sock, "kill-server").Run() })
	return s
}

// Run runs a tmux command on the session's server and returns its output.
func (s *Session) Run(args ...string) string {
	s.tb.Helper()
	out, err := exec.Command(s.bin, append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.tb.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Screen is what the terminal shows now.
func (s *Session) Screen() string { return s.Run("capture-pane", "-p", "-t", Name) }

// Keys sends keys (tmux send-keys names: "Enter", "C-c", "j").
func (s *Session) Keys(k ...string) { s.Run(append([]string{"send-keys", "-t", Name}, k...)...) }

// Title is the terminal's title as the program set it.
func (s *Session) Title() string {
	return strings.TrimSpace(s.Run("display-message", "-p", "-t", Name, "#{pane_title}"))
}

// WaitScreen waits until cond holds of the screen and returns the screen
// and how long it took; at the backstop it fails, showing the screen.
func (s *Session) WaitScreen(what string, cond func(string) bool) (string, time.Duration) {
	s.tb.Helper()
	start := time.Now()
	for {
		scr := s.Screen()
		if cond(scr) {
			return scr, time.Since(start)
		}
		if time.Since(start) > Backstop {
			s.tb.Fatalf("the screen never showed %s:\n%s", what, scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitFor waits until the screen shows want, and returns the screen.
func (s *Session) WaitFor(want string) string {
	s.tb.Helper()
	scr, _ := s.WaitScreen(fmt.Sprintf("%q", want), func(scr string) bool { return strings.Contains(scr, want) })
	return scr
}

// WaitGone waits until the screen no longer shows gone.
func (s *Session) WaitGone(gone string) {
	s.tb.Helper()
	s.WaitScreen(fmt.Sprintf("%q gone", gone), func(scr string) bool { return !strings.Contains(scr, gone) })
}
