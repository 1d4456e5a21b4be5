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

func (e *env) runCmd() *cobra.Command {
	var (
		feature, scope, memory string
		here                   bool
		timeout                time.Duration
		pids                   int
		cpu                    float64
		quiet, noNetwork       bool
		interactive            bool
		isolation              string
	)
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
			p, err := e.project()
			if err != nil {
				return err
			}
			req := p.RunDefaults()
			flags := cmd.Flags()
			if flags.Changed("timeout") {
				req.Timeout = timeout
			}
			if flags.Changed("memory") {
				req.Memory = memory
			}
			if flags.Changed("pids") {
				req.Pids = pids
			}
			if flags.Changed("cpu") {
				req.CPU = cpu
			}
			if isolation != "auto" && isolation != "none" {
				return usageErr("--isolation must be auto or none, not %q", isolation)
			}
			req.Argv, req.Feature, req.Scope = args, feature, model.Scope(scope)
			req.NoNetwork, req.NoIsolation = noNetwork, isolation == "none"
			req.Attended, req.Here = interactive, here
			// The command runs where flowdeck was called, not at the root
			// (or, for a feature with a worktree, in that worktree).
			rio := project.RunIO{Dir: "."}
			// Output streams through in bounded buffers; a soft memory limit
			// keeps the garbage collector from letting the heap double.
			debug.SetMemoryLimit(48 << 20)
			tty := isTerminal(e.rawOut)
			var live *termtext.Writer
			if f, ok := e.rawOut.(*os.File); ok && tty {
				if w, h, err := term.GetSize(int(f.Fd())); err == nil {
					rio.Cols, rio.Rows = uint16(w), uint16(h)
				}
				if !quiet && !e.json {
					// The command's output is foreign: its colours and
					// progress redraws pass, nothing else.
					live = termtext.NewWriter(f, termtext.Options{KeepSGR: colorOn(f), KeepCR: true})
					rio.Live = live
				}
			}
			if interactive {
				// The command reads what the person types (or the pipe's
				// data). Without --interactive it reads end-of-file, so an
				// agent's call never waits on a prompt or a pager.
				rio.Stdin = e.stdin
			}
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
			e.printRun(run, tty, quiet)
			if run.Run.ExitCode != 0 {
				return silent(run.Run.ExitCode)
			}
			if run.EvidenceError != nil {
				return silent(ExitRejected)
			}
			return nil
		},
	}
	f := c.Flags()
	f.SetInterspersed(false)
	f.StringVar(&feature, "feature", "", "record the result as observed evidence on this (active) feature; runs in the feature's worktree when it has one")
	f.BoolVar(&here, "here", false, "with --feature: run in the current directory, not in the feature's worktree")
	f.StringVar(&scope, "scope", "targeted", "evidence scope: targeted or broad")
	f.DurationVar(&timeout, "timeout", 0, "kill the whole run after this long (e.g. 10m)")
	f.StringVar(&memory, "memory", "", "memory limit, e.g. 512M or 2G")
	f.IntVar(&pids, "pids", 0, "limit on processes and threads")
	f.Float64Var(&cpu, "cpu", 0, "CPU limit in cores, e.g. 0.5")
	f.BoolVar(&noNetwork, "no-network", false, "run without network (Linux network namespace)")
	f.StringVar(&isolation, "isolation", "auto", "auto (cgroups where usable) or none (rlimits, timeout and group kill only)")
	f.BoolVar(&quiet, "quiet", false, "do not stream the output; print only the result")
	f.BoolVar(&interactive, "interactive", false, "forward stdin to the command and keep pagers (a person is at the keyboard); never ended as stalled")
	return c
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
