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

	"github.com/flowdeck/flowdeck/demo"
	"github.com/flowdeck/flowdeck/internal/contain"
	"github.com/flowdeck/flowdeck/project"
)

func (e *env) demoCommand() *cobra.Command {
	var keep, noUI, noAgent bool
	var agentTick, work time.Duration
	var agents int
	c := &cobra.Command{
		Use:   "demo [--keep] [--no-agent] [--no-ui] [--agent-tick DURATION]",
		Short: "Open the cockpit on a throwaway project where a scripted agent is at work",
		Long: `Create a throwaway project with a realistic session (12 features: some
completed with evidence, one awaiting your review, one blocked), start a
scripted agent — a child process that drives the real flowdeck CLI and runs
real commands through 'flowdeck run' — and open the cockpit on it.

Approve the review with 'a', reset the blocked feature with 'r', and watch
the agent pick up the next feature. The project is deleted on exit unless
--keep is given. With the global --dir DIR the demo project is made in DIR
(created if needed; refused when DIR already holds a flowdeck project) and
kept.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if agents > 0 {
				return e.demoCrew(agents, work, keep, noUI)
			}
			p, done, err := e.openDemo(keep)
			if err != nil {
				return err
			}
			defer done()
			dir := p.Root()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := p.SeedDemo(ctx); err != nil {
				return internalErr(err)
			}
			if !noAgent {
				agent, err := e.startAgent(dir, noUI, agentTick)
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
			return e.openCockpit(false)
		},
	}
	c.Flags().BoolVar(&keep, "keep", false, "keep the demo project for inspection")
	c.Flags().BoolVar(&noUI, "no-ui", false, "no cockpit: seed the project and let the agent work")
	c.Flags().BoolVar(&noAgent, "no-agent", false, "do not start the scripted agent")
	c.Flags().DurationVar(&agentTick, "agent-tick", 700*time.Millisecond, "the agent's pause between steps (tests make it faster)")
	c.Flags().IntVar(&agents, "agents", 0, "run the 12-feature crew plan from scratch with N scripted worker agents at once (1-3) and a scripted reviewer")
	c.Flags().DurationVar(&work, "work", time.Second, "with --agents: how long each scripted worker works on a feature")
	c.AddCommand(e.demoAgentCommand(), e.demoCrewAgentCommand())
	return c
}

// openDemo is demoProject with what happens to it afterwards: done removes
// a temporary project unless keep, and says where a kept one is.
func (e *env) openDemo(keep bool) (p *project.Project, done func(), err error) {
	p, temp, err := e.demoProject()
	if err != nil {
		return nil, nil, err
	}
	dir := p.Root()
	if keep || !temp {
		return p, func() { fmt.Fprintf(e.stderr, "demo project kept: %s\n", dir) }, nil
	}
	return p, func() { os.RemoveAll(dir) }, nil
}

// demoProject opens the demo project as this command's project (and the
// cockpit's): in a new temporary directory, or in --dir, which must not
// hold a flowdeck project yet (the demo seeds its own session and would mix
// it into someone's work).
func (e *env) demoProject() (p *project.Project, temp bool, err error) {
	if e.dir == "" {
		if e.dir, err = os.MkdirTemp("", "flowdeck-demo-"); err != nil {
			return nil, false, internalErr(err)
		}
		temp = true
	} else if err := os.MkdirAll(e.dir, 0o755); err != nil {
		return nil, false, usageErr("--dir %s: %v", e.dir, err)
	}
	if p, err = e.project(); err != nil {
		if temp {
			os.RemoveAll(e.dir)
		}
		return nil, false, err
	}
	if temp {
		return p, true, nil
	}
	sessions, runs, err := p.Contents() // none without a database
	if err != nil {
		return nil, false, internalErr(err)
	}
	if sessions > 0 || runs {
		what := fmt.Sprintf("%d session(s)", sessions)
		if runs {
			what += " and stored runs"
		}
		return nil, false, usageErr("%s already holds a flowdeck project (%s): the demo seeds a session of its own; "+
			"give --dir a new or empty directory, or leave --dir out for a throwaway project", p.Root(), what)
	}
	return p, false, nil
}

// startAgent starts the scripted agent as a child process of the real
// binary; its log goes to .flow/demo-agent.log (or stdout without the UI).
func (e *env) startAgent(dir string, toStdout bool, tick time.Duration) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "--dir", dir, "demo", "agent", "--tick", tick.String())
	if toStdout {
		cmd.Stdout, cmd.Stderr = e.stdout, e.stderr
	} else {
		r, err := contain.Open(dir)
		if err != nil {
			return nil, err
		}
		log, err := r.Create(filepath.Join(".flow", "demo-agent.log")) // beneath dir, never through a link out
		r.Close()
		if err != nil {
			return nil, contain.Fault(dir, err)
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
