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
	"strings"
	"syscall"
	"time"

	"github.com/flowdeck/flowdeck/runner/internal/isohelper"
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

// run starts spec's command in a pty under its isolation plan, copies its
// output, supervises it (cancel, timeout, stall, interrupts) and reports how
// it ended.
func run(ctx context.Context, spec *Spec) (Result, error) {
	res := Result{Start: time.Now()}
	path, code, err := resolve(spec)
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
	t, err := openTerm(spec)
	if err != nil {
		if t == nil { // the pty itself: the isolation was planned already
			res.Isolation = p.iso
		}
		return startFailed(res, 126, "%v", err)
	}
	defer t.close()

	cmd, statusR, err := startCmd(spec, path, p, t)
	res.Isolation = p.iso
	if err != nil {
		return cmdFailed(res, spec, p, err)
	}
	pid := cmd.Process.Pid
	res.Pid = pid

	// Read before anything else can block: the command may fill the pty.
	r := startReader(t.ptmx, spec.Output, p.asLimit > 0)
	if code, text, failed := helperStatus(statusR); failed {
		killGroup(pid, p)
		cmd.Wait()
		res.Bytes = r.drain() // no write to Output after Run returned
		return startFailed(res, code, "%s", text)
	}

	if spec.Started != nil {
		spec.Started(Remains{Pid: pid, Start: procStart(pid), Cgroups: p.dirs})
	}
	exited, stalled, waitErr := watch(spec, cmd, t, r)
	ended := supervise(ctx, spec, pid, p, exited, stalled)

	// The command is gone but still a zombie (not reaped), so its pid cannot
	// be reused and the group kill cannot hit a stranger. Nothing it started
	// outlives it.
	killGroup(pid, p)
	if cmd.ProcessState == nil {
		*waitErr = cmd.Wait()
	}
	res.Bytes = r.drain()
	res.Duration = time.Since(res.Start)
	if cmd.ProcessState == nil { // something else in this process reaped our child
		res.ExitCode, res.Outcome, res.Isolation = 255, Exited, p.iso
		res.Err = fmt.Sprintf("lost the exit status: %v", *waitErr)
		return res, errors.New(res.Err)
	}
	p.outcome(&res, cmd.ProcessState, ended, r.tail)
	if r.writeErr != nil {
		return res, fmt.Errorf("writing output: %w", r.writeErr)
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
