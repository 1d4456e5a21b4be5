package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/flowdeck/flowdeck/demo"
	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/internal/contain"
	"github.com/flowdeck/flowdeck/internal/gitwork"
)

// demoCrew is `flowdeck demo --agents N`: the crew plan from scratch, run by
// the crew scheduler with N scripted workers and a scripted reviewer whose
// approvals count (trust_reviewer); the final review is the person's.
func (e *env) demoCrew(agents int, work time.Duration, keep, noUI bool) error {
	if agents < 1 || agents > demo.CrewParallel {
		return usageErr("--agents %d: the crew demo plan allows 1 to %d agents", agents, demo.CrewParallel)
	}
	p, done, err := e.openDemo(keep)
	if err != nil {
		return err
	}
	defer done()
	dir := p.Root()
	if !gitwork.Available() {
		fmt.Fprintln(e.stderr, "flowdeck demo: git is not installed: the agents work without commits (and without worktrees)")
	}
	if err := demo.WriteCrewProject(dir); err != nil {
		return internalErr(err)
	}
	if err := p.Create(); err != nil {
		return e.fail(err)
	}
	act := p.ActionPath()
	if err := demo.SeedCrew(act); err != nil {
		return internalErr(err)
	}
	self, err := os.Executable()
	if err != nil {
		return internalErr(err)
	}
	eng, err := e.engine(p, true)
	if err != nil {
		return err
	}
	eng.Agents = demo.CrewAgents(self, work)
	if !noUI {
		log, err := openDemoCrewLog(dir)
		if err != nil {
			return err
		}
		defer log.Close()
		eng.Log, eng.Live = log, log
	}
	f, source, err := flows.Load(dir, "run")
	if err != nil {
		return internalErr(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	crew := &flows.Crew{Engine: eng, Flow: f, Source: source, Parallel: agents, Vars: map[string]any{"trust_reviewer": true},
		Do: act}
	if noUI {
		fmt.Fprintf(e.stdout, "demo project: %s; %d agents; the final review waits for you: flowdeck --dir %s decisions\n", dir, agents, dir)
		rep, err := crew.Run(ctx)
		if rep != nil {
			fmt.Fprintf(e.stdout, "crew of %d: %s (session %s)\n", rep.Slots, rep.Reason, rep.Session)
		}
		if err != nil && ctx.Err() == nil {
			return internalErr(err)
		}
		return nil
	}
	crewCtx, cancel := context.WithCancel(ctx)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		crew.Run(crewCtx)
	}()
	defer func() { cancel(); <-finished }()
	return e.openCockpit(false)
}

// openDemoCrewLog creates the crew's log, .flow/demo-crew.log, where the
// engine writes while the cockpit holds the terminal.
func openDemoCrewLog(dir string) (*os.File, error) {
	r, err := contain.Open(dir)
	if err != nil {
		return nil, internalErr(err)
	}
	log, err := r.Create(filepath.Join(".flow", "demo-crew.log")) // beneath dir, never through a link out
	r.Close()
	if err != nil {
		return nil, internalErr(contain.Fault(dir, err))
	}
	return log, nil
}

// demoCrewAgentCommand is the scripted crew agent, as the agents' command.
func (e *env) demoCrewAgentCommand() *cobra.Command {
	return &cobra.Command{
		Use:    "crew-agent worker|reviewer",
		Short:  "A scripted agent of flowdeck demo --agents (reads a prompt, answers JSON)",
		Hidden: true,
		Args:   exactArgs(1, "a role"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := demo.CrewAgent(args[0], os.Stdin, e.stdout); code != 0 {
				return silent(code)
			}
			return nil
		},
	}
}
