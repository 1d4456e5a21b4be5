//go:build unix && !linux

package runner

import "syscall"

// Reap kills the process group of a run whose flowdeck process died, when
// its leader is gone (a live leader may be an unrelated process that got
// the pid). It returns how many groups it signalled.
func Reap(r Remains) int {
	if r.Pid <= 1 || syscall.Kill(r.Pid, 0) == nil {
		return 0
	}
	if syscall.Kill(-r.Pid, syscall.SIGKILL) == nil {
		return 1
	}
	return 0
}
