package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/flowdeck/flowdeck/internal/lean"
	"github.com/flowdeck/flowdeck/project"
)

// Cockpit opens the Bubble Tea cockpit on a project. flowdeck-cockpit passes
// the real one; flowdeck-cli passes nil and starts flowdeck-cockpit instead
// (see execCockpit), so that agents' CLI calls do not pay the Charm
// libraries' package initialisation (tens of milliseconds of width tables
// and lexers) on every call.
type Cockpit func(p *project.Project) error

// CockpitBinary is the companion binary that holds the cockpit.
const CockpitBinary = lean.CockpitBinary

// cockpit is `flowdeck` without a subcommand: the cockpit on this project.
// It needs a terminal on both ends; piped, it says so instead of painting
// escape sequences into a file.
func (e *env) cockpit() error {
	in, inOK := e.stdin.(*os.File)
	out, outOK := e.rawOut.(*os.File)
	if !inOK || !outOK || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return usageErr("the cockpit needs a terminal; for scripts use the subcommands (flowdeck help)")
	}
	return e.openCockpit(true)
}

// openCockpit opens the cockpit on the project (its database created first);
// with replace, this process becomes flowdeck-cockpit.
func (e *env) openCockpit(replace bool) error {
	// No warnings on the terminal the cockpit paints: it shows the
	// config's and the patterns' problems itself.
	p, err := e.openProject(e.cockpitActor(), nil)
	if err != nil {
		return err
	}
	if err := p.Create(); err != nil {
		return e.fail(err)
	}
	if e.cockpitFn != nil {
		err = e.cockpitFn(p)
	} else {
		err = e.execCockpit(p.Root(), e.cockpitActor(), replace)
	}
	if err != nil {
		var s silent
		if errors.As(err, &s) {
			return err
		}
		return internalErr(fmt.Errorf("cockpit: %w", err))
	}
	return nil
}

// cockpitActor is --actor, else $FLOWDECK_ACTOR, else "": the cockpit then
// takes the config file's actor, and "human" only after that.
func (e *env) cockpitActor() string {
	if e.actor != "" {
		return e.actor
	}
	return os.Getenv("FLOWDECK_ACTOR")
}

// execCockpit runs flowdeck-cockpit on the project at root with this
// process's terminal. With replace, this process becomes the cockpit
// (execve), so signals reach it directly; otherwise it is a child, the
// termination signals are passed on to it, and execCockpit waits for it.
func (e *env) execCockpit(root, actor string, replace bool) error {
	bin, err := FindCockpit()
	if err != nil {
		return err
	}
	args := []string{bin, "--dir", root}
	if actor != "" {
		args = append(args, "--actor", actor)
	}
	if replace {
		return syscall.Exec(bin, args, os.Environ())
	}
	cmd := exec.Command(bin, args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.rawOut, e.rawErr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() {
		for sig := range sigs {
			cmd.Process.Signal(sig)
		}
	}()
	if err := cmd.Wait(); err != nil {
		var x *exec.ExitError
		if errors.As(err, &x) {
			return silent(x.ExitCode())
		}
		return err
	}
	return nil
}

// FindCockpit looks for flowdeck-cockpit next to this executable, then in
// PATH.
func FindCockpit() (string, error) { return lean.FindCompanion(CockpitBinary) }
