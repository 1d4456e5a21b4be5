//go:build unix

package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The steps of run, in the order it takes them.

// resolve checks the command and its working directory and finds the
// program; the int is the exit code to report when it cannot run.
func resolve(spec *Spec) (string, int, error) {
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return "", 127, errors.New("empty command")
	}
	if spec.Dir != "" {
		fi, err := os.Stat(spec.Dir)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return "", 126, fmt.Errorf("working directory %q: %v", spec.Dir, err)
		}
		if !fi.IsDir() {
			return "", 126, fmt.Errorf("working directory %q: not a directory", spec.Dir)
		}
	}
	return lookPath(spec.Argv[0], spec.Env, spec.Dir)
}

// term is the run's pseudo-terminal: ptmx is our side, tty the command's,
// stdin what the command reads (the tty, or /dev/null when nobody types).
type term struct {
	ptmx, tty, stdin *os.File
	name             string
	veof             byte
}

// openTerm opens the pty. On error the *term is nil when the pty itself
// could not be opened.
func openTerm(spec *Spec) (*term, error) {
	ptmx, tty, veof, err := openPTY(spec.Cols, spec.Rows)
	if err != nil {
		return nil, fmt.Errorf("open pty: %v", err)
	}
	t := &term{ptmx: ptmx, tty: tty, stdin: tty, name: tty.Name(), veof: veof}
	if spec.Stdin == nil {
		// Nobody types: a read of stdin ends at once instead of waiting.
		if t.stdin, err = os.Open(os.DevNull); err != nil {
			tty.Close()
			ptmx.Close()
			return t, fmt.Errorf("open %s: %v", os.DevNull, err)
		}
	}
	return t, nil
}

func (t *term) close() {
	t.ptmx.Close()
	if t.stdin != t.tty {
		t.stdin.Close()
	}
}

// startCmd starts the command (again when the isolation asks to retry
// without a feature), then closes our copies of the command's side: from
// then on only the command holds the terminal open, and its last close
// gives EIO. statusR is the isolation helper's status pipe, if any.
func startCmd(spec *Spec, path string, p *plan, t *term) (cmd *exec.Cmd, statusR *os.File, err error) {
	for {
		cmd, statusR, err = buildCmd(spec, path, p, t.stdin, t.tty)
		if err == nil {
			err = cmd.Start()
			if cmd.ExtraFiles != nil {
				cmd.ExtraFiles[0].Close() // the child has its copy
			}
		}
		if err == nil || !p.retrySys(err) {
			break
		}
		if statusR != nil {
			statusR.Close()
		}
	}
	t.tty.Close()
	if t.stdin != t.tty {
		t.stdin.Close()
	}
	if err != nil && statusR != nil {
		statusR.Close()
	}
	return cmd, statusR, err
}

// cmdFailed reports a command (or isolation helper) that did not start.
func cmdFailed(res Result, spec *Spec, p *plan, err error) (Result, error) {
	if p.helper != nil {
		return startFailed(res, 126, "cannot start the isolation helper: %v", unwrapStart(err))
	}
	code := 126
	if errors.Is(err, syscall.ENOENT) {
		code = 127
	}
	return startFailed(res, code, "%s: %v", spec.Argv[0], unwrapStart(err))
}

// reader copies the terminal's output to the run's Output as it arrives.
type reader struct {
	ptmx      *os.File
	nbytes    atomic.Int64
	drainTill atomic.Int64 // unix nanos; 0 = not draining yet
	lastOut   atomic.Int64 // unix nanos of the last output, for the input watch
	// Read by run only after done is closed.
	writeErr error
	tail     []byte // the output's last bytes, when keepTail (under RLIMIT_AS)
	done     chan struct{}
}

func startReader(ptmx *os.File, out io.Writer, keepTail bool) *reader {
	r := &reader{ptmx: ptmx, done: make(chan struct{})}
	r.lastOut.Store(time.Now().UnixNano())
	go r.loop(out, keepTail)
	return r
}

func (r *reader) loop(out io.Writer, keep bool) {
	defer close(r.done)
	buf := make([]byte, readBufSize)
	for {
		n, err := r.ptmx.Read(buf)
		if n > 0 {
			r.nbytes.Add(int64(n))
			r.lastOut.Store(time.Now().UnixNano())
			if keep {
				r.tail = keepTail(r.tail, buf[:n])
			}
			if r.writeErr == nil {
				_, r.writeErr = out.Write(buf[:n])
			}
		}
		if err != nil {
			return // EIO: every holder of the terminal closed it and all is read
		}
		if capAt := r.drainTill.Load(); capAt != 0 {
			r.ptmx.SetReadDeadline(minTime(time.Now().Add(drainIdle), time.Unix(0, capAt)))
		}
	}
}

// drain waits for the reader once the command is gone: until EIO, or until
// nothing came for drainIdle, at most drainCap. It returns the bytes read.
func (r *reader) drain() int64 {
	r.drainTill.Store(time.Now().Add(drainCap).UnixNano())
	r.ptmx.SetReadDeadline(time.Now().Add(drainIdle))
	<-r.done
	return r.nbytes.Load()
}

// helperStatus reads the isolation helper's status pipe: the helper closes
// its end by exec'ing the command, or writes "CODE message" when it could
// not.
func helperStatus(statusR *os.File) (code int, text string, failed bool) {
	if statusR == nil {
		return 0, "", false
	}
	msg, _ := io.ReadAll(statusR)
	statusR.Close()
	if len(msg) == 0 {
		return 0, "", false
	}
	code, text = 126, string(msg)
	if c, rest, ok := strings.Cut(text, " "); ok {
		if n, err := strconv.Atoi(c); err == nil {
			code, text = n, rest
		}
	}
	return code, text, true
}

// watch starts what runs beside the command: typing its input, the input
// watch (EOF for a read of an absent stdin; stall detection) and the
// reaper. exited is closed when the command has exited, *waitErr set by
// then.
func watch(spec *Spec, cmd *exec.Cmd, t *term, r *reader) (exited chan struct{}, stalled <-chan struct{}, waitErr *error) {
	pid := cmd.Process.Pid
	if spec.Stdin != nil {
		go typeInput(t.ptmx, spec.Stdin, t.veof)
	}
	exited = make(chan struct{})
	if spec.Stdin == nil || spec.Stall > 0 {
		w := &inputWatch{ptmx: t.ptmx, tty: t.name, sid: pid, veof: t.veof, giveEOF: spec.Stdin == nil,
			stall: spec.Stall, lastOut: &r.lastOut, stalled: make(chan struct{})}
		stalled = w.stalled
		go w.loop(exited)
	}
	waitErr = new(error)
	go func() {
		if waitNoReap(pid) != nil {
			*waitErr = cmd.Wait() // no waitid(WNOWAIT) here: reap now
		}
		close(exited)
	}()
	return exited, stalled, waitErr
}

// supervise waits until the command exits, killing its run on cancel,
// timeout or stall, and passing the first interrupt on (the second kills).
// It returns why we ended the run ("" = the command ended by itself).
func supervise(ctx context.Context, spec *Spec, pid int, p *plan, exited, stalled <-chan struct{}) Outcome {
	var timeoutC <-chan time.Time
	if spec.Timeout > 0 {
		t := time.NewTimer(spec.Timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	ctxDone := ctx.Done()
	interrupts := 0
	var ended Outcome
	end := func(why Outcome) {
		if ended == "" {
			ended = why
		}
	}
	for {
		select {
		case <-exited:
			return ended
		case <-ctxDone:
			ctxDone = nil
			end(Cancelled)
			killGroup(pid, p)
		case <-timeoutC:
			timeoutC = nil
			end(TimedOut)
			killGroup(pid, p)
		case <-stalled:
			stalled = nil
			end(Stalled)
			killGroup(pid, p)
		case sig := <-spec.Interrupt:
			interrupts++
			end(Cancelled)
			if interrupts > 1 {
				killGroup(pid, p)
				continue
			}
			s, ok := sig.(syscall.Signal)
			if !ok {
				s = syscall.SIGINT
			}
			syscall.Kill(-pid, s)
		}
	}
}

// outcome fills in how the command ended: its exit code or signal, its CPU
// time, and what the isolation saw (memory and pids limits hit).
func (p *plan) outcome(res *Result, st *os.ProcessState, ended Outcome, tail []byte) {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.ExitCode = 128 + int(ws.Signal())
		res.Signal = unix.SignalName(ws.Signal())
	} else {
		res.ExitCode = st.ExitCode()
	}
	var peak int64
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		res.CPUTime = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		peak = maxRSS(ru)
	}
	res.Outcome = Exited
	if ended != "" {
		res.Outcome = ended
	}
	if ended == "" && res.ExitCode != 0 && p.asLimit > 0 && rlimitOOM(p.asLimit, peak, tail) {
		res.Outcome = OOM
		p.note("memory: taken for out of memory under RLIMIT_AS (peak resident %d MiB of %d MiB allowed)", peak>>20, p.asLimit>>20)
	}
	if p.stats != nil {
		oom, forks := p.stats()
		if oom > 0 {
			p.note("memory: %d process(es) killed at the memory limit", oom)
		}
		if forks > 0 {
			p.note("pids: %d fork(s) refused at the pids limit", forks)
		}
		if ended == "" && res.ExitCode != 0 {
			switch {
			case oom > 0:
				res.Outcome = OOM
			case forks > 0:
				res.Outcome = PidsLimit
			}
		}
	}
	res.Isolation = p.iso
}
