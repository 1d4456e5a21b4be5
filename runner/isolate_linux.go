package runner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/flowdeck/flowdeck/runner/internal/isohelper"
)

// prepare picks the isolation for one run: a cgroup (v2 first, then v1)
// that enforces every requested limit, else the one that enforces most;
// rlimits for what no cgroup covers; a network namespace if asked.
func prepare(spec *Spec) *plan {
	p := &plan{iso: Isolation{Mechanism: MechNone}, clean: func() {}, sys: sysPlan{cgroupFD: -1}}
	if spec.Timeout > 0 {
		p.enforce("timeout")
	}
	p.enforce("pgroup-kill")
	want := wanted(spec.Limits)

	var g *cgroupRun
	if spec.ForceFallback {
		p.note("cgroups: not used: fallback isolation was requested")
	} else {
		g = chooseCgroup(spec, want, p)
	}
	memory, pids, cpu := true, true, true
	if g != nil {
		p.useCgroup(g)
		for _, c := range want {
			if r := g.reasons[c]; r != "" {
				p.note("%s: not enforced by cgroup v%d: %s", c, g.version, r)
			}
		}
		memory, pids, cpu = g.reasons[ctlMemory] != "", g.reasons[ctlPids] != "", g.reasons[ctlCPU] != ""
	}
	addRlimits(p, spec.Limits, memory, pids, cpu)
	if spec.NoNetwork {
		p.isolateNetwork()
	}
	return p
}

func chooseCgroup(spec *Spec, want []string, p *plan) *cgroupRun {
	var best *cgroupRun
	var errs []string
	name := runName()
	for _, o := range []struct {
		name  string
		setup func(Limits, string) (*cgroupRun, error)
	}{{MechCgroupV2, setupV2}, {MechCgroupV1, setupV1}} {
		if spec.mechanism != "" && spec.mechanism != o.name {
			continue // tests force one
		}
		g, err := o.setup(spec.Limits, name)
		if err != nil {
			errs = append(errs, o.name+": "+err.Error())
			continue
		}
		if g.covers(want) {
			if best != nil {
				best.remove()
			}
			return g
		}
		if best == nil || len(g.enforced) > len(best.enforced) {
			if best != nil {
				best.remove()
			}
			best = g
		} else {
			g.remove()
		}
	}
	if best == nil {
		p.note("cgroups: not usable: %s", strings.Join(errs, "; "))
	}
	return best
}

// sysPlan is the Linux part of a plan: what the fork itself must do.
type sysPlan struct {
	cgroupFD int  // >= 0: clone3 straight into this cgroup (v2)
	netns    bool // CLONE_NEWNET
	userns   bool // CLONE_NEWUSER too (not root)
}

func (p *plan) useCgroup(g *cgroupRun) {
	p.iso.Cgroup = g.main
	p.track = g
	for _, d := range g.dirs {
		if !slices.Contains(p.dirs, d) {
			p.dirs = append(p.dirs, d)
		}
	}
	p.stats = g.counters
	p.clean = g.remove
	p.iso.Enforced = append(p.iso.Enforced, g.enforced...)
	p.enforce("cgroup-kill")
	if g.version == 2 {
		p.iso.Mechanism = MechCgroupV2
		p.sys.cgroupFD = g.fd
		return
	}
	p.iso.Mechanism = MechCgroupV1
	p.helperConfig().Cgroups = g.joinFiles()
}

// isolateNetwork puts the command in a new network namespace: as root
// directly, otherwise inside a new user namespace that maps only our own
// ids. The helper brings up loopback in it (local servers keep working).
func (p *plan) isolateNetwork() {
	p.sys.netns = true
	p.sys.userns = os.Geteuid() != 0
	h := p.helperConfig()
	h.LoopbackUp = true
	h.ClearAmbient = p.sys.userns
	p.enforce("network")
}

func (p *plan) helperConfig() *isohelper.Config {
	if p.helper == nil {
		p.helper = &isohelper.Config{}
	}
	return p.helper
}

func (p *plan) applySys(a *syscall.SysProcAttr) {
	// If we die (SIGKILL included) the command dies too, even if it ignores
	// the SIGHUP of its terminal's hang-up. What it started is reaped by
	// the next flowdeck process (Reap).
	a.Pdeathsig = syscall.SIGKILL
	if p.sys.cgroupFD >= 0 {
		a.UseCgroupFD = true
		a.CgroupFD = p.sys.cgroupFD
	}
	if p.sys.netns {
		a.Cloneflags |= syscall.CLONE_NEWNET
	}
	if p.sys.userns {
		uid, gid := os.Getuid(), os.Getgid()
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		a.GidMappingsEnableSetgroups = false
		// Not root inside either: keep CAP_NET_ADMIN across the helper's exec
		// for "lo"; the helper drops it before it execs the command.
		a.AmbientCaps = []uintptr{unix.CAP_NET_ADMIN}
	}
}

// retrySys drops what made the fork fail, if it knows how, and says whether
// to try again.
func (p *plan) retrySys(err error) bool {
	if p.sys.cgroupFD >= 0 && (errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.E2BIG)) {
		// clone3 with CLONE_INTO_CGROUP needs Linux 5.7: join from the helper.
		p.helperConfig().Cgroups = []string{p.iso.Cgroup + "/cgroup.procs"}
		p.sys.cgroupFD = -1
		p.note("cgroup: placed by the helper (clone3 into a cgroup failed: %v)", unwrapStart(err))
		return true
	}
	if p.sys.netns && (errors.Is(err, unix.EPERM) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EUSERS)) {
		p.sys.netns, p.sys.userns = false, false
		p.helper.LoopbackUp, p.helper.ClearAmbient = false, false
		p.unenforce("network")
		p.note("network: not isolated: cannot create a network namespace: %v", unwrapStart(err))
		return true
	}
	return false
}

// waitNoReap blocks until pid exited but leaves it a zombie, so that its pid
// (the process group id) stays reserved while we kill the group.
func waitNoReap(pid int) error {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err
		}
	}
}

// selfExe is our own binary; /proc/self/exe works even after the file was
// replaced on disk (go install while the cockpit runs).
func selfExe() (string, error) { return "/proc/self/exe", nil }

// userTasks counts the tasks of our real uid, which RLIMIT_NPROC counts.
func userTasks() (int, bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	uid := strconv.Itoa(os.Getuid())
	n := 0
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		var mine bool
		threads := 1
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
				f := strings.Fields(rest)
				mine = len(f) > 0 && f[0] == uid
			} else if rest, ok := strings.CutPrefix(line, "Threads:"); ok {
				threads, _ = strconv.Atoi(strings.TrimSpace(rest))
			}
		}
		if mine {
			n += threads
		}
	}
	return n, true
}

// Probe reports what the isolator can do here, with reasons.
func Probe() Capabilities {
	c := Capabilities{OS: "linux"}
	h := hierarchies()
	switch v1 := len(h.v1Dir) > 0; {
	case h.v2Dir != "" && v1:
		c.Cgroup = "hybrid"
	case h.v2Dir != "":
		c.Cgroup = "v2"
	case v1:
		c.Cgroup = "v1"
	default:
		c.Cgroup = "none"
	}
	all := Limits{MemoryBytes: 1 << 40, Pids: 1 << 20, CPU: float64(runtime.NumCPU())}
	for _, v := range []struct {
		version string
		setup   func(Limits, string) (*cgroupRun, error)
	}{{"v2", setupV2}, {"v1", setupV1}} {
		g, err := v.setup(all, runName())
		for _, name := range []string{ctlMemory, ctlPids, ctlCPU} {
			ctl := Controller{Name: name, Version: v.version}
			switch {
			case err != nil:
				ctl.Reason = err.Error()
			case g.reasons[name] != "":
				ctl.Reason = g.reasons[name]
			default:
				ctl.Usable = true
				ctl.Dir = filepath.Dir(g.dirs[name])
			}
			c.Controllers = append(c.Controllers, ctl)
		}
		if g != nil {
			g.remove()
		}
	}
	p := prepare(&Spec{Limits: all})
	p.clean()
	c.Mechanism, c.Enforced, c.Notes = p.iso.Mechanism, p.iso.Enforced, p.iso.Notes

	// The real thing: a helper in a new network namespace that brings up lo.
	np := &plan{sys: sysPlan{cgroupFD: -1}}
	np.isolateNetwork()
	np.helper.Noop = true
	c.Network.Method = "netns"
	if np.sys.userns {
		c.Network.Method = "userns+netns"
	}
	if err := probeHelper(np); err != nil {
		c.Network.Reason = err.Error()
	} else {
		c.Network.Available = true
	}
	return c
}

func probeHelper(p *plan) error {
	self, _ := selfExe()
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(self, p.helper.Args([]string{"true"})...)
	cmd.Env = append(os.Environ(), isohelper.EnvMarker+"=1")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	p.applySys(cmd.SysProcAttr)
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("cannot create the namespace: %v", unwrapStart(err))
	}
	msg, _ := io.ReadAll(r)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("helper failed: %v %s", err, msg)
	}
	return nil
}
