package fleetview

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/fleet"
	"github.com/flowdeck/flowdeck/project"
	"github.com/flowdeck/flowdeck/termtext"
	"github.com/flowdeck/flowdeck/ui"
)

// Run opens the fleet on entries and shows it until the person quits. enter
// on a project ends the fleet's program, runs that project's cockpit on the
// terminal (a local one in this process, ui.Run; a remote one through its
// transport's interactive form, fleet.Interactive, as a child with the
// terminal), and starts the fleet's program again on the same fleet, whose
// connections lived on meanwhile.
func Run(entries []fleet.Entry, opts Options) error {
	if os.Getenv("NO_COLOR") != "" {
		opts.NoColor = true
	}
	var cfgErrs []error
	if opts.Config == nil {
		// The person's file, as a project's cockpit reads it (the
		// project's own .flow/config.toml is the project's business).
		path := os.Getenv("FLOWDECK_CONFIG")
		if path == "" {
			path = config.DefaultPath()
		}
		cfg, errs := config.Load(path)
		opts.Config, cfgErrs = &cfg, errs
	}
	fo := opts.Fleet
	if fo.Now == nil {
		fo.Now = opts.Now
	}
	// The fleet opens a moment after the first frame (Model.start), once;
	// a start that comes after Run ended opens nothing.
	var (
		mu     sync.Mutex
		f      *fleet.Fleet
		closed bool
	)
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		closed = true
		if f != nil {
			f.Close()
		}
	}()
	m := New(nil, entries, opts)
	m.start = func() Fleet {
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return nil
		}
		if f == nil {
			f = fleet.Open(entries, fo)
		}
		return f
	}
	if len(cfgErrs) > 0 {
		// The fleet runs on with the defaults for what was wrong.
		m.note = errNote(fmt.Sprintf("✗ config (defaults used): %v", cfgErrs[0]))
	}
	var popts []tea.ProgramOption
	if opts.NoColor {
		popts = append(popts, tea.WithColorProfile(colorprofile.Ascii))
	}
	restore := func() {}
	if term.IsTerminal(os.Stdout.Fd()) {
		restore = keepTitle(os.Stdout)
	}
	defer restore()
	// Answers in flight are bounded by the fleet's call timeout: they
	// finish before the fleet closes, so none is cut off half sent.
	defer m.calls.Wait()
	for {
		_, err := tea.NewProgram(m, popts...).Run()
		m.stop()
		switch {
		case errors.Is(err, tea.ErrInterrupted):
			return nil
		case errors.Is(err, tea.ErrProgramPanic):
			return fmt.Errorf("the fleet view crashed (the terminal was restored): %w", err)
		case err != nil:
			return err
		}
		e := m.next.open
		if e == nil {
			return nil
		}
		end, err := openProject(*e, opts)
		if err != nil {
			m.note = errNote("✗ " + termtext.Line(e.Name) + ": " + termtext.Line(err.Error()))
		}
		if end {
			return nil
		}
	}
}

// openProject runs e's full cockpit on the terminal and returns when the
// person quits it. end: a signal asked flowdeck to end (the terminal went
// away), so the fleet does not come back.
func openProject(e fleet.Entry, opts Options) (end bool, err error) {
	if !e.Remote() {
		p, err := project.Open(e.Dir, project.Options{AsRoot: true, Actor: opts.Actor, Warn: io.Discard})
		if err != nil {
			return false, err
		}
		if !p.HasDatabase() {
			return false, fmt.Errorf("%s holds no flowdeck project (flowdeck init there first)", e.Dir)
		}
		return false, ui.Run(p, ui.Options{NoColor: opts.NoColor, Light: opts.Light})
	}
	argv := fleet.Interactive(e)
	if len(argv) == 0 {
		return false, errors.New("its transport has no interactive form")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// The child shares the terminal: ^C reaches it from the terminal
	// itself, and must not end the fleet; a TERM or HUP is passed on, and
	// ends the fleet after it.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("%s: %w", argv[0], err)
	}
	done := make(chan struct{})
	ended := make(chan bool, 1)
	go func() {
		end := false
		defer func() { ended <- end }()
		for {
			select {
			case sig := <-sigs:
				if sig != syscall.SIGINT {
					end = true
					_ = cmd.Process.Signal(sig)
				}
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	end = <-ended
	var x *exec.ExitError
	if errors.As(err, &x) && !end {
		return false, fmt.Errorf("%s ended with exit status %d", argv[0], x.ExitCode())
	}
	return end, nil
}

// keepTitle saves the terminal's window title (XTWINOPS 22) and returns
// what puts it back after the fleet set its own, as the cockpit does.
func keepTitle(w io.Writer) (restore func()) {
	fmt.Fprint(w, "\x1b[22;0t")
	return func() { fmt.Fprint(w, "\x1b]2;\x07\x1b[23;0t") }
}
