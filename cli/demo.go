package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"flowdeck/db"
	"flowdeck/demo"
)

func (e *env) demoCommand() *cobra.Command {
	var keep, noUI, noAgent bool
	c := &cobra.Command{
		Use:   "demo [--keep] [--no-agent] [--no-ui]",
		Short: "Open the cockpit on a throwaway project where a scripted agent is at work",
		Long: `Create a throwaway project with a realistic session (12 features: some
completed with evidence, one awaiting your review, one blocked), start a
scripted agent — a child process that drives the real flowdeck CLI and runs
real commands through 'flowdeck run' — and open the cockpit on it.

Approve the review with 'a', reset the blocked feature with 'r', and watch
the agent pick up the next feature. The project is deleted on exit unless
--keep is given.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := os.MkdirTemp("", "flowdeck-demo-")
			if err != nil {
				return internalErr(err)
			}
			if keep {
				defer fmt.Fprintf(e.stderr, "demo project kept: %s\n", dir)
			} else {
				defer os.RemoveAll(dir)
			}
			st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{})
			if err != nil {
				return internalErr(err)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := demo.WriteProject(dir); err != nil {
				return internalErr(err)
			}
			if err := demo.Seed(ctx, st, dir, e.patternSet(st)); err != nil {
				return internalErr(err)
			}
			if !noAgent {
				agent, err := e.startAgent(dir, noUI)
				if err != nil {
					return internalErr(err)
				}
				defer func() {
					agent.Process.Signal(syscall.SIGTERM)
					agent.Wait()
				}()
			}
			if noUI {
				fmt.Fprintf(e.stdout, "demo project: %s (the agent logs below; Ctrl-C stops)\n", dir)
				<-ctx.Done()
				return nil
			}
			return e.openCockpit(st, false)
		},
	}
	c.Flags().BoolVar(&keep, "keep", false, "keep the demo project for inspection")
	c.Flags().BoolVar(&noUI, "no-ui", false, "no cockpit: seed the project and let the agent work")
	c.Flags().BoolVar(&noAgent, "no-agent", false, "do not start the scripted agent")
	c.AddCommand(e.demoAgentCommand())
	return c
}

// startAgent starts the scripted agent as a child process of the real
// binary; its log goes to .flow/demo-agent.log (or stdout without the UI).
func (e *env) startAgent(dir string, toStdout bool) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "demo", "agent", "--dir", dir)
	if toStdout {
		cmd.Stdout, cmd.Stderr = e.stdout, e.stderr
	} else {
		log, err := os.Create(filepath.Join(dir, ".flow", "demo-agent.log"))
		if err != nil {
			return nil, err
		}
		cmd.Stdout, cmd.Stderr = log, log
	}
	return cmd, cmd.Start()
}

func (e *env) demoAgentCommand() *cobra.Command {
	var tick, delay time.Duration
	var lines int
	c := &cobra.Command{
		Use:    "agent --dir DIR",
		Short:  "The demo's scripted agent (started by flowdeck demo)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if e.dir == "" {
				return usageErr("demo agent needs --dir")
			}
			self, err := os.Executable()
			if err != nil {
				return internalErr(err)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			a := &demo.Agent{Bin: self, Dir: e.dir, Log: e.stdout, Tick: tick, Lines: lines, Delay: delay}
			if err := a.Run(ctx); err != nil {
				return internalErr(err)
			}
			return nil
		},
	}
	c.Flags().DurationVar(&tick, "tick", 700*time.Millisecond, "pause between the agent's steps")
	c.Flags().DurationVar(&delay, "delay", 80*time.Millisecond, "pause between lines of test output")
	c.Flags().IntVar(&lines, "lines", 40, "test cases per verification run")
	return c
}
