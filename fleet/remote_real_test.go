package fleet

import (
	"os/exec"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/internal/sshtest"
	"github.com/flowdeck/flowdeck/internal/testbin"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
)

// flowdeckBin is the real flowdeck (with flowdeck-mcp beside it), built
// once per test binary.
func flowdeckBin(t *testing.T) string {
	t.Helper()
	bin, err := testbin.Build(testbin.Flowdeck, testbin.MCP)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// A remote reached through a real `flowdeck --dir D mcp` process: its
// waits arrive, the person's review is applied once (the same answer again
// is stale), and a change made by another process reaches the fleet.
func TestRemoteOverProcess(t *testing.T) {
	bin := flowdeckBin(t)
	dir, p := newProject(t, "remote goal")
	awaitingReview(t, p)
	f := Open([]Entry{{Name: "remote", Command: []string{bin, "--dir", dir, "mcp"}}}, Options{Origin: "fleet@test", CallTimeout: 30 * time.Second})
	defer f.Close()
	st := waitFor(t, f, "reachable with the review waiting", time.Second, func(st []Status) bool {
		return st[0].Reach == Reachable && len(kinds(st[0])) == 1
	})
	if st[0].Glance.Goal != "remote goal" || st[0].Version == "" {
		t.Fatalf("%+v", st[0])
	}
	rv := item(t, f, "remote", ops.FleetWaitReview)
	if me, err := f.Review(t.Context(), "remote", "parser", false, "approved", nil, rv.Seq); err != nil || me != nil {
		t.Fatalf("review: %v %+v", err, me)
	}
	if me, err := f.Review(t.Context(), "remote", "parser", false, "approved", nil, rv.Seq); err != nil || me == nil || me.Code != model.CodeStaleDecision {
		t.Fatalf("the same review again: %v %+v", err, me)
	}
	if n := reviews(t, p, "parser"); n != 1 {
		t.Fatalf("%d reviews recorded", n)
	}
	// Another process completes the feature: the fleet hears of it.
	if out, err := exec.Command(bin, "--dir", dir, "--actor", "worker-1", "flow", "run", "complete", "parser", "--outcome", "completed").CombinedOutput(); err != nil {
		t.Fatalf("complete: %v\n%s", err, out)
	}
	waitFor(t, f, "the completion seen", time.Second, func(st []Status) bool { return st[0].Glance != nil && st[0].Glance.Done == 1 })
}

// A remote over a real SSH server: a dropped connection shows unreachable
// and reconnects; a frozen one (half-open: the TCP connection up, nothing
// answering) is found by the keep-alive ping, and reconnects.
func TestRemoteOverSSH(t *testing.T) {
	bin := flowdeckBin(t)
	srv := sshtest.Start(t, "XDG_CONFIG_HOME="+t.TempDir())
	dir, _ := newProject(t, "over ssh")
	const timeout = 5 * time.Second
	f := Open([]Entry{{Name: "ssh", Command: srv.Command(bin, "--dir", dir, "mcp")}}, Options{CallTimeout: timeout, KeepAlive: time.Second})
	defer f.Close()
	reachable := func(st []Status) bool { return st[0].Reach == Reachable }
	unreachable := func(st []Status) bool { return st[0].Reach == Unreachable }
	st := waitFor(t, f, "reachable over ssh", time.Second, reachable)
	if st[0].Glance.Goal != "over ssh" {
		t.Fatalf("%+v\nsshd: %s", st[0], srv.Log())
	}

	srv.KillConnections()
	st = waitFor(t, f, "unreachable after the connection dropped", time.Second, unreachable)
	if st[0].Glance == nil {
		t.Error("the last glance was dropped")
	}
	t.Logf("dropped: %s", st[0].Err)
	waitFor(t, f, "reachable again", time.Second, reachable)

	thaw := srv.FreezeConnections()
	defer thaw()
	st = waitFor(t, f, "unreachable when frozen", time.Second, unreachable)
	if want := "no answer within 5s (keep-alive ping)"; st[0].Err != want {
		t.Errorf("frozen: %q, want %q", st[0].Err, want)
	}
	waitFor(t, f, "reachable on a new connection", time.Second, reachable)
}
