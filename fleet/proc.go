package fleet

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a transport command's process: its stdin and stdout are the MCP
// connection, its stderr is kept (the tail) to say why it failed.
type proc struct {
	cmd    *exec.Cmd
	stdin  *os.File // the write end of the child's stdin
	stdout *os.File // the read end of the child's stdout
	stderr *tail
	exited chan struct{} // closed when the process has been waited for
	err    error         // Wait's, once exited is closed
}

// killGrace is how long a transport may take to exit after its stdin
// closed and it got SIGTERM, before its process group is killed.
const killGrace = time.Second

// startProc starts argv in a session of its own (so in a process group of
// its own): closing the fleet ends it and whatever it started (ssh's
// children, a shell's); the person's Ctrl-C does not reach it; and it has
// no controlling terminal, so a transport that would ask (ssh's password
// or host-key prompt) fails saying so instead of writing over the fleet's
// screen and waiting for keys that never come.
func startProc(argv []string) (*proc, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &proc{stdin: inW, stdout: outR, stderr: &tail{max: maxStderr}, exited: make(chan struct{})}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// A grandchild that keeps stderr open must not keep Wait waiting.
	p.cmd.WaitDelay = killGrace
	err = p.cmd.Start()
	inR.Close() // the child's ends: the child holds them now
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// stop ends the transport: its stdin closed (a well-behaved server exits
// on EOF), SIGTERM to its group, and after killGrace SIGKILL.
func (p *proc) stop() {
	p.stdin.Close()
	pgid := p.cmd.Process.Pid
	select {
	case <-p.exited:
	default:
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(killGrace):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-p.exited
		}
	}
	// Whatever the group's leader left behind goes with it.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	p.stdout.Close()
}

// story says how the process ended, when it has (waiting up to grace for
// it): "exited (exit status 255)"; and the last two lines it wrote to
// stderr: "ssh: connect to host h port 22: Connection refused". Either is
// "" when there is none.
func (p *proc) story(grace time.Duration) (exit, last string) {
	select {
	case <-p.exited:
		exit = "exited"
		if p.err != nil {
			exit += " (" + p.err.Error() + ")"
		}
	case <-time.After(grace):
	}
	return exit, p.stderr.lastLines(2)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(b)
	if len(b) > t.max {
		b = b[len(b)-t.max:]
	}
	if over := len(t.buf) + len(b) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, b...)
	return n, nil
}

// lastLines are the last n non-empty lines written, sanitised, joined by
// " / ".
func (t *tail) lastLines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, l := range bytes.Split(t.buf, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			out = append(out, string(l))
		}
	}
	out = out[max(0, len(out)-n):]
	return line(strings.Join(out, " / "))
}

// contains reports whether s is among the bytes kept.
func (t *tail) contains(s string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Contains(t.buf, []byte(s))
}
