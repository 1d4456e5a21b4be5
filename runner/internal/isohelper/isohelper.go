//go:build unix

// Package isohelper is the isolation helper: flowdeck re-executes its own
// binary in this mode so that the child can join cgroups, set rlimits and
// bring up loopback in a fresh network namespace before it execs the real
// command (cgroup v1 cannot place a child at fork).
//
// It imports only runtime, syscall and unsafe, on purpose. Go initializes a
// package once its imports are, preferring lower import paths; this one is
// ready right after syscall, so on Linux its init takes over a helper process
// before the init of heavier packages (terminal width tables and the like)
// runs, and a helper costs little more than the Go runtime's start-up. That
// is also why it parses its arguments by hand and writes with raw syscalls.
package isohelper

import (
	"runtime"
	"syscall"
)

// Arg is argv[1] of a helper process; options follow, then "--" and the
// command's argv as separate arguments (the kernel caps each argument at
// 128 KiB; a build's argv can be longer than that in total).
const Arg = "__flowdeck_isolation_helper__"

// EnvMarker is set in a helper's environment (and removed before the exec),
// so that other processes skip the helper check at init without a syscall.
const EnvMarker = "FLOWDECK_ISOLATION_HELPER"

// StatusFD is the helper's end of the status pipe. It is close-on-exec, so
// the parent reads EOF when the exec succeeded and "CODE message" otherwise.
const StatusFD = 3

// Config tells the helper what to do before it execs Path.
type Config struct {
	Cgroups      []string // cgroup.procs or (v1) tasks files to write "0" into
	Rlimits      []Rlimit
	LoopbackUp   bool // bring "lo" up (we are in a new network namespace)
	ClearAmbient bool // drop the ambient capabilities used for LoopbackUp
	Noop         bool // exit 0 after the setup (capability probe)
	Path         string
}

// Rlimit is one setrlimit call (soft = hard = Limit).
type Rlimit struct {
	Resource int
	Limit    uint64
}

// Args is the helper's argv (without argv[0]) for running argv.
func (c *Config) Args(argv []string) []string {
	a := []string{Arg}
	for _, p := range c.Cgroups {
		a = append(a, "-cgroup="+p)
	}
	for _, r := range c.Rlimits {
		a = append(a, "-rlimit="+utoa(uint64(r.Resource))+":"+utoa(r.Limit))
	}
	if c.LoopbackUp {
		a = append(a, "-lo")
	}
	if c.ClearAmbient {
		a = append(a, "-clear-ambient")
	}
	if c.Noop {
		a = append(a, "-noop")
	}
	a = append(a, "-path="+c.Path, "--")
	return append(a, argv...)
}

func parse(args []string) (*Config, []string, bool) {
	c := &Config{}
	for i, a := range args {
		switch {
		case a == "--":
			return c, args[i+1:], true
		case a == "-lo":
			c.LoopbackUp = true
		case a == "-clear-ambient":
			c.ClearAmbient = true
		case a == "-noop":
			c.Noop = true
		case hasPrefix(a, "-cgroup="):
			c.Cgroups = append(c.Cgroups, a[len("-cgroup="):])
		case hasPrefix(a, "-path="):
			c.Path = a[len("-path="):]
		case hasPrefix(a, "-rlimit="):
			v := a[len("-rlimit="):]
			for j := 0; j < len(v); j++ {
				if v[j] == ':' {
					res, ok1 := atou(v[:j])
					lim, ok2 := atou(v[j+1:])
					if !ok1 || !ok2 {
						return nil, nil, false
					}
					c.Rlimits = append(c.Rlimits, Rlimit{Resource: int(res), Limit: lim})
					break
				}
			}
		default:
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// Main runs the helper when args (a whole argv) ask for it and never
// returns in that case; otherwise it returns at once.
func Main(args []string) {
	if len(args) < 2 || args[1] != Arg {
		return
	}
	cfg, argv, ok := parse(args[2:])
	if !ok {
		fail(126, "isolation helper: bad arguments")
	}
	// Cgroups may name per-thread files (v1 "tasks"): the thread that joins
	// must be the one that execs, so stay on it.
	runtime.LockOSThread()
	for _, p := range cfg.Cgroups {
		// "0" is the writer itself, also inside a pid namespace.
		if err := writeFile(p, "0"); err != nil {
			fail(126, "isolation helper: join cgroup: "+p+": "+err.Error())
		}
	}
	if cfg.LoopbackUp {
		if err := loopbackUp(); err != nil {
			fail(126, "isolation helper: bring up loopback: "+err.Error())
		}
	}
	if cfg.ClearAmbient {
		if err := clearAmbient(); err != nil {
			fail(126, "isolation helper: drop ambient capabilities: "+err.Error())
		}
	}
	if cfg.Noop {
		syscall.Exit(0)
	}
	if len(argv) == 0 {
		fail(126, "isolation helper: no command")
	}
	var env []string
	for _, kv := range syscall.Environ() {
		if !hasPrefix(kv, EnvMarker+"=") {
			env = append(env, kv)
		}
	}
	syscall.CloseOnExec(StatusFD)
	// Sets the rlimits as the very last step (an address-space limit below
	// what the Go runtime has reserved makes any later allocation fatal),
	// then execs; returns only the exec error.
	err := limitAndExec(cfg.Rlimits, cfg.Path, argv, env)
	code := 126
	if err == syscall.ENOENT {
		code = 127
	}
	fail(code, argv[0]+": "+err.Error())
}

func writeFile(path, val string) error {
	fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	_, err = syscall.Write(fd, []byte(val))
	if cerr := syscall.Close(fd); err == nil {
		err = cerr
	}
	return err
}

func fail(code int, msg string) {
	syscall.Write(StatusFD, []byte(utoa(uint64(code))+" "+msg))
	syscall.Exit(code)
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

func utoa(u uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			return string(b[i:])
		}
	}
}

func atou(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	var u uint64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		u = u*10 + uint64(s[i]-'0')
	}
	return u, true
}
