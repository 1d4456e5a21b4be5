package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	"golang.org/x/term"

	"github.com/flowdeck/flowdeck/db"
)

// Cockpit opens the Bubble Tea cockpit on a project. flowdeck-cockpit passes
// the real one; the lean flowdeck binary passes nil and starts
// flowdeck-cockpit instead (see ExecCockpit), so that agents' CLI calls do
// not pay the Charm libraries' package initialisation (tens of
// milliseconds of width tables and lexers) on every call.
type Cockpit func(st *db.Store, actor string) error

// CockpitBinary is the companion binary that holds the cockpit.
const CockpitBinary = "flowdeck-cockpit"

// cockpit is `flowdeck` without a subcommand: the cockpit on this project.
// It needs a terminal on both ends; piped, it says so instead of painting
// escape sequences into a file.
func (e *env) cockpit() error {
	in, inOK := e.stdin.(*os.File)
	out, outOK := e.rawOut.(*os.File)
	if !inOK || !outOK || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return usageErr("the cockpit needs a terminal; for scripts use the subcommands (flowdeck help)")
	}
	st, err := e.store()
	if err != nil {
		return err
	}
	if err := st.Check(); err != nil { // a bad file is refused here, not in the cockpit
		return e.fail(err)
	}
	return e.openCockpit(st, true)
}

func (e *env) openCockpit(st *db.Store, replace bool) error {
	var err error
	if e.cockpitFn != nil {
		err = e.cockpitFn(st, e.cockpitActor())
	} else {
		err = e.execCockpit(st, e.cockpitActor(), replace)
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

// execCockpit runs flowdeck-cockpit on the store's project with this
// process's terminal. With replace, this process becomes the cockpit
// (execve), so signals reach it directly; otherwise it is a child, the
// termination signals are passed on to it, and execCockpit waits for it.
func (e *env) execCockpit(st *db.Store, actor string, replace bool) error {
	bin, err := FindCockpit()
	if err != nil {
		return err
	}
	project := filepath.Dir(st.Dir()) // the directory that holds .flow
	args := []string{bin, "--dir", project}
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
func FindCockpit() (string, error) { return findCompanion(CockpitBinary) }

// findCompanion looks for one of flowdeck's binaries next to this
// executable, then in PATH. When neither has it, the error says how to get
// it: a lone flowdeck copied onto PATH has no cockpit or MCP server.
func findCompanion(name string) (string, error) {
	where := "next to flowdeck"
	if self, err := os.Executable(); err == nil {
		dir := filepath.Dir(self)
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
		where = "in " + dir
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	mod := modulePath()
	return "", fmt.Errorf("%s not found %s or in PATH: flowdeck is three binaries and this one came alone. "+
		"Install all three with: go install %s/...@latest "+
		"(or just %s: go install %s/cmd/%s@latest), "+
		"or put %s from the release archive next to flowdeck", name, where, mod, name, mod, name, name)
}

// installModule is the module path `go install` takes. A binary built from
// a checkout whose module path go install cannot fetch (no domain in it)
// points at it rather than at its own path.
const installModule = "github.com/flowdeck/flowdeck"

// modulePath is the module this binary was built from, when go install can
// fetch it, else installModule.
func modulePath() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if p := bi.Main.Path; strings.Contains(strings.Split(p, "/")[0], ".") {
			return p
		}
	}
	return installModule
}
