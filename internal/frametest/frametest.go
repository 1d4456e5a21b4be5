// Package frametest measures a terminal program as a person starts it:
// the program runs on a 120x40 pty whose output feeds a terminal emulator
// (which answers the program's queries, as a terminal would), and a
// frame has arrived when the emulated screen shows it. The first-frame
// benchmarks of the cockpit and of the fleet use it.
package frametest

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

// Backstop ends a wait for a screen that never comes; a loaded machine
// may take seconds, so it is minutes.
const Backstop = 2 * time.Minute

// Term is one program running on an emulated terminal.
type Term struct {
	tb    testing.TB
	argv  []string
	cmd   *exec.Cmd
	pty   *os.File
	emu   *vt.Emulator
	start time.Time
	timer *time.Timer
	wg    sync.WaitGroup
	buf   []byte
}

// Start runs argv with env on a 120x40 pty; Close ends it.
func Start(tb testing.TB, env []string, argv ...string) *Term {
	tb.Helper()
	t := &Term{tb: tb, argv: argv, emu: vt.NewEmulator(120, 40), buf: make([]byte, 64<<10)}
	t.cmd = exec.Command(argv[0], argv[1:]...)
	t.cmd.Env = env
	t.start = time.Now()
	f, err := pty.StartWithSize(t.cmd, &pty.Winsize{Cols: 120, Rows: 40})
	if err != nil {
		t.emu.Close()
		tb.Fatal(err)
	}
	t.pty = f
	t.wg.Go(func() { io.Copy(f, t.emu) }) // the terminal's answers to queries
	t.timer = time.AfterFunc(Backstop, func() { f.Close() })
	return t
}

// Pid is the program's process id.
func (t *Term) Pid() int { return t.cmd.Process.Pid }

// Until reads the program's output until cond holds of the screen and
// returns the time since the program started; the test fails when the
// program ends first or at the backstop.
func (t *Term) Until(what string, cond func(screen string) bool) time.Duration {
	t.tb.Helper()
	for {
		if cond(t.emu.String()) {
			return time.Since(t.start)
		}
		n, err := t.pty.Read(t.buf)
		t.emu.Write(t.buf[:n])
		if n > 0 {
			continue // the condition is checked again first
		}
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				t.tb.Fatalf("%v: no screen with %s within %v:\n%s", t.argv, what, Backstop, t.emu.String())
			}
			t.tb.Fatalf("%v: ended (%v) before %s:\n%s", t.argv, err, what, t.emu.String())
		}
	}
}

// Close kills the program's session (pty.Start made it a session leader)
// and releases the terminal.
func (t *Term) Close() {
	t.timer.Stop()
	syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	t.cmd.Wait()
	t.pty.Close()
	t.emu.Close()
	t.wg.Wait()
}
