package overssh

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/internal/sshtest"
)

// tmuxSession is a detached tmux session on a socket of its own, driven
// with send-keys and read with capture-pane, as a person's terminal.
type tmuxSession struct {
	t          *testing.T
	tmux, sock string
}

// newTmux runs cmd (a shell command line) in a tmux session of w×h; it
// skips without tmux, or fails under $FLOWDECK_CI (.ci/run installs it).
func newTmux(t *testing.T, w, h int, cmd string) *tmuxSession {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		msg := "tmux is not installed (apt-get install tmux; .ci/run does): skipping the fleet's end-to-end test"
		if os.Getenv("FLOWDECK_CI") != "" {
			t.Fatal("FLOWDECK_CI: " + msg)
		}
		t.Skip(msg)
	}
	s := &tmuxSession{t: t, tmux: tmux, sock: filepath.Join(t.TempDir(), "tmux.sock")}
	s.run("-f", "/dev/null", "new-session", "-d", "-s", "fleet", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), cmd)
	t.Cleanup(func() { exec.Command(tmux, "-S", s.sock, "kill-server").Run() })
	return s
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command(s.tmux, append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *tmuxSession) screen() string { return s.run("capture-pane", "-p", "-t", "fleet") }

func (s *tmuxSession) keys(k ...string) { s.run(append([]string{"send-keys", "-t", "fleet"}, k...)...) }

// waitScreen waits until cond holds of the screen and returns the screen
// and how long it took; it fails at the backstop, showing the screen.
func (s *tmuxSession) waitScreen(what string, cond func(string) bool) (string, time.Duration) {
	s.t.Helper()
	start := time.Now()
	for {
		scr := s.screen()
		if cond(scr) {
			return scr, time.Since(start)
		}
		if time.Since(start) > backstop {
			s.t.Fatalf("the screen never showed %s:\n%s", what, scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *tmuxSession) waitFor(want string) (string, time.Duration) {
	s.t.Helper()
	return s.waitScreen(fmt.Sprintf("%q", want), func(scr string) bool { return strings.Contains(scr, want) })
}

// TestFleetTmuxEndToEnd drives the fleet view in a real terminal over two
// local projects and a remote one served through the SSH server, all added
// with `flowdeck fleet add` (the view runs from the test binary on that
// config, see viewHelperEnv): the view shows the three; a review
// raised in the remote by its own CLI appears in the queue within a
// second; the person approves it with keys; the remote's store holds the
// approval, once, as the person's, via the fleet's origin.
func TestFleetTmuxEndToEnd(t *testing.T) {
	bin := flowdeckBin(t)
	srv := sshtest.Start(t, "XDG_CONFIG_HOME="+t.TempDir())
	alpha, beta := newProject(t, bin, "alpha goal"), newProject(t, bin, "beta goal")
	remote := newProject(t, bin, "remote goal")
	cfg := t.TempDir()
	add := func(args ...string) {
		cmd := exec.Command(bin, append([]string{"fleet", "add"}, args...)...)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("flowdeck fleet add %v: %v\n%s", args, err, out)
		}
	}
	add("alpha", alpha)
	add(append([]string{"remote", "--"}, srv.Command(bin, "--dir", remote, "mcp")...)...)
	add("beta", beta)

	argv, env := viewProgram(t, "fleet")
	tm := newTmux(t, 120, 40, "env "+shellWords(append(env, "XDG_CONFIG_HOME="+cfg, "TERM=xterm-256color"))+" "+shellWords(argv)+
		"; echo flowdeck exited $?; sleep 60")
	_, took := tm.waitScreen("the three projects answering", func(scr string) bool {
		return strings.Contains(scr, "3 projects") && !strings.Contains(scr, "connecting") &&
			strings.Contains(scr, "alpha goal") && strings.Contains(scr, "remote goal") && strings.Contains(scr, "beta goal")
	})
	t.Logf("the three projects on screen, answering, after %v", took)

	raiseReview(t, bin, remote, "a")
	_, took = tm.waitScreen("the remote's review in the queue", func(scr string) bool {
		return queueLine(scr, "remote", "review a") != ""
	})
	t.Logf("a review raised in the remote project was on the fleet's screen %v after its CLI returned", took)
	// The bound: within a second of being raised (the server
	// looks for changes every 250 ms; typically 0.2 s here).
	if took > time.Second {
		t.Errorf("the remote's review took %v to reach the fleet's screen, want within a second", took)
	}

	// The queue, its (only) item, the review dialog, approve.
	tm.keys("2")
	tm.waitFor("item 1 of 1")
	tm.keys("a")
	tm.waitFor("Review a · remote")
	tm.keys("a")
	tm.waitFor("remote: review of a: approved")
	tm.waitScreen("the review gone from the queue", func(scr string) bool {
		return queueLine(scr, "remote", "review a") == "" && strings.Contains(scr, "nothing waits for you")
	})
	rs := reviews(events(t, remote), "a")
	if len(rs) != 1 || rs[0].Actor != "human" || !strings.HasPrefix(rs[0].Via, "fleet@") {
		t.Fatalf("the remote store's reviews of a: %+v, want one approval by human via fleet@…", rs)
	}
	if d := rs[0].Review.Decision; d != "approved" {
		t.Fatalf("the review recorded is %s, want approved", d)
	}

	tm.keys("q")
	tm.waitFor("flowdeck exited 0")
}

// shellWords quotes words for the shell tmux runs the command with.
func shellWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = sshtest.Quote(w)
	}
	return strings.Join(q, " ")
}

// queueLine is the screen's line that names project and what (a queue
// item), or "".
func queueLine(scr, project, what string) string {
	for l := range strings.SplitSeq(scr, "\n") {
		if strings.Contains(l, project) && strings.Contains(l, what) {
			return l
		}
	}
	return ""
}
