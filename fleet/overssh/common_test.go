package overssh

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/fleet"
	"github.com/flowdeck/flowdeck/internal/testbin"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(fleetHelperEnv); path != "" {
		os.Exit(serveFleet(path))
	}
	if mode := os.Getenv(viewHelperEnv); mode != "" {
		os.Exit(runView(mode))
	}
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// backstop bounds every wait on a condition: generous, since the machine
// may be loaded; a wait that reaches it fails the test.
const backstop = 2 * time.Minute

// origin is the fleet's Origin in these tests: the remote records it as
// the person's answers' via.
const origin = "fleet@overssh"

// flowdeckBin is the real flowdeck with its companions beside it, built
// once per test binary.
func flowdeckBin(tb testing.TB) string {
	tb.Helper()
	bin, err := testbin.Build(testbin.Flowdeck, testbin.MCP, testbin.Cockpit)
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

// cli runs the real flowdeck on project as actor (an agent, or the
// person) and fails tb if it refuses.
func cli(tb testing.TB, bin, project, actor string, args ...string) string {
	tb.Helper()
	argv := append([]string{"--dir", project, "--actor", actor}, args...)
	out, err := exec.Command(bin, argv...).CombinedOutput()
	if err != nil {
		tb.Fatalf("flowdeck %s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return string(out)
}

// newProject is a project in a temp dir whose session (goal) has an
// approved plan of features a and b, a started by agent-1: the next
// validation of a raises a review.
func newProject(tb testing.TB, bin, goal string) string {
	tb.Helper()
	dir := tb.TempDir()
	plan := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(plan, []byte(`{"summary":"proof","features":[{"id":"a","title":"A"},{"id":"b","title":"B","depends_on":["a"]}]}`), 0o644); err != nil {
		tb.Fatal(err)
	}
	cli(tb, bin, dir, "human", "flow", "plan", "start", goal)
	cli(tb, bin, dir, "planner", "flow", "plan", "apply", plan)
	cli(tb, bin, dir, "human", "flow", "plan", "approve")
	cli(tb, bin, dir, "agent-1", "flow", "run", "start", "a", "--agent", "agent-1")
	return dir
}

// raiseReview has the agent report a passing validation of feature, which
// then waits for the person's review.
func raiseReview(tb testing.TB, bin, project, feature string) {
	tb.Helper()
	cli(tb, bin, project, "agent-1", "flow", "validate", feature, "--status", "passed", "--scope", "targeted", "--command", "go test ./...")
}

// events is the active session's event log in project's store, read as
// any process reads it.
func events(tb testing.TB, project string) []model.Event {
	tb.Helper()
	st, err := db.Open(filepath.Join(project, db.DBFile), db.Options{Existing: true})
	if err != nil {
		tb.Fatalf("open the store of %s: %v", project, err)
	}
	s, err := st.Active()
	if err != nil || s == nil {
		tb.Fatalf("the active session of %s: %v", project, err)
	}
	evs, err := st.Events(s.ID, 1, 0)
	if err != nil {
		tb.Fatalf("the events of %s: %v", project, err)
	}
	return evs
}

// reviews are the review_recorded events of feature in evs.
func reviews(evs []model.Event, feature string) []model.Event {
	var out []model.Event
	for _, e := range evs {
		if e.Type == model.EventReviewRecorded && e.Feature == feature {
			out = append(out, e)
		}
	}
	return out
}

// waitFleet waits, on the fleet's change signal, until cond holds of its
// statuses and queue, and returns how long that took; it fails tb at the
// backstop, showing the rows.
func waitFleet(tb testing.TB, f *fleet.Fleet, what string, cond func(st []fleet.Status, q []fleet.Item) bool) time.Duration {
	tb.Helper()
	start := time.Now()
	timer := time.NewTimer(backstop)
	defer timer.Stop()
	for {
		st, q := f.Statuses(), f.Queue()
		if cond(st, q) {
			return time.Since(start)
		}
		select {
		case <-f.Changed():
		case <-timer.C:
			tb.Fatalf("%s: not within %v; the fleet:\n%s", what, backstop, rows(st, q))
		}
	}
}

// rows shows the fleet's statuses and queue for a failure message.
func rows(st []fleet.Status, q []fleet.Item) string {
	var b strings.Builder
	for _, s := range st {
		fmt.Fprintf(&b, "  %s %s err=%q", s.Name, s.Reach, s.Err)
		if g := s.Glance; g != nil {
			fmt.Fprintf(&b, " goal=%q seq=%d waits=%d", g.Goal, g.Seq, len(g.Waits))
		}
		b.WriteString("\n")
	}
	for _, it := range q {
		fmt.Fprintf(&b, "  queue: %s %s %s seq=%d\n", it.Project, it.Wait.Kind, it.Wait.Feature, it.Seq)
	}
	return b.String()
}

// status is the named project's row.
func status(st []fleet.Status, name string) fleet.Status {
	i := slices.IndexFunc(st, func(s fleet.Status) bool { return s.Name == name })
	if i < 0 {
		return fleet.Status{}
	}
	return st[i]
}

// allReachable reports whether every row is reachable with a glance.
func allReachable(st []fleet.Status) bool {
	for _, s := range st {
		if s.Reach != fleet.Reachable || s.Glance == nil {
			return false
		}
	}
	return true
}

// waiting is the queue's review of feature in project, if any.
func waiting(q []fleet.Item, project, feature string) (fleet.Item, bool) {
	for _, it := range q {
		if it.Project == project && it.Wait.Kind == ops.FleetWaitReview && it.Wait.Feature == feature {
			return it, true
		}
	}
	return fleet.Item{}, false
}
