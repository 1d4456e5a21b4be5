//go:build unix

package runner

import (
	"os"

	"golang.org/x/sys/unix"

	"flowdeck/runner/internal/isohelper"
)

// addRlimits applies what rlimits can do for limits no cgroup enforces.
// They are per process, so they are weaker than a cgroup: noted as such.
func addRlimits(p *plan, l Limits, memory, pids, cpu bool) {
	if memory && l.MemoryBytes > 0 {
		p.rlimit(unix.RLIMIT_AS, uint64(l.MemoryBytes))
		p.enforce("memory")
		p.note("memory: RLIMIT_AS per process (virtual memory, not RAM): an allocation fails instead of an OOM kill, so the outcome stays %q", Exited)
	}
	if pids && l.Pids > 0 {
		if os.Geteuid() == 0 {
			p.note("pids: not enforced: RLIMIT_NPROC does not apply to root")
		} else if n, ok := userTasks(); ok {
			// RLIMIT_NPROC counts every task of the user, not the run's: allow
			// what exists now plus the run's share.
			p.rlimit(unix.RLIMIT_NPROC, uint64(n+l.Pids))
			p.enforce("pids")
			p.note("pids: RLIMIT_NPROC (approximate: counts all of the user's processes; fork failures are not detected)")
		} else {
			p.note("pids: not enforced: cannot count the user's processes for RLIMIT_NPROC")
		}
	}
	if cpu && l.CPU > 0 {
		p.note("cpu: not enforced: RLIMIT_CPU limits total seconds, not a rate")
	}
}

func (p *plan) rlimit(res int, v uint64) {
	if p.helper == nil {
		p.helper = &isohelper.Config{}
	}
	p.helper.Rlimits = append(p.helper.Rlimits, isohelper.Rlimit{Resource: res, Limit: v})
	if p.iso.Mechanism == MechNone {
		p.iso.Mechanism = MechRlimit
	}
}
