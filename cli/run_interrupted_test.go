package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// waitFor polls cond (a condition, not a timer) until it holds or 30 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		i := strings.LastIndexByte(string(b), ')')
		return i > 0 && i+2 < len(b) && b[i+2] != 'Z'
	}
	return syscall.Kill(pid, 0) == nil
}

func listRuns(t *testing.T, dir string, env []string) []model.RunRecord {
	t.Helper()
	// --all: a flow's exec block is its plumbing, listed only when asked.
	out, errs, code := flowdeckEnv(t, dir, env, "--json", "runs", "--all")
	var res struct {
		Runs []model.RunRecord `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
		t.Fatalf("runs: exit %d %v\n%s%s", code, err, out, errs)
	}
	return res.Runs
}

// startKillable starts `flowdeck run` of script, which writes "CHILD LEADER"
// pids to dir/pids, and returns it once the run's output is committed.
func startKillable(t *testing.T, dir string, env []string, isolation, script string, minBytes int64) (*exec.Cmd, int, int) {
	t.Helper()
	pids := filepath.Join(dir, "pids")
	full := `trap "" HUP; (trap "" HUP; exec sleep 1000) & echo "$! $$" > ` + pids + `.tmp; mv ` + pids + `.tmp ` + pids + `; ` + script
	cmd := exec.Command(binary, "--dir", dir, "run", "--quiet", "--isolation", isolation, "--", "sh", "-c", full)
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var child, leader int
	waitFor(t, "the run's pids", func() bool {
		b, err := os.ReadFile(pids)
		if err != nil {
			return false
		}
		f := strings.Fields(string(b))
		child, _ = strconv.Atoi(f[0])
		leader, _ = strconv.Atoi(f[1])
		return true
	})
	t.Cleanup(func() { syscall.Kill(child, syscall.SIGKILL); syscall.Kill(leader, syscall.SIGKILL) })
	waitFor(t, "committed output", func() bool {
		runs := listRuns(t, dir, env)
		return len(runs) == 1 && runs[0].Outcome == model.RunRunning && runs[0].Bytes >= minBytes
	})
	return cmd, child, leader
}

// A SIGKILLed `flowdeck run` leaves no process behind (not even one that
// ignores SIGHUP) and no run that says running: the next flowdeck process
// marks it interrupted, keeps its output, and can forget it.
// With cgroups (where usable) the leftover is found in the run's cgroup;
// without, in its session.
func TestKilledRunIsInterrupted(t *testing.T) {
	for _, isolation := range []string{"auto", "none"} {
		t.Run(isolation, func(t *testing.T) { testKilledRun(t, isolation) })
	}
}

func testKilledRun(t *testing.T, isolation string) {
	dir := t.TempDir()
	cmd, child, leader := startKillable(t, dir, nil, isolation, `i=0; while :; do echo "tick $i"; i=$((i+1)); sleep 0.05; done`, 1)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	waitFor(t, "the command to die with flowdeck (Pdeathsig)", func() bool { return !alive(leader) })

	runs := listRuns(t, dir, nil)
	if len(runs) != 1 || runs[0].Outcome != model.RunInterrupted || runs[0].ExitCode != -1 {
		t.Fatalf("after the kill: %+v", runs)
	}
	waitFor(t, "the leftover child to be reaped", func() bool { return !alive(child) })
	id := runs[0].ID
	out, errs, code := flowdeck(t, dir, "show", id)
	if code != 0 || !strings.Contains(out, "tick 0\n") || !strings.Contains(errs, "is interrupted") {
		t.Fatalf("show: exit %d %q %q", code, out, errs)
	}
	if out, _, _ := flowdeck(t, dir, "runs"); !strings.Contains(out, "interrupted") {
		t.Fatalf("runs does not say interrupted:\n%s", out)
	}
	if out, _, code := flowdeck(t, dir, "forget", "--run", id); code != 0 || !strings.Contains(out, "forgot the output of 1 run(s)") {
		t.Fatalf("forget: exit %d %q", code, out)
	}
	if _, errs, code := flowdeck(t, dir, "show", id); code == 0 || !strings.Contains(errs, "run_forgotten") {
		t.Fatalf("show after forget: exit %d %q", code, errs)
	}
}

// A killed run's output does not make retention forget the runs after it.
func TestKilledRunDoesNotEvictNewerRuns(t *testing.T) {
	dir := t.TempDir()
	env := []string{"FLOWDECK_RETAIN=100K"}
	cmd, _, _ := startKillable(t, dir, env, "auto", `head -c 300000 /dev/zero | tr '\0' x; echo; sleep 1000`, 300001)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// No listing in between: retention itself must see the dead run.
	out, errs, code := flowdeckEnv(t, dir, env, "--json", "run", "--", "echo", "important")
	var r runJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 {
		t.Fatalf("run: exit %d %v %s %s", code, err, out, errs)
	}
	if out, errs, code := flowdeckEnv(t, dir, env, "show", r.ID); code != 0 || !strings.Contains(out, "important") {
		t.Fatalf("the newest run was forgotten: exit %d %q %q", code, out, errs)
	}
	runs := listRuns(t, dir, env)
	if len(runs) != 2 || runs[1].Outcome != model.RunInterrupted || !runs[1].Forgotten {
		t.Fatalf("the interrupted run, oldest and over budget, should be forgotten: %+v", runs)
	}
}

// show --json streams a large output: the object is complete and the
// process stays small. (Its peak counts the database pages it read through
// the mmap, about the output's size; loading it all whole took ~10x.)
func TestShowJSONStreamsLargeOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 64 MB of output; skipped with -short")
	}
	dir := t.TempDir()
	const size = 64 << 20
	r := runJSONIn(t, dir, nil, "sh", "-c", `head -c 67108864 /dev/zero | tr '\0' x | fold -w 127; printf '<tail>&\n'`)
	if r.Outcome != "exited" || r.ExitCode != 0 {
		t.Fatalf("run: %+v", r)
	}
	cmd := exec.Command(binary, "--dir", dir, "--json", "show", r.ID)
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	peak := watchPeakRSS(cmd.Process.Pid)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	var res struct {
		OK     bool            `json:"ok"`
		Run    model.RunRecord `json:"run"`
		Output string          `json:"output"`
	}
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if !res.OK || res.Run.ID != r.ID || strings.Count(res.Output, "x") != size || !strings.HasSuffix(res.Output, "x<tail>&\n") {
		t.Fatalf("ok %v run %q output %d bytes, tail %q", res.OK, res.Run.ID, len(res.Output), res.Output[max(0, len(res.Output)-20):])
	}
	hwm := peak()
	t.Logf("show --json of %d MiB peaked at %d MiB", size>>20, hwm>>20)
	if hwm == 0 {
		t.Log("no /proc: the peak was not measured")
	}
	if hwm > 2*size {
		t.Fatalf("show --json peaked at %d MiB for %d MiB of output", hwm>>20, size>>20)
	}
}

// watchPeakRSS samples the high-water mark of process pid's own memory
// (VmHWM) until it exits; the returned func stops and gives the last
// sample. Not the rusage of the child: os/exec starts children with vfork,
// so a child's ru_maxrss counts this test binary's memory as well.
func watchPeakRSS(pid int) func() int64 {
	var hwm atomic.Int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		path := fmt.Sprintf("/proc/%d/status", pid)
		for {
			if data, err := os.ReadFile(path); err == nil {
				for _, line := range strings.Split(string(data), "\n") {
					var kb int64
					if _, err := fmt.Sscanf(line, "VmHWM: %d kB", &kb); err == nil && kb<<10 > hwm.Load() {
						hwm.Store(kb << 10)
					}
				}
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() int64 {
		close(done)
		<-stopped
		return hwm.Load()
	}
}

// A flow SIGKILLed in the middle of an {exec} block leaves its command's
// run interrupted, not running.
func TestKilledFlowLeavesInterruptedRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "slow.md")
	os.WriteFile(file, []byte("---\nliterate: true\n---\n```yaml {config}\nstep: one\n```\n```sh {exec}\necho started; sleep 1000\n```\n"), 0o644)
	cmd := exec.Command(binary, "--dir", dir, "flows", "run", file)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitFor(t, "the exec block's output", func() bool {
		runs := listRuns(t, dir, nil)
		return len(runs) == 1 && runs[0].Bytes > 0
	})
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if runs := listRuns(t, dir, nil); len(runs) != 1 || runs[0].Outcome != model.RunInterrupted {
		t.Fatalf("after the flow's death: %+v", runs)
	}
}
