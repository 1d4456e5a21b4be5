//go:build unix

package runner

import (
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/flowdeck/flowdeck/internal/lazyre"
	"github.com/flowdeck/flowdeck/runner/internal/isohelper"
)

// addRlimits applies what rlimits can do for limits no cgroup enforces.
// They are per process, so they are weaker than a cgroup: noted as such.
func addRlimits(p *plan, l Limits, memory, pids, cpu bool) {
	if memory && l.MemoryBytes > 0 {
		p.rlimit(unix.RLIMIT_AS, uint64(l.MemoryBytes))
		p.asLimit = l.MemoryBytes
		p.enforce("memory")
		p.note("memory: RLIMIT_AS per process (virtual memory, not RAM): an allocation fails instead of an OOM kill; a failure near the limit, or whose output says memory ran out, is taken for %q", OOM)
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

// allocFailure matches what programs print when an allocation fails.
var allocFailure = lazyre.New(`(?i)out of memory|MemoryError|cannot allocate memory|bad_alloc|memory exhausted|memory allocation of \d+ bytes failed|failed to allocate`)

// rlimitOOM says whether a failed command ran out of memory under
// RLIMIT_AS: nothing counts refused allocations, so it is judged from the
// peak resident size (at least half the limit) and the output's tail.
func rlimitOOM(limit, peak int64, tail []byte) bool {
	return peak*2 >= limit || allocFailure().Match(tail)
}

// maxRSS is the peak resident size in bytes from a wait's rusage.
func maxRSS(ru *syscall.Rusage) int64 {
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) // bytes there, KiB elsewhere
	}
	return int64(ru.Maxrss) << 10
}
