package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The command itself (not just the helper) must be inside the run's cgroup
// in every hierarchy that carries a limit.
func TestCommandRunsInsideItsCgroup(t *testing.T) {
	for name, spec := range modes(t) {
		if !strings.HasPrefix(name, "cgroup") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			spec.Argv = []string{"cat", "/proc/self/cgroup"}
			spec.Limits = Limits{MemoryBytes: 1 << 30, Pids: 1000, CPU: 1}
			res, out := runT(t, spec)
			run := "/flowdeck/" + filepath.Base(res.Isolation.Cgroup)
			if res.ExitCode != 0 || res.Isolation.Cgroup == "" {
				t.Fatalf("exit %d isolation %+v", res.ExitCode, res.Isolation)
			}
			for _, ctl := range append([]string{""}, res.Isolation.Enforced...) {
				if name == MechCgroupV1 && ctl == "" || name == MechCgroupV2 && ctl != "" || ctl != "" && ctl != ctlMemory && ctl != ctlPids && ctl != ctlCPU {
					continue
				}
				if !cgroupLine(out, ctl, run) {
					t.Errorf("controller %q: command not in %s:\n%s", ctl, run, out)
				}
			}
		})
	}
}

// cgroupLine reports whether /proc/self/cgroup output places ctl ("" = v2)
// in a path ending with run.
func cgroupLine(out []byte, ctl, run string) bool {
	for _, line := range strings.Split(string(out), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || !strings.HasSuffix(parts[2], run) {
			continue
		}
		if ctl == "" && parts[0] == "0" {
			return true
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == ctl {
				return true
			}
		}
	}
	return false
}

// Runs in parallel share the "flowdeck" parent cgroups, which each run
// removes when it is the last: nobody may lose its cgroup to that.
func TestConcurrentRunsKeepTheirCgroups(t *testing.T) {
	if usable(t, "v1", ctlPids) != "" && v2Writable() != "" {
		t.Skip("no usable cgroups here")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spec := Spec{Argv: sh("cat /proc/self/cgroup")}
			if i%2 == 0 {
				spec.Limits = Limits{Pids: 100, MemoryBytes: 1 << 30}
			}
			var out syncBuffer
			spec.Output = &out
			res, err := Run(t.Context(), spec)
			switch {
			case err != nil || res.ExitCode != 0:
				errs <- fmt.Errorf("run %d: %+v %v", i, res, err)
			case res.Isolation.Cgroup == "" || len(res.Isolation.Notes) > 0:
				errs <- fmt.Errorf("run %d: isolation %+v", i, res.Isolation)
			case !strings.Contains(string(out.Bytes()), "/flowdeck/"+filepath.Base(res.Isolation.Cgroup)):
				errs <- fmt.Errorf("run %d: not in its cgroup: %s", i, out.Bytes())
			}
			if _, err := os.Stat(res.Isolation.Cgroup); !os.IsNotExist(err) {
				errs <- fmt.Errorf("run %d: cgroup %s left behind", i, res.Isolation.Cgroup)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
