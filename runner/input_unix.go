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
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		idle := time.Since(time.Unix(0, w.lastOut.Load()))
		if idle < watchEvery || !readingTerminal(w.sid, w.tty) {
			continue
		}
		if w.giveEOF && w.lineMode() {
			// ^D on an empty line: the pending read returns 0 bytes. In raw
			// mode it would be a key like any other, so only the stall
			// timeout can end such a wait.
			w.ptmx.Write([]byte{w.veof})
		}
		if w.stall > 0 && idle >= w.stall {
			close(w.stalled)
			return
		}
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
