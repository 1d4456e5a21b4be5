package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	Reexec()
	code := m.Run()
	for _, f := range cleanups {
		f()
	}
	os.Exit(code)
}

var cleanups []func() // for files shared by benchmarks

// runT runs spec with a generous safety timeout and returns the result and
// the output.
func runT(t *testing.T, spec Spec) (Result, []byte) {
	t.Helper()
	var out syncBuffer
	spec.Output = &out
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := Run(ctx, spec)
	if err != nil && res.Outcome != StartFailed {
		t.Fatalf("Run(%q): %v", spec.Argv, err)
	}
	t.Logf("%q → exit %d %s, outcome %s, %s, %d bytes, isolation %+v", spec.Argv, res.ExitCode, res.Signal, res.Outcome, res.Duration.Round(time.Millisecond), res.Bytes, res.Isolation)
	return res, out.Bytes()
}

func sh(script string) []string { return []string{"sh", "-c", script} }

// syncBuffer is a bytes.Buffer that a test may read while Run writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.b.Bytes())
}

func (s *syncBuffer) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // a backstop for a loaded machine
	for !bytes.Contains(s.Bytes(), []byte(want)) {
		if time.Now().After(deadline) {
			t.Fatalf("output never contained %q; got %q", want, s.Bytes())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	notExec := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		argv    []string
		code    int
		signal  string
		outcome Outcome
		errText string
	}{
		{argv: []string{"true"}, code: 0, outcome: Exited},
		{argv: sh("exit 3"), code: 3, outcome: Exited},
		{argv: sh("kill -9 $$"), code: 128 + 9, signal: "SIGKILL", outcome: Exited},
		{argv: sh("kill -TERM $$"), code: 128 + 15, signal: "SIGTERM", outcome: Exited},
		{argv: []string{"flowdeck-no-such-command"}, code: 127, outcome: StartFailed, errText: "flowdeck-no-such-command: command not found"},
		{argv: []string{"/no/such/path/cmd"}, code: 127, outcome: StartFailed, errText: "no such file"},
		{argv: []string{notExec}, code: 126, outcome: StartFailed, errText: "not executable"},
		{argv: nil, code: 127, outcome: StartFailed, errText: "empty command"},
	} {
		res, _ := runT(t, Spec{Argv: tc.argv})
		if res.ExitCode != tc.code || res.Signal != tc.signal || res.Outcome != tc.outcome || !strings.Contains(res.Err, tc.errText) {
			t.Errorf("%q: got exit %d signal %q outcome %s err %q; want %d %q %s %q", tc.argv, res.ExitCode, res.Signal, res.Outcome, res.Err, tc.code, tc.signal, tc.outcome, tc.errText)
		}
	}
}

func TestStartErrorIsReturned(t *testing.T) {
	t.Parallel()
	_, err := Run(context.Background(), Spec{Argv: []string{"flowdeck-no-such-command"}})
	var se *StartError
	if !errors.As(err, &se) || se.ExitCode != 127 {
		t.Fatalf("want a *StartError with exit 127, got %#v", err)
	}
}

func TestMissingWorkingDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "gone")
	res, _ := runT(t, Spec{Argv: []string{"true"}, Dir: dir})
	if res.Outcome != StartFailed || res.ExitCode != 126 || !strings.Contains(res.Err, dir) || !strings.Contains(res.Err, "no such file or directory") {
		t.Fatalf("got %+v", res)
	}
}

func TestWorkingDirAndEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res, out := runT(t, Spec{Argv: sh(`pwd; echo "$FLOWDECK_RUN_ID"`), Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH"), "FLOWDECK_RUN_ID=r42"}})
	if res.ExitCode != 0 || string(out) != dir+"\nr42\n" {
		t.Fatalf("got exit %d, output %q", res.ExitCode, out)
	}
}

// Every byte value, bare \n and \r\n must come out exactly as written: no
// \n→\r\n, no other output processing.
func TestOutputIsByteExact(t *testing.T) {
	t.Parallel()
	var payload []byte
	for i := 0; i < 4; i++ {
		for b := 0; b < 256; b++ {
			payload = append(payload, byte(b))
		}
		payload = append(payload, "line\nwindows\r\n\ttab\x1b[31mred\x1b[0m\x00\xff\n"...)
	}
	f := filepath.Join(t.TempDir(), "payload")
	if err := os.WriteFile(f, payload, 0o644); err != nil {
		t.Fatal(err)
	}
	res, out := runT(t, Spec{Argv: []string{"cat", f}})
	if res.ExitCode != 0 || !bytes.Equal(out, payload) || res.Bytes != int64(len(payload)) {
		t.Fatalf("exit %d, %d bytes (counted %d), want %d identical bytes; first difference at %d", res.ExitCode, len(out), res.Bytes, len(payload), firstDiff(out, payload))
	}
}

// Linux reports EIO on the master once the terminal side is closed; the
// bytes written just before exit must still all arrive.
func TestTrailingOutputNotLost(t *testing.T) {
	t.Parallel()
	pattern := make([]byte, 10<<20)
	for i := range pattern {
		pattern[i] = "0123456789abcdef\n"[i%17]
	}
	f := filepath.Join(t.TempDir(), "pattern")
	if err := os.WriteFile(f, pattern, 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		res, out := runT(t, Spec{Argv: []string{"cat", f}})
		if res.ExitCode != 0 || !bytes.Equal(out, pattern) {
			t.Fatalf("round %d: exit %d, got %d bytes, want %d; first difference at %d", i, res.ExitCode, len(out), len(pattern), firstDiff(out, pattern))
		}
	}
}

func TestTerminal(t *testing.T) {
	t.Parallel()
	// Nobody types: stdin is not the terminal, stdout and stderr are.
	res, out := runT(t, Spec{Argv: sh("test ! -t 0 && test -t 1 && test -t 2 && stty size </dev/tty")})
	if res.ExitCode != 0 || string(out) != "40 120\n" {
		t.Fatalf("default size: exit %d output %q", res.ExitCode, out)
	}
	// Someone types: stdin is the terminal too.
	res, out = runT(t, Spec{Argv: sh("test -t 0 && stty size"), Cols: 100, Rows: 30, Stdin: strings.NewReader("")})
	if res.ExitCode != 0 || string(out) != "30 100\n" {
		t.Fatalf("100x30: exit %d output %q", res.ExitCode, out)
	}
}

func TestStdinIsTypedAndEnds(t *testing.T) {
	t.Parallel()
	res, out := runT(t, Spec{Argv: []string{"cat"}, Stdin: strings.NewReader("hello\nworld"), Timeout: 10 * time.Second})
	if res.Outcome != Exited || res.ExitCode != 0 || string(out) != "hello\nworld" {
		t.Fatalf("outcome %s exit %d output %q; want cat to echo the input once and see EOF", res.Outcome, res.ExitCode, out)
	}
}

func TestOutputWriteError(t *testing.T) {
	t.Parallel()
	res, err := Run(context.Background(), Spec{Argv: sh("echo one; sleep 0.1; echo two; exit 4"), Output: failingWriter{}})
	if err == nil || !strings.Contains(err.Error(), "disk full") || res.ExitCode != 4 || res.Outcome != Exited {
		t.Fatalf("got %+v, %v", res, err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestContextCancelKillsRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	res, err := Run(ctx, Spec{Argv: []string{"sleep", "300"}})
	if err != nil || res.Outcome != Cancelled || res.ExitCode != 137 || time.Since(start) > 5*time.Second {
		t.Fatalf("got %+v, %v after %s", res, err, time.Since(start))
	}
}

func TestInterruptRunsTrapHandler(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	sigs := make(chan os.Signal, 2)
	done := make(chan Result)
	go func() {
		res, _ := Run(context.Background(), Spec{
			Argv:      sh(`trap 'echo got-INT; exit 7' INT; echo ready; while :; do sleep 0.05; done`),
			Output:    &out,
			Interrupt: sigs,
			Timeout:   20 * time.Second,
		})
		done <- res
	}()
	out.waitFor(t, "ready")
	sigs <- os.Interrupt
	res := <-done
	if res.Outcome != Cancelled || res.ExitCode != 7 || !strings.Contains(string(out.Bytes()), "got-INT") {
		t.Fatalf("outcome %s exit %d output %q", res.Outcome, res.ExitCode, out.Bytes())
	}
}

func TestSecondInterruptKills(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	sigs := make(chan os.Signal, 2)
	done := make(chan Result)
	go func() {
		res, _ := Run(context.Background(), Spec{
			Argv:      sh(`trap '' INT; echo ready; sleep 300`),
			Output:    &out,
			Interrupt: sigs,
			Timeout:   20 * time.Second,
		})
		done <- res
	}()
	out.waitFor(t, "ready")
	sigs <- syscall.SIGINT
	select {
	case res := <-done:
		t.Fatalf("the command ignores SIGINT but ended: %+v", res)
	case <-time.After(300 * time.Millisecond):
	}
	sigs <- syscall.SIGINT
	res := <-done
	if res.Outcome != Cancelled || res.ExitCode != 137 || res.Signal != "SIGKILL" {
		t.Fatalf("got %+v", res)
	}
}

// modes are the isolation paths a kill test must hold for.
func modes(t *testing.T) map[string]Spec {
	m := map[string]Spec{"fallback": {ForceFallback: true}, "auto": {}}
	if usable(t, "v1", ctlPids) == "" {
		m["cgroup-v1"] = Spec{mechanism: MechCgroupV1}
	}
	if v2Writable() == "" {
		m["cgroup-v2"] = Spec{mechanism: MechCgroupV2}
	}
	return m
}

// A grandchild that ignores SIGHUP and SIGTERM survives the session leader's
// death; the timeout must still kill it, and nothing of the run remains.
func TestTimeoutKillsGrandchildIgnoringHUP(t *testing.T) {
	for name, spec := range modes(t) {
		t.Run(name, func(t *testing.T) {
			spec.Argv = sh(`trap "" HUP; (trap "" HUP TERM; exec sleep 300) & echo "grandchild $!"; wait`)
			spec.Timeout = time.Second
			start := time.Now()
			res, out := runT(t, spec)
			if res.Outcome != TimedOut || res.ExitCode != 137 || time.Since(start) > 6*time.Second {
				t.Fatalf("outcome %s exit %d after %s", res.Outcome, res.ExitCode, time.Since(start))
			}
			assertGone(t, res, pidAfter(t, out, "grandchild"))
		})
	}
}

// A command that exits leaving a background process behind: the run ends
// with the command, and the leftover is killed.
func TestNoOrphanAfterExit(t *testing.T) {
	for name, spec := range modes(t) {
		t.Run(name, func(t *testing.T) {
			spec.Argv = sh(`(trap "" HUP TERM; exec sleep 300) & echo "bg $!"; exit 5`)
			res, out := runT(t, spec)
			if res.Outcome != Exited || res.ExitCode != 5 || res.Duration > 5*time.Second {
				t.Fatalf("outcome %s exit %d after %s", res.Outcome, res.ExitCode, res.Duration)
			}
			assertGone(t, res, pidAfter(t, out, "bg"))
		})
	}
}

// A process that left the group with setsid is out of reach of the group
// kill; the cgroup still finds it.
func TestCgroupKillsEscapedProcess(t *testing.T) {
	for name, spec := range modes(t) {
		if !strings.HasPrefix(name, "cgroup") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			spec.Argv = sh(`setsid sh -c 'trap "" HUP TERM; exec sleep 300' & sleep 0.2; echo "escaped $(pgrep -n -x sleep)"`)
			res, out := runT(t, spec)
			if res.ExitCode != 0 || !slices.Contains(res.Isolation.Enforced, "cgroup-kill") || res.Isolation.Mechanism != name {
				t.Fatalf("exit %d isolation %+v", res.ExitCode, res.Isolation)
			}
			assertGone(t, res, pidAfter(t, out, "escaped"))
			if _, err := os.Stat(res.Isolation.Cgroup); !os.IsNotExist(err) {
				t.Fatalf("cgroup %s not removed: %v", res.Isolation.Cgroup, err)
			}
		})
	}
}

func TestFallbackBasics(t *testing.T) {
	t.Parallel()
	res, out := runT(t, Spec{Argv: sh("printf 'a\\nb\\r\\n'; exit 3"), ForceFallback: true, Limits: Limits{CPU: 0.5}})
	if res.ExitCode != 3 || string(out) != "a\nb\r\n" || res.Isolation.Mechanism != MechNone || res.Isolation.Cgroup != "" {
		t.Fatalf("exit %d output %q isolation %+v", res.ExitCode, out, res.Isolation)
	}
	if !slices.Contains(res.Isolation.Enforced, "pgroup-kill") || !hasNote(res, "cpu: not enforced") {
		t.Fatalf("isolation %+v should enforce pgroup-kill and explain cpu", res.Isolation)
	}
}

// memoryHog doubles a shell variable up to 256 MiB (bounded) and says so if
// it got there.
var memoryHog = sh(`x=0123456789abcdef; i=0; while [ $i -lt 24 ]; do x=$x$x; i=$((i+1)); done; echo survived`)

func TestMemoryLimitOOM(t *testing.T) {
	if why := anyUsable(t, ctlMemory); why != "" {
		t.Skip("no cgroup memory controller usable here: " + why)
	}
	res, out := runT(t, Spec{Argv: memoryHog, Limits: Limits{MemoryBytes: 64 << 20}, Timeout: 20 * time.Second})
	if res.Outcome != OOM || res.ExitCode != 137 || bytes.Contains(out, []byte("survived")) || !slices.Contains(res.Isolation.Enforced, "memory") {
		t.Fatalf("outcome %s exit %d output %q isolation %+v", res.Outcome, res.ExitCode, out, res.Isolation)
	}
}

func TestMemoryLimitFallback(t *testing.T) {
	res, out := runT(t, Spec{Argv: memoryHog, Limits: Limits{MemoryBytes: 64 << 20}, Timeout: 20 * time.Second, ForceFallback: true})
	if res.Outcome != OOM || res.ExitCode == 0 || bytes.Contains(out, []byte("survived")) {
		t.Fatalf("outcome %s exit %d output %q", res.Outcome, res.ExitCode, out)
	}
	if res.Isolation.Mechanism != MechRlimit || !slices.Contains(res.Isolation.Enforced, "memory") || !hasNote(res, "RLIMIT_AS") {
		t.Fatalf("isolation %+v", res.Isolation)
	}
}

// An allocation refused at RLIMIT_AS far below the limit's size (one huge
// request) is recognised from what the program says.
func TestMemoryLimitFallbackSaysOOM(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	res, out := runT(t, Spec{Argv: []string{"python3", "-c", "bytearray(10**10)"}, Limits: Limits{MemoryBytes: 512 << 20}, Timeout: 20 * time.Second, ForceFallback: true})
	if res.Outcome != OOM || !bytes.Contains(out, []byte("MemoryError")) {
		t.Fatalf("outcome %s exit %d output %q", res.Outcome, res.ExitCode, out)
	}
	// A plain failure under the same limit is not taken for one.
	res, _ = runT(t, Spec{Argv: sh("exit 3"), Limits: Limits{MemoryBytes: 512 << 20}, ForceFallback: true})
	if res.Outcome != Exited {
		t.Fatalf("exit 3 under RLIMIT_AS: outcome %s", res.Outcome)
	}
}

func TestPidsLimit(t *testing.T) {
	if why := anyUsable(t, ctlPids); why != "" {
		t.Skip("no cgroup pids controller usable here: " + why)
	}
	// Bounded: at most 100 short sleeps even if the limit did nothing.
	res, _ := runT(t, Spec{Argv: sh(`for i in $(seq 100); do sleep 2 & done; wait`), Limits: Limits{Pids: 20}, Timeout: 20 * time.Second})
	if res.Outcome != PidsLimit || res.ExitCode == 0 || !slices.Contains(res.Isolation.Enforced, "pids") {
		t.Fatalf("outcome %s exit %d isolation %+v", res.Outcome, res.ExitCode, res.Isolation)
	}
}

func TestPidsLimitFallbackExplains(t *testing.T) {
	t.Parallel()
	res, _ := runT(t, Spec{Argv: []string{"true"}, Limits: Limits{Pids: 20}, ForceFallback: true})
	if res.ExitCode != 0 || !hasNote(res, "pids") {
		t.Fatalf("got %+v", res)
	}
}

func TestCPULimit(t *testing.T) {
	if why := anyUsable(t, ctlCPU); why != "" {
		t.Skip("no cgroup cpu controller usable here: " + why)
	}
	res, _ := runT(t, Spec{Argv: sh(`while :; do :; done`), Limits: Limits{CPU: 0.2}, Timeout: 2 * time.Second})
	share := res.CPUTime.Seconds() / res.Duration.Seconds()
	t.Logf("cpu %s over %s wall = %.2f of a core", res.CPUTime, res.Duration, share)
	if res.Outcome != TimedOut || !slices.Contains(res.Isolation.Enforced, "cpu") || share < 0.1 || share > 0.35 {
		t.Fatalf("outcome %s, share %.2f, isolation %+v; want about 0.2", res.Outcome, share, res.Isolation)
	}
}

func TestNoNetwork(t *testing.T) {
	caps := probe(t)
	if !caps.Network.Available {
		t.Skip("network namespaces not permitted here: " + caps.Network.Reason)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash for /dev/tcp")
	}
	ln, err := (&netListen{}).open(t)
	if err != nil {
		t.Fatal(err)
	}
	connect := []string{"bash", "-c", fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && echo connected`, ln.port)}

	// Control: without the flag the listener is reachable.
	res, out := runT(t, Spec{Argv: connect, Timeout: 10 * time.Second})
	if res.ExitCode != 0 || !bytes.Contains(out, []byte("connected")) {
		t.Fatalf("control run could not connect: exit %d %q", res.ExitCode, out)
	}
	// Counted only once accepted: wait for it, or it would be counted
	// against the isolated run below.
	ln.waitAccepted(t, 1)
	before := ln.accepted()

	res, out = runT(t, Spec{Argv: connect, NoNetwork: true, Timeout: 10 * time.Second})
	if res.ExitCode == 0 || bytes.Contains(out, []byte("connected")) || !slices.Contains(res.Isolation.Enforced, "network") {
		t.Fatalf("connected despite NoNetwork: exit %d %q %+v", res.ExitCode, out, res.Isolation)
	}
	// Loopback is up inside: refused (nobody listens there), not unreachable.
	if !bytes.Contains(out, []byte("Connection refused")) {
		t.Errorf("want loopback up inside the namespace (connection refused), got %q", out)
	}
	if n := ln.sentinel(t); n != before+1 {
		t.Fatalf("listener accepted %d connection(s) from the isolated run", n-before-1)
	}
}

func TestProbe(t *testing.T) {
	c := probe(t)
	t.Logf("%+v", c)
	if c.OS != runtime.GOOS || c.Mechanism == "" || len(c.Controllers) == 0 {
		t.Fatalf("incomplete: %+v", c)
	}
	for _, ctl := range c.Controllers {
		if !ctl.Usable && ctl.Reason == "" {
			t.Errorf("%s %s unusable without a reason", ctl.Version, ctl.Name)
		}
	}
}

// --- helpers ---

var (
	probeOnce sync.Once
	probed    Capabilities
)

func probe(t *testing.T) Capabilities {
	probeOnce.Do(func() { probed = Probe() })
	return probed
}

// usable returns "" when the controller works in that cgroup version, else why not.
func usable(t *testing.T, version, name string) string {
	for _, c := range probe(t).Controllers {
		if c.Version == version && c.Name == name {
			if c.Usable {
				return ""
			}
			return c.Reason
		}
	}
	return "not probed"
}

func anyUsable(t *testing.T, name string) string {
	var why []string
	for _, v := range []string{"v2", "v1"} {
		r := usable(t, v, name)
		if r == "" {
			return ""
		}
		why = append(why, v+": "+r)
	}
	return strings.Join(why, "; ")
}

func hasNote(res Result, sub string) bool {
	for _, n := range res.Isolation.Notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

func pidAfter(t *testing.T, out []byte, label string) int {
	t.Helper()
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, label+" "); ok {
			if pid, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
				return pid
			}
		}
	}
	t.Fatalf("no %q pid in output %q", label, out)
	return 0
}

// assertGone checks /proc: the given pid is dead, and no live process is
// left in the run's session or process group.
func assertGone(t *testing.T, res Result, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // the reaper (init) may lag on a loaded machine
	for {
		left := leftovers(res.Pid, pid)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the run survive: %v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func leftovers(sid, pid int) []string {
	var left []string
	ents, err := os.ReadDir("/proc")
	if err != nil { // no /proc (macOS): the one pid we know of must be gone
		if syscall.Kill(pid, 0) != syscall.ESRCH {
			left = append(left, strconv.Itoa(pid))
		}
		return left
	}
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session ...
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(f) < 4 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		pgrp, _ := strconv.Atoi(f[2])
		session, _ := strconv.Atoi(f[3])
		if n == pid || pgrp == sid || session == sid {
			left = append(left, strings.TrimSpace(s[:strings.LastIndexByte(s, ')')+3]))
		}
	}
	return left
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// Through the helper too, exec errors come back as clear start failures.
func TestExecFormatError(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "garbage")
	if err := os.WriteFile(bad, []byte("\x00\x01\x02 not a program"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []Spec{
		{Argv: []string{bad}},
		{Argv: []string{bad}, ForceFallback: true, Limits: Limits{MemoryBytes: 1 << 30}}, // via the helper (rlimit)
	} {
		res, _ := runT(t, spec)
		if res.Outcome != StartFailed || res.ExitCode != 126 || !strings.Contains(res.Err, "exec format error") {
			t.Errorf("got %+v", res)
		}
	}
}

// The helper gets the command's argv as separate arguments: an argv longer
// than the kernel's 128 KiB per-argument cap must still pass.
func TestLongArgvThroughHelper(t *testing.T) {
	t.Parallel()
	argv := sh(`echo "$# ${#1}"`)
	argv = append(argv, "sh")
	for range 3000 {
		argv = append(argv, strings.Repeat("x", 100))
	}
	res, out := runT(t, Spec{Argv: argv, ForceFallback: true, Limits: Limits{MemoryBytes: 1 << 30}})
	if res.ExitCode != 0 || string(out) != "3000 100\n" || res.Isolation.Mechanism != MechRlimit {
		t.Fatalf("exit %d output %q err %q mechanism %s", res.ExitCode, out, res.Err, res.Isolation.Mechanism)
	}
}
