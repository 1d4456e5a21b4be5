package fleet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/termtext"
)

// backstop bounds every wait of these tests: they wait on conditions, and
// this only ends a test that would otherwise hang.
const backstop = 2 * time.Minute

// waitFor waits until cond holds for the fleet's statuses, and returns
// them; it fails the test at the backstop. Statuses never blocks: each
// call is timed, and one that takes longer than limit fails the test.
func waitFor(t *testing.T, f *Fleet, what string, limit time.Duration, cond func([]Status) bool) []Status {
	t.Helper()
	end := time.After(backstop)
	for {
		start := time.Now()
		st := f.Statuses()
		if d := time.Since(start); d > limit {
			t.Fatalf("Statuses took %s (waiting for %s)", d, what)
		}
		if cond(st) {
			return st
		}
		select {
		case <-f.Changed():
		case <-end:
			t.Fatalf("%s: not after %s: %+v", what, backstop, st)
		}
	}
}

// settled reports whether no project is still connecting.
func settled(st []Status) bool {
	for _, s := range st {
		if s.Reach == Connecting {
			return false
		}
	}
	return true
}

func byName(st []Status) map[string]Status {
	out := map[string]Status{}
	for _, s := range st {
		out[s.Name] = s
	}
	return out
}

// safeLine fails the test when s could do anything in a terminal or take
// more than one line or MaxLine runes.
func safeLine(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxLine || termtext.Line(s) != s {
		t.Errorf("%s is not one safe line: %q", what, s)
	}
	for _, r := range s {
		if unicode.IsControl(r) || termtext.IsBidi(r) || termtext.IsC1(r) {
			t.Errorf("%s holds %U: %q", what, r, s)
			return
		}
	}
}

// A hostile or broken remote is harmless: every string it sends arrives as
// one bounded safe line, every list bounded; a wrong API or a missing tool
// is incompatible; a tool error, malformed JSON-RPC, an oversized line or
// an oversized glance is unreachable with a safe reason. Nothing panics,
// and the one good remote beside them is reachable.
func TestHostileRemoteIsHarmless(t *testing.T) {
	modes := []string{"ok", "hostile", "wrongapi", "noglance", "toolerror", "malformed", "oversized", "bigglance"}
	var entries []Entry
	for _, m := range modes {
		entries = append(entries, Entry{Name: m, Command: fakeRemote(m, "")})
	}
	f := Open(entries, Options{CallTimeout: 20 * time.Second})
	defer f.Close()
	st := byName(waitFor(t, f, "every remote settled", 10*time.Second, settled))

	want := map[string]struct {
		reach Reach
		err   string
	}{
		"ok":        {Reachable, ""},
		"hostile":   {Reachable, ""},
		"wrongapi":  {Incompatible, "flowdeck fake-1 speaks fleet API 99, this flowdeck 1"},
		"noglance":  {Incompatible, "flowdeck fake-1 has no fleet_glance tool"},
		"toolerror": {Unreachable, "fleet_glance failed: internal: db x"},
		"malformed": {Unreachable, "fleet_glance: calling \"tools/call\": invalid character"},
		"oversized": {Unreachable, "fleet_glance: calling \"tools/call\": inbound JSON-RPC frame exceeded the configured maximum line length"},
		"bigglance": {Unreachable, "fleet_glance: an answer of"},
	}
	for name, w := range want {
		s := st[name]
		if s.Reach != w.reach || !strings.Contains(s.Err, w.err) {
			t.Errorf("%s: %s %q, want %s %q", name, s.Reach, s.Err, w.reach, w.err)
		}
		safeLine(t, name+" error", s.Err)
		safeLine(t, name+" version", s.Version)
		if w.reach == Unreachable && !s.Retry.After(time.Now().Add(-time.Minute)) {
			t.Errorf("%s: no retry time: %v", name, s.Retry)
		}
	}

	g := st["hostile"].Glance
	if g == nil {
		t.Fatal("the hostile remote's glance is missing")
	}
	if len(g.Waits) != MaxWaits || len(g.Active) != MaxActive || len(g.Waits[0].Options) != MaxOptions {
		t.Errorf("bounds: %d waits, %d active, %d options", len(g.Waits), len(g.Active), len(g.Waits[0].Options))
	}
	if g.Done < 0 || g.Total < 0 {
		t.Errorf("negative counts: %d/%d", g.Done, g.Total)
	}
	strs := []string{g.Root, g.Session, g.Goal, g.Status, g.NextCommand}
	for _, a := range g.Active {
		strs = append(strs, a.Feature, a.Title, a.Agent, a.State)
	}
	for _, w := range g.Waits {
		strs = append(strs, w.Kind, w.Key, w.Label, w.Feature, w.Decision, w.Reason)
		for _, o := range w.Options {
			strs = append(strs, o.ID, o.Label)
		}
	}
	for i, s := range strs {
		safeLine(t, fmt.Sprintf("glance string %d", i), s)
	}
	if !strings.HasPrefix(g.Goal, "éé") || !strings.HasSuffix(g.Goal, "…") {
		t.Errorf("the long goal is not cut with a mark: %q…", g.Goal[:20])
	}
	// The queue holds the good project's review and the hostile one's
	// bounded waits.
	q := f.Queue()
	if len(q) != MaxWaits+1 || q[0].Project != "ok" || q[0].Seq != 7 || q[0].Wait.Feature != "parser" {
		t.Fatalf("queue: %d items, first %+v", len(q), q[0])
	}
}

// A transport that exits at once shows how it ended and what it said; one
// whose flowdeck does not know --person is incompatible; one that never
// answers is unreachable after the call timeout. None of them delays
// Statuses or the good remote beside them.
func TestTransportFailures(t *testing.T) {
	const timeout = 2 * time.Second
	entries := []Entry{
		{Name: "exits", Command: []string{"sh", "-c", "echo 'ssh: connect to host nowhere port 22: Connection refused' >&2; exit 255", "sh", "mcp"}},
		{Name: "old", Command: []string{"sh", "-c", "echo 'flowdeck: unknown flag: --person' >&2; exit 2", "sh", "mcp"}},
		{Name: "hangs", Command: []string{"sh", "-c", "cat >/dev/null", "sh", "mcp"}},
		{Name: "missing", Command: []string{"/nonexistent/ssh", "h", "mcp"}},
		{Name: "good", Command: fakeRemote("ok", "")},
	}
	start := time.Now()
	f := Open(entries, Options{CallTimeout: timeout})
	if d := time.Since(start); d > timeout {
		t.Fatalf("Open took %s", d)
	}
	defer f.Close()
	st := byName(waitFor(t, f, "every transport settled", timeout/2, settled))
	if s := st["exits"]; s.Reach != Unreachable || !strings.Contains(s.Err, "exited (exit status 255): ssh: connect to host nowhere port 22: Connection refused") {
		t.Errorf("exits: %s %q", s.Reach, s.Err)
	}
	if s := st["old"]; s.Reach != Incompatible || !strings.Contains(s.Err, "does not know mcp --person") {
		t.Errorf("old: %s %q", s.Reach, s.Err)
	}
	if s := st["hangs"]; s.Reach != Unreachable || s.Err != "no answer within 2s (initialize)" {
		t.Errorf("hangs: %s %q", s.Reach, s.Err)
	}
	if s := st["missing"]; s.Reach != Unreachable || !strings.Contains(s.Err, "/nonexistent/ssh") {
		t.Errorf("missing: %s %q", s.Reach, s.Err)
	}
	if s := st["good"]; s.Reach != Reachable || s.Version != "fake-1" || s.Glance == nil || s.Glance.Goal != "ship it" {
		t.Errorf("good: %+v", s)
	}
	// Actions on a project that is not connected fail at once, saying why.
	if _, err := f.Resolve(t.Context(), "hangs", "d1", "yes", ""); err == nil || !strings.Contains(err.Error(), "hangs is unreachable: no answer within") {
		t.Errorf("resolve on an unreachable project: %v", err)
	}
	if _, err := f.Resolve(t.Context(), "nope", "d1", "yes", ""); err == nil || !strings.Contains(err.Error(), `no project "nope"`) {
		t.Errorf("resolve on an unknown project: %v", err)
	}
}

// A project that was unreachable becomes reachable when its transport
// answers; when its transport dies mid-session it shows unreachable with
// its last glance kept, and reconnects.
func TestReconnects(t *testing.T) {
	dir := t.TempDir()
	flag, pidFile := filepath.Join(dir, "up"), filepath.Join(dir, "pid")
	exe, _ := os.Executable()
	script := `[ -e "$1" ] && exec "$2" ` + fakeRemoteFlag + ` ok "$3" mcp; cat >/dev/null`
	f := Open([]Entry{{Name: "p", Command: []string{"sh", "-c", script, "sh", flag, exe, pidFile + "-", "mcp"}}},
		Options{CallTimeout: time.Second})
	defer f.Close()
	waitFor(t, f, "unreachable while it hangs", time.Second/2, func(st []Status) bool { return st[0].Reach == Unreachable })
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, f, "reachable once it answers", time.Second/2, func(st []Status) bool { return st[0].Reach == Reachable })

	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(data))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	st := waitFor(t, f, "unreachable after the kill", time.Second/2, func(st []Status) bool { return st[0].Reach == Unreachable })
	if !strings.Contains(st[0].Err, "signal: killed") || st[0].Glance == nil || st[0].Glance.Goal != "ship it" {
		t.Errorf("after the kill: %q, glance %+v", st[0].Err, st[0].Glance)
	}
	if len(f.Queue()) != 1 {
		t.Errorf("the last glance's waits left the queue: %+v", f.Queue())
	}
	waitFor(t, f, "reachable again", time.Second/2, func(st []Status) bool { return st[0].Reach == Reachable })
}

// A burst of update notifications makes one more glance at a time, not
// fifty: the fake remote records how many glances were asked and how many
// were in flight at once.
func TestRefreshCoalesces(t *testing.T) {
	state := filepath.Join(t.TempDir(), "calls")
	f := Open([]Entry{{Name: "p", Command: fakeRemote("burst", state)}}, Options{CallTimeout: 20 * time.Second})
	waitFor(t, f, "the glance after the burst", time.Second, func(st []Status) bool {
		return st[0].Glance != nil && st[0].Glance.Seq >= 2
	})
	f.Close()
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var calls, most int
	fmt.Sscan(string(data), &calls, &most)
	if most != 1 || calls > 3 {
		t.Fatalf("%d glance calls, %d at once: want at most 3, one at a time", calls, most)
	}
}

// Closing the fleet ends each transport's whole process group.
func TestCloseKillsTransportGroup(t *testing.T) {
	state := filepath.Join(t.TempDir(), "child")
	f := Open([]Entry{{Name: "p", Command: fakeRemote("okchild", state)}}, Options{})
	waitFor(t, f, "reachable", time.Second, func(st []Status) bool { return st[0].Reach == Reachable })
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(data))
	f.Close()
	end := time.Now().Add(backstop)
	for alive(pid) {
		if time.Now().After(end) {
			t.Fatalf("the transport's child %d outlived the fleet", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// An entry the config check refuses is unreachable with the reason and
// never started.
func TestOpenRefusesBadEntry(t *testing.T) {
	f := Open([]Entry{{Name: "bad", Command: []string{"ssh", "h"}}}, Options{})
	defer f.Close()
	st := f.Statuses()
	if st[0].Reach != Unreachable || !strings.Contains(st[0].Err, "config: the transport command") {
		t.Fatalf("%+v", st[0])
	}
}

// The queue is oldest first across projects, unknown times last, then by
// project and key.
func TestQueueOrder(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := &Fleet{}
	mk := func(name string, seq uint64, waits ...ops.FleetWait) *member {
		return &member{entry: Entry{Name: name}, st: Status{Glance: &ops.FleetGlance{Seq: seq, Waits: waits}}}
	}
	f.members = []*member{
		mk("b", 1, ops.FleetWait{Key: "b1", Since: t0.Add(time.Hour)}, ops.FleetWait{Key: "b0"}),
		mk("a", 2, ops.FleetWait{Key: "a2", Since: t0.Add(time.Hour)}, ops.FleetWait{Key: "a1", Since: t0.Add(time.Hour)}),
		mk("c", 3, ops.FleetWait{Key: "c1", Since: t0}),
		{entry: Entry{Name: "d"}},
	}
	var got []string
	for _, it := range f.Queue() {
		got = append(got, fmt.Sprintf("%s/%s@%d", it.Project, it.Wait.Key, it.Seq))
	}
	if want := "c/c1@3 a/a1@2 a/a2@2 b/b1@1 b/b0@1"; strings.Join(got, " ") != want {
		t.Fatalf("queue %v, want %s", got, want)
	}
}
