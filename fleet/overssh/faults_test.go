package overssh

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/fleet"
	"github.com/flowdeck/flowdeck/internal/sshtest"
	"github.com/flowdeck/flowdeck/model"
)

// A remote project served through a real SSH server beside two local
// ones: all three reachable with their glances; a review raised in the
// remote (by its own CLI) reaches the fleet's queue promptly; the person's
// approval through the fleet is recorded in the remote store as the
// person's, via the fleet's origin. A dropped connection marks the row
// unreachable; the fleet reconnects by itself and sees what happened
// meanwhile. An approval cut off in flight is not applied, a retry applies
// it once, and a replay of an applied answer is refused: each approval is
// in the store exactly once.
func TestFleetOverSSH(t *testing.T) {
	bin := flowdeckBin(t)
	srv := sshtest.Start(t, "XDG_CONFIG_HOME="+t.TempDir())
	alpha, beta := newProject(t, bin, "alpha goal"), newProject(t, bin, "beta goal")
	remote := newProject(t, bin, "remote goal")
	f := fleet.Open([]fleet.Entry{
		{Name: "alpha", Dir: alpha},
		{Name: "remote", Command: srv.Command(bin, "--dir", remote, "mcp")},
		{Name: "beta", Dir: beta},
	}, fleet.Options{Version: "test", Origin: origin})
	defer f.Close()

	took := waitFleet(t, f, "all three reachable", func(st []fleet.Status, _ []fleet.Item) bool { return allReachable(st) })
	t.Logf("all three reachable after %v", took)
	st := f.Statuses()
	for i, want := range []struct{ name, dir, goal string }{{"alpha", alpha, "alpha goal"}, {"remote", remote, "remote goal"}, {"beta", beta, "beta goal"}} {
		g := st[i].Glance
		if st[i].Name != want.name || g.Goal != want.goal || g.Root != want.dir || g.Total != 2 || len(g.Active) != 1 || g.Active[0].Agent != "agent-1" {
			t.Fatalf("row %d: %s %+v, want %s in %s with goal %q, 2 features, a active by agent-1", i, st[i].Name, g, want.name, want.dir, want.goal)
		}
	}
	if v := status(st, "remote").Version; v == "" {
		t.Error("the remote's version from the handshake is empty")
	}

	// Raised by the remote's own CLI, the review reaches the queue on the
	// server's change notification.
	raiseReview(t, bin, remote, "a")
	took = waitFleet(t, f, "the remote's review in the queue", func(_ []fleet.Status, q []fleet.Item) bool {
		_, ok := waiting(q, "remote", "a")
		return ok
	})
	t.Logf("a review raised in the remote project reached the fleet's queue in %v", took)
	it, _ := waiting(f.Queue(), "remote", "a")
	approve(t, f, "a", it.Seq)
	waitFleet(t, f, "the approved review gone from the queue", func(_ []fleet.Status, q []fleet.Item) bool {
		_, ok := waiting(q, "remote", "a")
		return !ok
	})
	checkApprovedOnce(t, remote, "a")

	// A dropped connection: unreachable, saying why, then back by itself.
	if srv.KillConnections() == 0 {
		t.Fatal("no connection to kill: the remote is not served through the SSH server")
	}
	waitFleet(t, f, "the remote unreachable after its connection dropped", func(st []fleet.Status, _ []fleet.Item) bool {
		return status(st, "remote").Reach == fleet.Unreachable
	})
	t.Logf("dropped: %s", status(f.Statuses(), "remote").Err)
	if s := status(f.Statuses(), "remote"); s.Err == "" || s.Glance == nil {
		t.Fatalf("an unreachable row says nothing or lost its last glance: %+v", s)
	}
	// Meanwhile the remote's agent goes on: the fleet sees it once back.
	cli(t, bin, remote, "agent-1", "flow", "run", "complete", "a", "--outcome", "completed")
	cli(t, bin, remote, "agent-1", "flow", "run", "start", "b", "--agent", "agent-1")
	raiseReview(t, bin, remote, "b")
	took = waitFleet(t, f, "the remote back, with the review raised while it was away", func(st []fleet.Status, q []fleet.Item) bool {
		_, ok := waiting(q, "remote", "b")
		return status(st, "remote").Reach == fleet.Reachable && ok
	})
	t.Logf("reconnected (and the review raised meanwhile queued) %v after the drop was seen", took)
	if n := srv.Connections(); n != 1 {
		t.Fatalf("%d connections on the SSH server after the reconnect, want the fleet's one", n)
	}
	checkApprovedOnce(t, remote, "a")

	// An approval in flight when the connection drops: the transport
	// hangs (frozen), the call is sent, the connection is killed. The
	// call fails and nothing is applied; a retry applies it once.
	it, _ = waiting(f.Queue(), "remote", "b")
	thaw := srv.FreezeConnections()
	defer thaw()
	var wg sync.WaitGroup
	var refused *model.Error
	var callErr error
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		refused, callErr = f.Review(context.Background(), "remote", "b", false, "approved", nil, it.Seq)
	})
	select {
	case <-done:
		t.Fatalf("an approval over a frozen transport returned at once: refused %v, err %v", refused, callErr)
	case <-time.After(500 * time.Millisecond): // it must not answer: absence takes a while to see
	}
	srv.KillConnections()
	wg.Wait()
	if callErr == nil || refused != nil {
		t.Fatalf("an approval cut off in flight: refused %v, err %v; want a transport error", refused, callErr)
	}
	t.Logf("cut off in flight: %v", callErr)
	if n := len(reviews(events(t, remote), "b")); n != 0 {
		t.Fatalf("an approval that never reached the remote's flowdeck is recorded %d times", n)
	}
	waitFleet(t, f, "the remote back after the cut", func(st []fleet.Status, q []fleet.Item) bool {
		_, ok := waiting(q, "remote", "b")
		return status(st, "remote").Reach == fleet.Reachable && ok
	})
	it, _ = waiting(f.Queue(), "remote", "b")
	approve(t, f, "b", it.Seq)
	checkApprovedOnce(t, remote, "b")
	// A replay of the same answer (a retry whose first reply was lost) is
	// refused by the remote's expect_seq guard: never applied twice.
	refused, err := f.Review(context.Background(), "remote", "b", false, "approved", nil, it.Seq)
	if err != nil || refused == nil || refused.Code != "stale_decision" {
		t.Fatalf("a replayed approval: refused %+v, err %v; want the remote's stale_decision", refused, err)
	}
	t.Logf("replay refused: %s: %s", refused.Code, refused.Message)
	checkApprovedOnce(t, remote, "b")
	checkApprovedOnce(t, remote, "a")
}

// approve records the person's approval of feature in the remote through
// the fleet, which must accept it.
func approve(t *testing.T, f *fleet.Fleet, feature string, seq uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), backstop)
	defer cancel()
	refused, err := f.Review(ctx, "remote", feature, false, "approved", nil, seq)
	if err != nil || refused != nil {
		t.Fatalf("approve %s at seq %d through the fleet: refused %+v, err %v", feature, seq, refused, err)
	}
}

// checkApprovedOnce checks that project's store holds exactly one review
// of feature: approved, by the person, via the fleet's origin.
func checkApprovedOnce(t *testing.T, project, feature string) {
	t.Helper()
	rs := reviews(events(t, project), feature)
	if len(rs) != 1 {
		t.Fatalf("%d reviews of %s in the remote store, want exactly one", len(rs), feature)
	}
	e := rs[0]
	if e.Review.Decision != model.ReviewApproved || e.Actor != "human" || e.Via != origin {
		t.Fatalf("the review of %s: decision %s by %q via %q, want approved by human via %s", feature, e.Review.Decision, e.Actor, e.Via, origin)
	}
}

// A transport that never answers times out on its row, a frozen one (up,
// silent: a half-open path) is found by the keep-alive and replaced by a
// fresh connection, and neither stalls the fleet: the other projects are
// reachable at once, and Statuses and Queue answer instantly throughout.
func TestFleetHangingTransport(t *testing.T) {
	bin := flowdeckBin(t)
	srv := sshtest.Start(t, "XDG_CONFIG_HOME="+t.TempDir())
	local, remote := newProject(t, bin, "local goal"), newProject(t, bin, "remote goal")
	const callTimeout, keepAlive = 3 * time.Second, time.Second
	opened := time.Now()
	f := fleet.Open([]fleet.Entry{
		// sleeps, reading nothing and answering nothing; the fleet's
		// --person --via land in sh's $1…
		{Name: "hang", Command: srv.Command("sh", "-c", "sleep 1000", "mcp")},
		{Name: "local", Dir: local},
		{Name: "remote", Command: srv.Command(bin, "--dir", remote, "mcp")},
	}, fleet.Options{Version: "test", Origin: origin, CallTimeout: callTimeout, KeepAlive: keepAlive})
	defer f.Close()

	// Statuses and Queue, sampled all along, never wait on a project.
	var slowest time.Duration
	var mu sync.Mutex
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			start := time.Now()
			f.Statuses()
			f.Queue()
			d := time.Since(start)
			mu.Lock()
			slowest = max(slowest, d)
			mu.Unlock()
		}
	})
	defer func() {
		close(stop)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		t.Logf("slowest Statuses+Queue during the test: %v", slowest)
		if slowest > callTimeout/6 {
			t.Errorf("Statuses+Queue took %v once: they waited on a project (call timeout %v)", slowest, callTimeout)
		}
	}()

	waitFleet(t, f, "the healthy projects reachable", func(st []fleet.Status, _ []fleet.Item) bool {
		return status(st, "local").Reach == fleet.Reachable && status(st, "remote").Reach == fleet.Reachable
	})
	healthy := time.Since(opened)
	if h := status(f.Statuses(), "hang"); h.Reach != fleet.Connecting {
		t.Logf("the hanging transport is already %s after %v: %s", h.Reach, healthy, h.Err)
	}
	t.Logf("the healthy projects were reachable %v after Open", healthy)
	waitFleet(t, f, "the hanging transport timed out", func(st []fleet.Status, _ []fleet.Item) bool {
		return status(st, "hang").Reach == fleet.Unreachable
	})
	h := status(f.Statuses(), "hang")
	t.Logf("the hanging transport unreachable %v after Open: %s", time.Since(opened), h.Err)
	if !strings.Contains(h.Err, "no answer within "+callTimeout.String()) {
		t.Errorf("the hanging transport's row says %q, want that it did not answer within %v", h.Err, callTimeout)
	}

	// Freeze the connections: the remote's TCP connection stays up and
	// says nothing. The keep-alive finds it; a fresh connection (the
	// listener is not frozen) brings the row back.
	thaw := srv.FreezeConnections()
	defer thaw()
	frozen := time.Now()
	waitFleet(t, f, "the frozen remote unreachable", func(st []fleet.Status, _ []fleet.Item) bool {
		return status(st, "remote").Reach == fleet.Unreachable
	})
	found := time.Since(frozen)
	t.Logf("the frozen transport found after %v: %s", found, status(f.Statuses(), "remote").Err)
	if found > keepAlive+callTimeout+5*time.Second {
		t.Errorf("the frozen transport was found after %v, want about keep-alive %v + call timeout %v", found, keepAlive, callTimeout)
	}
	if s := status(f.Statuses(), "local"); s.Reach != fleet.Reachable {
		t.Errorf("the local project is %s beside a frozen remote: %s", s.Reach, s.Err)
	}
	waitFleet(t, f, "the remote back on a fresh connection", func(st []fleet.Status, _ []fleet.Item) bool {
		return status(st, "remote").Reach == fleet.Reachable
	})
	// Back, it answers: the person's approval goes through.
	raiseReview(t, bin, remote, "a")
	waitFleet(t, f, "the remote's review queued", func(_ []fleet.Status, q []fleet.Item) bool {
		_, ok := waiting(q, "remote", "a")
		return ok
	})
	it, _ := waiting(f.Queue(), "remote", "a")
	approve(t, f, "a", it.Seq)
	checkApprovedOnce(t, remote, "a")
}
