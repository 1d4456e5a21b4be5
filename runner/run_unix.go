//go:build unix

package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"flowdeck/runner/internal/isohelper"
)

const (
	readBufSize = 128 << 10
	// After the command exited and its run was killed, the pty normally
	// reports EIO as soon as it is drained. These bound the wait when a
	// process outside our reach (escaped the group, no cgroup) keeps the
	// terminal open.
	drainIdle = 200 * time.Millisecond
	drainCap  = 3 * time.Second
)

// plan is one run's isolation, prepared before the fork.
type plan struct {
	iso    Isolation
	helper *isohelper.Config      // nil: exec the command directly
	sys    sysPlan                // what the fork itself does (per OS)
	track  interface{ killAll() } // the cgroup, nil without one
	dirs   []string               // the cgroup's directories, for Remains
	// asLimit is the RLIMIT_AS set when no cgroup limits memory; 0 = none.
	asLimit int64
	stats   func() (oomKills, forkFails uint64)
	clean   func()
}

func (p *plan) enforce(what string) { p.iso.Enforced = append(p.iso.Enforced, what) }

func (p *plan) note(format string, args ...any) {
	p.iso.Notes = append(p.iso.Notes, fmt.Sprintf(format, args...))
}

func (p *plan) unenforce(what string) {
	out := p.iso.Enforced[:0]
	for _, e := range p.iso.Enforced {
		if e != what {
			out = append(out, e)
		}
	}
	p.iso.Enforced = out
}

func run(ctx context.Context, spec *Spec) (Result, error) {
	res := Result{Start: time.Now()}
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return startFailed(res, 127, "empty command")
	}
	if spec.Dir != "" {
		fi, err := os.Stat(spec.Dir)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return startFailed(res, 126, "working directory %q: %v", spec.Dir, err)
		}
		if !fi.IsDir() {
			return startFailed(res, 126, "working directory %q: not a directory", spec.Dir)
		}
	}
	path, code, err := lookPath(spec.Argv[0], spec.Env, spec.Dir)
	if err != nil {
		return startFailed(res, code, "%v", err)
	}

	if err := ctx.Err(); err != nil {
		res.Outcome = Cancelled
		res.ExitCode = 128 + int(syscall.SIGKILL)
		res.Signal = "SIGKILL"
		return res, nil
	}

	p := prepare(spec)
	defer p.clean()

	ptmx, tty, veof, err := openPTY(spec.Cols, spec.Rows)
	if err != nil {
		res.Isolation = p.iso
		return startFailed(res, 126, "open pty: %v", err)
	}
	defer ptmx.Close()
	ttyName := tty.Name()
	stdin := tty
	if spec.Stdin == nil {
		// Nobody types: a read of stdin ends at once instead of waiting.
		if stdin, err = os.Open(os.DevNull); err != nil {
			tty.Close()
			return startFailed(res, 126, "open %s: %v", os.DevNull, err)
		}
		defer stdin.Close()
	}

	var cmd *exec.Cmd
	var statusR *os.File
	for {
		cmd, statusR, err = buildCmd(spec, path, p, stdin, tty)
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
	tty.Close() // from now on only the command holds the terminal open: its last close gives EIO
	if stdin != tty {
		stdin.Close()
	}
	res.Isolation = p.iso
	if err != nil {
		if statusR != nil {
			statusR.Close()
		}
		if p.helper != nil {
			return startFailed(res, 126, "cannot start the isolation helper: %v", unwrapStart(err))
		}
		code := 126
		if errors.Is(err, syscall.ENOENT) {
			code = 127
		}
		return startFailed(res, code, "%s: %v", spec.Argv[0], unwrapStart(err))
	}
	pid := cmd.Process.Pid
	res.Pid = pid

	// Read before anything else can block: the command may fill the pty.
	var (
		nbytes    atomic.Int64
		writeErr  error
		drainTill atomic.Int64 // unix nanos; 0 = not draining yet
		lastOut   atomic.Int64 // unix nanos of the last output, for the input watch
		tail      []byte       // the output's last bytes, under RLIMIT_AS only
		readDone  = make(chan struct{})
	)
	lastOut.Store(time.Now().UnixNano())
	go func() {
		defer close(readDone)
		buf := make([]byte, readBufSize)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				nbytes.Add(int64(n))
				lastOut.Store(time.Now().UnixNano())
				if p.asLimit > 0 {
					tail = keepTail(tail, buf[:n])
				}
				if writeErr == nil {
					_, writeErr = spec.Output.Write(buf[:n])
				}
			}
			if err != nil {
				return // EIO: every holder of the terminal closed it and all is read
			}
			if capAt := drainTill.Load(); capAt != 0 {
				ptmx.SetReadDeadline(minTime(time.Now().Add(drainIdle), time.Unix(0, capAt)))
			}
		}
	}()

	// drain waits for the reader once the command is gone: until EIO, or
	// until nothing came for drainIdle, at most drainCap.
	drain := func() {
		drainTill.Store(time.Now().Add(drainCap).UnixNano())
		ptmx.SetReadDeadline(time.Now().Add(drainIdle))
		<-readDone
		res.Bytes = nbytes.Load()
	}

	if statusR != nil {
		// The helper closes its end by exec'ing, or writes "CODE message".
		msg, _ := io.ReadAll(statusR)
		statusR.Close()
		if len(msg) > 0 {
			killGroup(pid, p)
			cmd.Wait()
			drain() // no write to Output after Run returned
			code, text := 126, string(msg)
			if c, rest, ok := strings.Cut(text, " "); ok {
				if n, err := strconv.Atoi(c); err == nil {
					code, text = n, rest
				}
			}
			return startFailed(res, code, "%s", text)
		}
	}

	if spec.Started != nil {
		spec.Started(Remains{Pid: pid, Start: procStart(pid), Cgroups: p.dirs})
	}
	if spec.Stdin != nil {
		go typeInput(ptmx, spec.Stdin, veof)
	}

	exited := make(chan struct{})
	var stalled <-chan struct{}
	if spec.Stdin == nil || spec.Stall > 0 {
		w := &inputWatch{ptmx: ptmx, tty: ttyName, sid: pid, veof: veof, giveEOF: spec.Stdin == nil,
			stall: spec.Stall, lastOut: &lastOut, stalled: make(chan struct{})}
		stalled = w.stalled
		go w.loop(exited)
	}
	var waitErr error
	go func() {
		if waitNoReap(pid) != nil {
			waitErr = cmd.Wait() // no waitid(WNOWAIT) here: reap now
		}
		close(exited)
	}()

	var timeoutC <-chan time.Time
	if spec.Timeout > 0 {
		t := time.NewTimer(spec.Timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	ctxDone := ctx.Done()
	interrupts := 0
	var ended Outcome // set when we ended the run
wait:
	for {
		select {
		case <-exited:
			break wait
		case <-ctxDone:
			ctxDone = nil
			if ended == "" {
				ended = Cancelled
			}
			killGroup(pid, p)
		case <-timeoutC:
			timeoutC = nil
			if ended == "" {
				ended = TimedOut
			}
			killGroup(pid, p)
		case <-stalled:
			stalled = nil
			if ended == "" {
				ended = Stalled
			}
			killGroup(pid, p)
		case sig := <-spec.Interrupt:
			interrupts++
			if ended == "" {
				ended = Cancelled
			}
			if interrupts == 1 {
				s, ok := sig.(syscall.Signal)
				if !ok {
					s = syscall.SIGINT
				}
				syscall.Kill(-pid, s)
			} else {
				killGroup(pid, p)
			}
		}
	}
	// The command is gone but still a zombie (not reaped), so its pid cannot
	// be reused and the group kill cannot hit a stranger. Nothing it started
	// outlives it.
	killGroup(pid, p)
	if cmd.ProcessState == nil {
		waitErr = cmd.Wait()
	}
	drain()
	res.Duration = time.Since(res.Start)

	st := cmd.ProcessState
	if st == nil { // something else in this process reaped our child
		res.ExitCode, res.Outcome, res.Isolation = 255, Exited, p.iso
		res.Err = fmt.Sprintf("lost the exit status: %v", waitErr)
		return res, errors.New(res.Err)
	}
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
	if writeErr != nil {
		return res, fmt.Errorf("writing output: %w", writeErr)
	}
	return res, nil
}

// killGroup SIGKILLs the command's process group and, when the run has a
// cgroup, every process in it (that also reaches processes that left the
// group with setsid).
func killGroup(pid int, p *plan) {
	syscall.Kill(-pid, syscall.SIGKILL)
	if p.track != nil {
		p.track.killAll()
	}
}

func buildCmd(spec *Spec, path string, p *plan, stdin, tty *os.File) (*exec.Cmd, *os.File, error) {
	cmd := &exec.Cmd{
		Path:   path,
		Args:   spec.Argv,
		Env:    spec.Env,
		Dir:    spec.Dir,
		Stdin:  stdin,
		Stdout: tty,
		Stderr: tty,
		// The command leads a new session with the pty as its controlling
		// terminal (fd 1: stdin may be /dev/null), so its pid is also its
		// process group id.
		SysProcAttr: &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 1},
	}
	p.applySys(cmd.SysProcAttr)
	if p.helper == nil {
		return cmd, nil, nil
	}
	cfg := *p.helper
	cfg.Path = path
	self, err := selfExe()
	if err != nil {
		return nil, nil, fmt.Errorf("isolation helper: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Path = self
	cmd.Args = append([]string{"flowdeck-isolate"}, cfg.Args(spec.Argv)...)
	cmd.Env = append(slices.Clip(spec.Env), isohelper.EnvMarker+"=1")
	cmd.ExtraFiles = []*os.File{w} // fd 3 = isohelper.StatusFD
	return cmd, r, nil
}

// typeInput types r into the terminal. At EOF it sends the terminal's EOF
// character (twice after a partial line: the first one only ends the line).
func typeInput(ptmx *os.File, r io.Reader, veof byte) {
	buf := make([]byte, 32<<10)
	last := byte('\n')
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := ptmx.Write(buf[:n]); werr != nil {
				return
			}
			last = buf[n-1]
		}
		if err != nil {
			if err == io.EOF {
				eof := []byte{veof}
				if last != '\n' {
					eof = append(eof, veof)
				}
				ptmx.Write(eof)
			}
			return
		}
	}
}

// lookPath resolves file like the shell would, with the PATH of the
// command's environment and relative to its working directory. It returns
// the exit code to report when the command cannot run.
func lookPath(file string, env []string, dir string) (string, int, error) {
	// Resolved against the command's working directory, and absolute: the
	// child changes directory before it execs.
	rel := func(p string) string {
		if dir != "" && !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
		return p
	}
	if strings.Contains(file, "/") {
		p := rel(file)
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			return "", 127, fmt.Errorf("%s: no such file", file)
		case fi.IsDir():
			return "", 126, fmt.Errorf("%s: is a directory", file)
		case fi.Mode()&0o111 == 0:
			return "", 126, fmt.Errorf("%s: permission denied (not executable)", file)
		}
		return p, 0, nil
	}
	pathEnv, ok := envLookup(env, "PATH")
	if !ok {
		pathEnv = os.Getenv("PATH")
	}
	denied := ""
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "." // POSIX: an empty PATH element is the working directory
		}
		p := rel(filepath.Join(d, file))
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() {
			continue
		}
		if fi.Mode()&0o111 == 0 {
			if denied == "" {
				denied = p
			}
			continue
		}
		return p, 0, nil
	}
	if denied != "" {
		return "", 126, fmt.Errorf("%s: permission denied (%s is not executable)", file, denied)
	}
	return "", 127, fmt.Errorf("%s: command not found", file)
}

func envLookup(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- { // the last one wins, as in exec.Cmd
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

func unwrapStart(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// tailSize is how much of the output keepTail keeps.
const tailSize = 4 << 10

func keepTail(tail, p []byte) []byte {
	if len(p) >= tailSize {
		return append(tail[:0], p[len(p)-tailSize:]...)
	}
	if drop := len(tail) + len(p) - tailSize; drop > 0 {
		tail = append(tail[:0], tail[drop:]...)
	}
	return append(tail, p...)
}
