package overssh

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/internal/sshtest"
	"github.com/flowdeck/flowdeck/internal/tmuxtest"
)

// TestFleetTmuxEndToEnd drives `flowdeck fleet` in a real terminal over
// two local projects and a remote one served through the SSH server, all
// added with `flowdeck fleet add`: the view shows the three; a review
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

	tm := tmuxtest.New(t, 120, 40, "env "+shellWords([]string{"XDG_CONFIG_HOME=" + cfg, "TERM=xterm-256color", bin, "fleet"})+
		"; echo flowdeck exited $?; sleep 60")
	_, took := tm.WaitScreen("the three projects answering", func(scr string) bool {
		return strings.Contains(scr, "3 projects") && !strings.Contains(scr, "connecting") &&
			strings.Contains(scr, "alpha goal") && strings.Contains(scr, "remote goal") && strings.Contains(scr, "beta goal")
	})
	t.Logf("the three projects on screen, answering, after %v", took)

	raiseReview(t, bin, remote, "a")
	_, took = tm.WaitScreen("the remote's review in the queue", func(scr string) bool {
		return queueLine(scr, "remote", "review a") != ""
	})
	t.Logf("a review raised in the remote project was on the fleet's screen %v after its CLI returned", took)
	// The bound: within a second of being raised (the server
	// looks for changes every 250 ms; typically 0.2 s here).
	if took > time.Second {
		t.Errorf("the remote's review took %v to reach the fleet's screen, want within a second", took)
	}

	// The queue, its (only) item, the review dialog, approve.
	tm.Keys("2")
	tm.WaitFor("item 1 of 1")
	tm.Keys("a")
	tm.WaitFor("Review a · remote")
	tm.Keys("a")
	tm.WaitFor("remote: review of a: approved")
	tm.WaitScreen("the review gone from the queue", func(scr string) bool {
		return queueLine(scr, "remote", "review a") == "" && strings.Contains(scr, "nothing waits for you")
	})
	rs := reviews(events(t, remote), "a")
	if len(rs) != 1 || rs[0].Actor != "human" || !strings.HasPrefix(rs[0].Via, "fleet@") {
		t.Fatalf("the remote store's reviews of a: %+v, want one approval by human via fleet@…", rs)
	}
	if d := rs[0].Review.Decision; d != "approved" {
		t.Fatalf("the review recorded is %s, want approved", d)
	}

	tm.Keys("q")
	tm.WaitFor("flowdeck exited 0")
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
