//go:build unix

package runner

import (
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// watchEvery is how often a quiet run is checked for a process waiting on
// the terminal. A wait shorter than this is never noticed, and costs nothing.
const watchEvery = 250 * time.Millisecond

// watchMax is the longest pause between checks during quiet work.
const watchMax = 2 * time.Second

// inputWatch ends waits for input that nobody will type: it gives
// end-of-file to a process reading the terminal in line mode (giveEOF), and
// reports a run that waited with no output for stall.
type inputWatch struct {
	ptmx    *os.File
	tty     string // the terminal's device path
	sid     int    // the run's session
	veof    byte
	giveEOF bool
	stall   time.Duration
	lastOut *atomic.Int64 // unix nanos
	stalled chan struct{}
}

func (w *inputWatch) loop(done <-chan struct{}) {
	wait := watchEvery
	t := time.NewTimer(wait)
	defer t.Stop()
	seen := w.lastOut.Load()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		last := w.lastOut.Load()
		if last != seen { // output again: look closely again
			seen, wait = last, watchEvery
		}
		idle := time.Since(time.Unix(0, last))
		switch {
		case idle < watchEvery:
		case readingTerminal(w.sid, w.tty):
			wait = watchEvery
			if w.giveEOF && w.lineMode() {
				// ^D on an empty line: the pending read returns 0 bytes. In
				// raw mode it would be a key like any other, so only the
				// stall timeout can end such a wait.
				w.ptmx.Write([]byte{w.veof})
			}
			if w.stall > 0 && idle >= w.stall {
				close(w.stalled)
				return
			}
		default:
			// Quiet work: scanning /proc costs, so look less often.
			wait = min(2*wait, watchMax)
		}
		t.Reset(wait)
	}
}

// lineMode reports whether the terminal is in canonical (line) mode. The
// master reports the terminal's settings.
func (w *inputWatch) lineMode() bool {
	rc, err := w.ptmx.SyscallConn()
	if err != nil {
		return false
	}
	canon := false
	rc.Control(func(fd uintptr) {
		if t, err := unix.IoctlGetTermios(int(fd), ioctlGetTermios); err == nil {
			canon = t.Lflag&unix.ICANON != 0
		}
	})
	return canon
}
