package runner

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// Reap kills what is left of a run whose flowdeck process died: every
// process in its cgroups (whose directories it then removes), and every
// process of its session. It returns how many processes it signalled.
//
// The session is killed only when it is certainly the run's: its leader is
// the run's command (same start time), or it has no leader left and the
// kernel keeps a session id from being reused while a member lives.
func Reap(r Remains) int {
	n := 0
	for _, d := range r.Cgroups {
		if !isRunCgroup(d) {
			continue
		}
		g := &cgroupRun{version: 1, main: d, fd: -1, dirs: map[string]string{"": d}}
		if _, err := os.Stat(filepath.Join(d, "cgroup.kill")); err == nil {
			g.version = 2
		}
		n += len(readPids(filepath.Join(d, "cgroup.procs")))
		g.killAll()
		g.remove()
	}
	if r.Pid <= 1 {
		return n
	}
	if st, alive := procStat(r.Pid); alive && (r.Start == 0 || st.start != r.Start) {
		return n // the pid names another process now
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if st, ok := procStat(pid); ok && st.session == r.Pid && syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}

// isRunCgroup accepts only a directory that runner created for a run, so a
// tampered record cannot make us empty someone else's cgroup.
func isRunCgroup(dir string) bool {
	if filepath.Base(filepath.Dir(dir)) != "flowdeck" {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, "cgroup.procs"))
	return err == nil
}
