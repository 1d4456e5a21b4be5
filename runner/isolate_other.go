//go:build unix && !linux

package runner

import (
	"os"
	"runtime"
	"syscall"
)

type sysPlan struct{}

// prepare: no cgroups or namespaces outside Linux; rlimits, the timeout and
// the process-group kill are what is left.
func prepare(spec *Spec) *plan {
	p := &plan{iso: Isolation{Mechanism: MechNone}, clean: func() {}}
	if spec.Timeout > 0 {
		p.enforce("timeout")
	}
	p.enforce("pgroup-kill")
	if len(wanted(spec.Limits)) > 0 && !spec.ForceFallback {
		p.note("cgroups: not available on %s", runtime.GOOS)
	}
	addRlimits(p, spec.Limits, true, true, true)
	if spec.NoNetwork {
		p.note("network: not isolated: network namespaces are Linux only")
	}
	return p
}

func (p *plan) applySys(*syscall.SysProcAttr) {}

func (p *plan) retrySys(error) bool { return false }

// waitNoReap is Linux only (waitid WNOWAIT); the caller then reaps at once.
func waitNoReap(int) error { return errNoWaitid }

var errNoWaitid = &os.SyscallError{Syscall: "waitid", Err: syscall.ENOSYS}

func selfExe() (string, error) { return os.Executable() }

// userTasks is not implemented here: RLIMIT_NPROC stays unset.
func userTasks() (int, bool) { return 0, false }

// Probe reports what the isolator can do here, with reasons.
func Probe() Capabilities {
	c := Capabilities{OS: runtime.GOOS, Cgroup: "none"}
	for _, name := range []string{ctlMemory, ctlPids, ctlCPU} {
		c.Controllers = append(c.Controllers, Controller{Name: name, Version: "v2", Reason: "cgroups are Linux only"})
	}
	p := prepare(&Spec{Limits: Limits{MemoryBytes: 1 << 40, Pids: 1 << 20, CPU: 1}})
	c.Mechanism, c.Enforced, c.Notes = p.iso.Mechanism, p.iso.Enforced, p.iso.Notes
	c.Network.Reason = "network namespaces are Linux only"
	return c
}
