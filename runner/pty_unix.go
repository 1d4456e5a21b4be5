//go:build unix

package runner

import (
	"os"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// openPTY opens a pty of the given size with output processing off and
// returns the master (non-blocking, so reads honour deadlines and Close
// interrupts them), the terminal side for the command, and its EOF character.
func openPTY(cols, rows uint16) (ptmx, tty *os.File, veof byte, err error) {
	m, t, err := pty.Open()
	if err != nil {
		return nil, nil, 0, err
	}
	defer func() {
		if err != nil {
			m.Close()
			t.Close()
		}
	}()
	if err = pty.Setsize(t, &pty.Winsize{Cols: cols, Rows: rows}); err != nil {
		return nil, nil, 0, err
	}
	if veof, err = setTermios(int(t.Fd())); err != nil {
		return nil, nil, 0, err
	}
	// pty.Open leaves the master blocking (its ioctls call Fd). A
	// close-on-exec duplicate of the same open file description, switched
	// to non-blocking, is one Go's poller accepts.
	fd, err := unix.FcntlInt(m.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, nil, 0, err
	}
	if err = unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, nil, 0, err
	}
	m.Close()
	return os.NewFile(uintptr(fd), "/dev/ptmx"), t, veof, nil
}

// setTermios turns off everything that would change the command's output
// (OPOST: no \n→\r\n, no tab expansion) and echo (typed input must not
// appear in the output), but keeps ICANON and ISIG: Spec.Stdin is typed at
// a terminal, so ^D ends input and ^C interrupts, as a person expects.
func setTermios(fd int) (veof byte, err error) {
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return 0, err
	}
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.IEXTEN
	t.Iflag &^= unix.IXON | unix.IXOFF | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.PARMRK
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	return t.Cc[unix.VEOF], unix.IoctlSetTermios(fd, ioctlSetTermios, t)
}
