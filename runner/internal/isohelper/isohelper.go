//go:build unix

// Package isohelper is the isolation helper: flowdeck re-executes its own
// binary in this mode so that the child can join cgroups, set rlimits and
// bring up loopback in a fresh network namespace before it execs the real
// command (cgroup v1 cannot place a child at fork).
//
// It imports only the standard library on purpose: Go initializes packages in
// import-path order once their imports are ready, so this init runs before the
// init of heavy third-party packages (terminal width tables and the like) and
// the helper costs only the Go runtime start-up.
package isohelper

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"syscall"
)

// Arg is os.Args[1] of a helper process; os.Args[2] is the JSON Config and
// os.Args[3:] the command's argv (separate arguments: the kernel caps each
// one at 128 KiB, and a build's argv can be longer than that in total).
const Arg = "__flowdeck_isolation_helper__"

// StatusFD is the helper's end of the status pipe. It is close-on-exec, so
// the parent reads EOF when the exec succeeded and "CODE message" otherwise.
const StatusFD = 3

// Config tells the helper what to do before it execs Path.
type Config struct {
	Cgroups      []string `json:"cgroups,omitempty"` // cgroup.procs or (v1) tasks files to write "0" into
	Rlimits      []Rlimit `json:"rlimits,omitempty"`
	LoopbackUp   bool     `json:"lo,omitempty"`            // bring "lo" up (we are in a new net namespace)
	ClearAmbient bool     `json:"clear_ambient,omitempty"` // drop the ambient caps used for LoopbackUp
	Noop         bool     `json:"noop,omitempty"`          // exit 0 after the setup (capability probe)
	Path         string   `json:"path"`
}

// Rlimit is one setrlimit call (soft = hard = Limit).
type Rlimit struct {
	Resource int    `json:"resource"`
	Limit    uint64 `json:"limit"`
}

func init() { Main() }

// Main runs the helper when os.Args asks for it and never returns in that
// case; otherwise it returns at once.
func Main() {
	if len(os.Args) < 3 || os.Args[1] != Arg {
		return
	}
	var cfg Config
	if err := json.Unmarshal([]byte(os.Args[2]), &cfg); err != nil {
		fail(126, "isolation helper: bad config: "+err.Error())
	}
	run(&cfg, os.Args[3:])
}

func run(cfg *Config, argv []string) {
	// Cgroups may name per-thread files (v1 "tasks"): what joins must be the
	// thread that execs, so stay on it.
	runtime.LockOSThread()
	// Once rlimits are down the runtime must not grow the heap: no GC cycles.
	debug.SetGCPercent(-1)
	for _, p := range cfg.Cgroups {
		// "0" is the writer itself, also inside a pid namespace.
		if err := writeFile(p, "0"); err != nil {
			fail(126, fmt.Sprintf("isolation helper: join cgroup: %v", err))
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
		os.Exit(0)
	}
	if len(argv) == 0 {
		fail(126, "isolation helper: no command")
	}
	syscall.CloseOnExec(StatusFD)
	// Sets the rlimits as the very last step (an address-space limit below
	// what the Go runtime has reserved makes any later allocation fatal),
	// then execs; returns only the exec error.
	err := limitAndExec(cfg.Rlimits, cfg.Path, argv, os.Environ())
	code := 126
	if errors.Is(err, syscall.ENOENT) {
		code = 127
	}
	fail(code, fmt.Sprintf("%s: %v", argv[0], err))
}

func writeFile(path, val string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(val)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func fail(code int, msg string) {
	f := os.NewFile(StatusFD, "status")
	if f != nil {
		fmt.Fprintf(f, "%d %s", code, msg)
	}
	os.Exit(code)
}
