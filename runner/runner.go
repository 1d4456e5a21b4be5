// Package runner runs one command in a pseudo-terminal under the isolator
// (cgroup limits, network namespace, rlimits, timeout, process-group kill)
// and streams the bytes it writes, exactly as written. Storage and
// classification are the caller's business: they plug in through Spec.Output.
//
// The command leads its own session and process group. A run ends when the
// command exits; whatever it left running is then killed (process group,
// and every process of the run's cgroup when there is one), so nothing
// outlives a run. Output is drained to the end (the pty's EIO) before Run
// returns.
//
// Isolation, best first: a cgroup v2 child cgroup placed at fork; cgroup v1
// memory/pids/cpu hierarchies joined by a helper before exec; rlimits for
// what no cgroup covers. Result.Isolation says what applied and why not.
// Probe tells `flowdeck doctor` what this machine offers.
//
// Binaries that call Run must call Reexec first thing in main (and in TestMain
// of test binaries that run commands): Run re-executes its own binary as the
// isolation helper when the child must join cgroups or set rlimits before exec.
package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

// Limits are resource limits for the whole run (the command and every
// process it starts). Zero means unlimited.
type Limits struct {
	MemoryBytes int64   // memory (RAM, no swap)
	Pids        int     // processes and threads alive at once
	CPU         float64 // cores, e.g. 0.2 for a fifth of one core
}

// Spec describes one run.
type Spec struct {
	Argv []string // command and arguments; no shell is involved
	Dir  string   // working directory; "" = the caller's
	Env  []string // the full environment; nil = the caller's (the caller adds FLOWDECK_RUN_ID)

	Cols, Rows uint16 // terminal size; 0 → 120x40

	Timeout   time.Duration // 0 = none; on expiry the whole run is killed
	Limits    Limits
	NoNetwork bool // own network namespace with only loopback (Linux, where permitted)

	// ForceFallback skips cgroups and uses only rlimits, the timeout and the
	// process-group kill (flowdeck run --isolation=none, and tests).
	ForceFallback bool

	// Output receives the bytes exactly as the command wrote them: the pty's
	// output processing is off, so no \n→\r\n. nil discards them.
	Output io.Writer

	// Stdin, if set, is typed into the terminal, which is then the command's
	// stdin: an interactive run. Typed input is not echoed into Output, line
	// editing and ^C apply as on a terminal, and at EOF the command reads
	// end-of-file. Lines longer than 4095 bytes are cut by the kernel's line
	// discipline; feed bulk data through a file instead. Run does not wait
	// for a Read of Stdin still blocked when the command ends; closing the
	// reader ends it.
	//
	// nil = nobody types: stdin is /dev/null, and (Linux) a process blocked
	// reading the terminal itself (/dev/tty, as ssh and sudo prompts do) in
	// line mode is given end-of-file, so no run waits for a key.
	Stdin io.Reader

	// Stall, when > 0, ends a run that printed nothing for this long while a
	// process of it waits for input from the terminal (Outcome "stalled_waiting_for_input").
	// Linux only: elsewhere nothing says that a process waits for input.
	Stall time.Duration

	// Started, if set, is called once the command runs, with what a later
	// process needs to kill whatever of the run survived a crash of ours.
	Started func(Remains)

	// Interrupt: the first signal received is forwarded to the command's
	// process group; the second kills the whole run with SIGKILL.
	Interrupt <-chan os.Signal

	mechanism string // tests only: force "cgroup-v2" or "cgroup-v1"
}

// Outcome says how a run ended.
type Outcome string

const (
	Exited      Outcome = "exited"                    // the command ended on its own (any exit code)
	TimedOut    Outcome = "timeout"                   // killed because Spec.Timeout expired
	OOM         Outcome = "oom"                       // failed after the memory limit killed a process
	PidsLimit   Outcome = "pids"                      // failed after the pids limit refused a fork
	Cancelled   Outcome = "cancelled"                 // ctx cancelled or interrupted by the user
	Stalled     Outcome = "stalled_waiting_for_input" // killed: waited for input and printed nothing for Spec.Stall
	StartFailed Outcome = "start_failed"              // never ran (not found, not executable, bad dir)
)

// NonInteractiveEnv is added to the environment of every run nobody types
// into: pagers print instead of waiting for a key, and tools that would
// prompt fail or take their default instead. CI itself is not set: it
// changes what test suites do, not only whether they ask.
var NonInteractiveEnv = []string{
	"PAGER=cat", "GIT_PAGER=cat", "MANPAGER=cat", "SYSTEMD_PAGER=", "PSQL_PAGER=cat",
	"GH_PAGER=cat", "AWS_PAGER=", "BAT_PAGER=cat", "LESS=FRX",
	"GIT_TERMINAL_PROMPT=0", "GCM_INTERACTIVE=never", "GH_PROMPT_DISABLED=1",
	"DEBIAN_FRONTEND=noninteractive", "PIP_NO_INPUT=1", "NONINTERACTIVE=1",
}

// Mechanism names used in Isolation.Mechanism.
const (
	MechCgroupV2 = "cgroup-v2"
	MechCgroupV1 = "cgroup-v1"
	MechRlimit   = "rlimit"
	MechNone     = "none"
)

// Controllers the isolator uses (names as in Isolation.Enforced).
const (
	ctlMemory = "memory"
	ctlPids   = "pids"
	ctlCPU    = "cpu"
)

// wanted lists the controllers the limits need.
func wanted(l Limits) []string {
	var w []string
	if l.MemoryBytes > 0 {
		w = append(w, ctlMemory)
	}
	if l.Pids > 0 {
		w = append(w, ctlPids)
	}
	if l.CPU > 0 {
		w = append(w, ctlCPU)
	}
	return w
}

// Isolation records what isolation applied to a run.
type Isolation struct {
	Mechanism string   // "cgroup-v2", "cgroup-v1", "rlimit" or "none"
	Enforced  []string // of "memory", "pids", "cpu", "network", "timeout", "pgroup-kill", "cgroup-kill"
	Notes     []string // what was asked for but not applied, and why; other caveats
	Cgroup    string   // the run's cgroup directory (one of them on v1), removed after the run
}

// Result describes a finished run.
type Result struct {
	// ExitCode is the command's own, 128+signal when killed, 127 when the
	// command was not found, 126 when it could not be started (not
	// executable, missing working directory, isolation setup failed).
	ExitCode  int
	Signal    string // e.g. "SIGKILL" when killed by a signal
	Outcome   Outcome
	Isolation Isolation
	Pid       int // the command's pid, also its process group and session id
	Start     time.Time
	Duration  time.Duration
	CPUTime   time.Duration // user+system time of the command and the children it waited for
	Bytes     int64         // bytes of output
	Err       string        // why the command could not be started; "" otherwise
}

// StartError is returned by Run when the command could not be started.
type StartError struct {
	ExitCode int // 126 or 127
	Msg      string
}

func (e *StartError) Error() string { return e.Msg }

// Run runs spec.Argv to completion and returns how it ended. Cancelling ctx
// kills the whole run (Outcome "cancelled"). The error is non-nil when the
// command could not be started (a *StartError; the Result is still filled
// in, Outcome "start_failed") or when writing to Output failed (the command
// still runs to its end; later output is discarded).
func Run(ctx context.Context, spec Spec) (Result, error) {
	if spec.Cols == 0 {
		spec.Cols = 120
	}
	if spec.Rows == 0 {
		spec.Rows = 40
	}
	if spec.Env == nil {
		spec.Env = os.Environ()
	}
	if spec.Output == nil {
		spec.Output = io.Discard
	}
	return run(ctx, &spec)
}

func startFailed(res Result, code int, format string, args ...any) (Result, error) {
	err := &StartError{ExitCode: code, Msg: fmt.Sprintf(format, args...)}
	res.ExitCode = code
	res.Outcome = StartFailed
	res.Err = err.Msg
	res.Duration = time.Since(res.Start)
	return res, err
}

// Remains is where a run's processes can be found by another process after
// ours died: the command's session (its pid, with its start time so that a
// reused pid is not taken for it) and the run's cgroup directories.
type Remains struct {
	Pid     int      `json:"pid"`
	Start   uint64   `json:"start,omitempty"` // clock ticks after boot (Linux /proc/PID/stat)
	Cgroups []string `json:"cgroups,omitempty"`
}
