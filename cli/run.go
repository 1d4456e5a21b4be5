package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/patterns"
	"github.com/flowdeck/flowdeck/project"
	"github.com/flowdeck/flowdeck/termtext"
)

// runFlags are the flags of flowdeck run.
type runFlags struct {
	feature, scope, memory string
	here                   bool
	timeout                time.Duration
	pids                   int
	cpu                    float64
	quiet, noNetwork       bool
	interactive            bool
	isolation              string
}

func (e *env) runCmd() *cobra.Command {
	var rf runFlags
	c := &cobra.Command{
		Use:   "run [flags] -- CMD [ARG...]",
		Short: "Run a command in a pty, isolated, classified, stored and indexed for recall",
		Long: `Run CMD (no shell unless you write sh -c) in a pseudo-terminal, in its own
process group, under the isolator (cgroups where usable, else rlimits), with
a timeout. Output streams live when stdout is a terminal; afterwards one line
says how it went:

  ✓ go test (142 passed, 0 failed, 12 packages, 3.2s)
  ✗ go test (2 failed: TestA, TestB)      followed by the filtered failure output
  ● find (2.3 MiB indexed, recall with: flowdeck recall QUERY)

Nobody types into a run unless --interactive: stdin is at end-of-file,
pagers print (PAGER=cat, GIT_PAGER=cat, ...) and a command that still waits
for terminal input with no output for run.stall (10m) is ended as
stalled_waiting_for_input.

The exit status is the command's own (128+signal when killed, 127 when it
was not found). With --feature the result is recorded as observed
validation evidence on that feature: passed for a clean exit, failed for a
failure, partial when a timeout or the user cut it short.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("run needs a command: flowdeck run [flags] -- CMD [ARG...]")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.runRun(cmd, args, &rf)
		},
	}
	rf.register(c)
	return c
}

func (rf *runFlags) register(c *cobra.Command) {
	f := c.Flags()
	f.SetInterspersed(false)
	f.StringVar(&rf.feature, "feature", "", "record the result as observed evidence on this (active) feature; runs in the feature's worktree when it has one")
	f.BoolVar(&rf.here, "here", false, "with --feature: run in the current directory, not in the feature's worktree")
	f.StringVar(&rf.scope, "scope", "targeted", "evidence scope: targeted or broad")
	f.DurationVar(&rf.timeout, "timeout", 0, "kill the whole run after this long (e.g. 10m)")
	f.StringVar(&rf.memory, "memory", "", "memory limit, e.g. 512M or 2G")
	f.IntVar(&rf.pids, "pids", 0, "limit on processes and threads")
	f.Float64Var(&rf.cpu, "cpu", 0, "CPU limit in cores, e.g. 0.5")
	f.BoolVar(&rf.noNetwork, "no-network", false, "run without network (Linux network namespace)")
	f.StringVar(&rf.isolation, "isolation", "auto", "auto (cgroups where usable) or none (rlimits, timeout and group kill only)")
	f.BoolVar(&rf.quiet, "quiet", false, "do not stream the output; print only the result")
	f.BoolVar(&rf.interactive, "interactive", false, "forward stdin to the command and keep pagers (a person is at the keyboard); never ended as stalled")
}

// runRun is flowdeck run's body: the request from the project's defaults
// and the flags, the run, and its one-line result.
func (e *env) runRun(cmd *cobra.Command, args []string, rf *runFlags) error {
	p, err := e.project()
	if err != nil {
		return err
	}
	req := p.RunDefaults()
	flags := cmd.Flags()
	if flags.Changed("timeout") {
		req.Timeout = rf.timeout
	}
	if flags.Changed("memory") {
		req.Memory = rf.memory
	}
	if flags.Changed("pids") {
		req.Pids = rf.pids
	}
	if flags.Changed("cpu") {
		req.CPU = rf.cpu
	}
	if rf.isolation != "auto" && rf.isolation != "none" {
		return usageErr("--isolation must be auto or none, not %q", rf.isolation)
	}
	req.Argv, req.Feature, req.Scope = args, rf.feature, model.Scope(rf.scope)
	req.NoNetwork, req.NoIsolation = rf.noNetwork, rf.isolation == "none"
	req.Attended, req.Here = rf.interactive, rf.here
	// Output streams through in bounded buffers; a soft memory limit
	// keeps the garbage collector from letting the heap double.
	debug.SetMemoryLimit(48 << 20)
	rio, live, tty := e.runIO(rf)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	rio.Interrupt = sigs

	res, err := p.Run(context.Background(), req, rio)
	if live != nil {
		live.Flush()
	}
	if ops.IsArgError(err) {
		return usageErr("%v", err)
	} else if err != nil {
		return e.fail(err)
	}
	run, ran := res.(*ops.RunResult)
	if !ran {
		return e.show(res, nil) // refused before it started
	}
	e.printRun(run, tty, rf.quiet)
	if run.Run.ExitCode != 0 {
		return silent(run.Run.ExitCode)
	}
	if run.EvidenceError != nil {
		return silent(ExitRejected)
	}
	return nil
}

// runIO is where a run's output goes and its input comes from; live is
// the writer streaming it to the terminal (nil when it does not stream),
// tty whether stdout is a terminal.
func (e *env) runIO(rf *runFlags) (rio project.RunIO, live *termtext.Writer, tty bool) {
	// The command runs where flowdeck was called, not at the root
	// (or, for a feature with a worktree, in that worktree).
	rio = project.RunIO{Dir: "."}
	tty = isTerminal(e.rawOut)
	if f, ok := e.rawOut.(*os.File); ok && tty {
		if w, h, err := term.GetSize(int(f.Fd())); err == nil {
			rio.Cols, rio.Rows = uint16(w), uint16(h)
		}
		if !rf.quiet && !e.json {
			// The command's output is foreign: its colours and
			// progress redraws pass, nothing else.
			live = termtext.NewWriter(f, termtext.Options{KeepSGR: colorOn(f), KeepCR: true})
			rio.Live = live
		}
	}
	if rf.interactive {
		// The command reads what the person types (or the pipe's
		// data). Without --interactive it reads end-of-file, so an
		// agent's call never waits on a prompt or a pager.
		rio.Stdin = e.stdin
	}
	return rio, live, tty
}

func (e *env) printRun(res *ops.RunResult, tty, quiet bool) {
	if e.json {
		e.writeJSON(res)
		return
	}
	if tty && !quiet {
		fmt.Fprint(e.stdout, "\r\n")
	}
	fmt.Fprintln(e.stdout, res.Headline)
	detail := res.Class.Detail
	streamed := tty && !quiet
	if c := res.Class.Class; detail != "" && !streamed && (c == patterns.Failure || c == patterns.Passthrough || c == patterns.NoTests) {
		fmt.Fprintln(e.stdout, strings.TrimRight(detail, "\n"))
	}
	if res.Evidence != nil {
		fmt.Fprintf(e.stdout, "recorded %s %s evidence (observed) on %s\n", res.Evidence.Scope, res.Evidence.Status, res.Evidence.Feature)
	}
	if res.EvidenceError != nil {
		printRefusal(e.stderr, res.EvidenceError)
	}
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
