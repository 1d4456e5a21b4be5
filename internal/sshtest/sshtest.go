// Package sshtest runs a real OpenSSH server (Debian's openssh-server) on
// 127.0.0.1 for tests that reach a flowdeck through SSH, as the fleet's
// transports do: a config, host key and client key of its own in a temp
// dir, public-key login as the test's own user, stopped at the test's end.
// Faults are real ones: KillConnections drops every live connection,
// Stop and Restart take the host away and bring it back.
package sshtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// backstop bounds every wait on a condition: generous, because the machine
// running the tests may be loaded.
const backstop = time.Minute

// Server is one sshd listening on 127.0.0.1:Port.
type Server struct {
	tb   testing.TB
	dir  string // config, keys, pid file and log
	sshd string // absolute: sshd re-executes itself per connection
	ssh  string
	key  string // the client's private key
	port int

	mu   sync.Mutex
	cmd  *exec.Cmd     // the listener; nil while stopped
	done chan struct{} // closed when cmd has exited
}

// Start starts an sshd on a free port of 127.0.0.1 and returns once it
// accepts connections; Cleanup stops it and kills every connection's
// processes. env (KEY=VALUE) is set in every session the server starts
// (sshd's SetEnv): the remote side runs with sshd's fresh environment, not
// the test's, so a test isolates the remote's config here (for example
// FLOWDECK_CONFIG or XDG_CONFIG_HOME). Without sshd, ssh or ssh-keygen the
// test skips, saying what to install, or fails under $FLOWDECK_CI, where
// .ci/run installs them and nothing may skip.
func Start(tb testing.TB, env ...string) *Server {
	tb.Helper()
	s := &Server{tb: tb, dir: tb.TempDir()}
	s.sshd, s.ssh = need(tb)
	for _, kv := range env {
		// Written in double quotes into sshd_config, whose parser has no
		// escapes to rely on.
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" || strings.ContainsFunc(kv, func(r rune) bool {
			return r < ' ' || r == 0x7f || r == '"' || r == '\\'
		}) {
			tb.Fatalf("sshtest.Start: env %q is not KEY=VALUE without control characters, double quotes or backslashes", kv)
		}
	}
	// sshd refuses to start without its privilege-separation directory.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		tb.Fatalf("sshtest: %v", err)
	}
	hostKey, clientKey := filepath.Join(s.dir, "host_ed25519"), filepath.Join(s.dir, "client_ed25519")
	for _, k := range []string{hostKey, clientKey} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "sshtest", "-f", k).CombinedOutput(); err != nil {
			tb.Fatalf("sshtest: ssh-keygen -f %s: %v\n%s", k, err, out)
		}
	}
	s.key = clientKey
	pub, err := os.ReadFile(clientKey + ".pub")
	if err != nil {
		tb.Fatalf("sshtest: %v", err)
	}
	authorized := filepath.Join(s.dir, "authorized_keys")
	if err := os.WriteFile(authorized, pub, 0o600); err != nil {
		tb.Fatalf("sshtest: %v", err)
	}
	tb.Cleanup(s.Stop)
	// The free port is found by binding :0 and letting it go, so another
	// process may take it before sshd binds it: then sshd exits at once,
	// and a fresh port is tried.
	var lastErr error
	for range 5 {
		if s.port, err = freePort(); err != nil {
			tb.Fatalf("sshtest: %v", err)
		}
		s.writeConfig(hostKey, authorized, env)
		if lastErr = s.start(); lastErr == nil {
			return s
		}
	}
	tb.Fatalf("sshtest: sshd did not start: %v", lastErr)
	return nil
}

// need returns the absolute paths of sshd and ssh (and checks ssh-keygen),
// or skips tb, or fails it under $FLOWDECK_CI.
func need(tb testing.TB) (sshd, ssh string) {
	tb.Helper()
	var missing, pkgs []string
	lack := func(tool, pkg string) {
		missing = append(missing, tool)
		if !slices.Contains(pkgs, pkg) {
			pkgs = append(pkgs, pkg)
		}
	}
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		// /usr/sbin is not on every user's PATH.
		if _, serr := os.Stat("/usr/sbin/sshd"); serr == nil {
			sshd = "/usr/sbin/sshd"
		} else {
			lack("sshd", "openssh-server")
		}
	}
	if sshd, err = filepath.Abs(sshd); err != nil {
		tb.Fatalf("sshtest: %v", err)
	}
	if ssh, err = exec.LookPath("ssh"); err != nil {
		lack("ssh", "openssh-client")
	}
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		lack("ssh-keygen", "openssh-client")
	}
	if len(missing) > 0 {
		msg := "a real SSH server is needed: " + strings.Join(missing, ", ") + " not installed (apt-get install " +
			strings.Join(pkgs, " ") + "; .ci/run does)"
		if os.Getenv("FLOWDECK_CI") != "" {
			tb.Fatal("FLOWDECK_CI: " + msg)
		}
		tb.Skip(msg)
	}
	return sshd, ssh
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) config() string  { return filepath.Join(s.dir, "sshd_config") }
func (s *Server) logPath() string { return filepath.Join(s.dir, "sshd.log") }

func (s *Server) writeConfig(hostKey, authorized string, env []string) {
	var b strings.Builder
	fmt.Fprintf(&b, "Port %d\nListenAddress 127.0.0.1\n", s.port)
	fmt.Fprintf(&b, "HostKey %s\nAuthorizedKeysFile %s\n", hostKey, authorized)
	fmt.Fprintf(&b, "PidFile %s\n", filepath.Join(s.dir, "sshd.pid"))
	// The tests run as root: key login only, and no PAM, whose session
	// modules expect a real login.
	b.WriteString("PermitRootLogin prohibit-password\nPubkeyAuthentication yes\n" +
		"PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n" +
		"PrintMotd no\nPrintLastLog no\nUseDNS no\n")
	// A fleet of fifty remote projects connects at once: the default
	// (10:30:100) drops unauthenticated connections beyond ten.
	b.WriteString("MaxStartups 1000\n")
	if len(env) > 0 {
		b.WriteString("SetEnv")
		for _, kv := range env {
			b.WriteString(` "` + kv + `"`)
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(s.config(), []byte(b.String()), 0o600); err != nil {
		s.tb.Fatalf("sshtest: %v", err)
	}
}

// start runs the listener in the foreground (-D) with its log on stderr
// (-e, into sshd.log) and waits until it greets a connection.
func (s *Server) start() error {
	logf, err := os.OpenFile(s.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close() // the child holds its own copy
	cmd := exec.Command(s.sshd, "-D", "-e", "-f", s.config())
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", s.sshd, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	deadline := time.Now().Add(backstop)
	for {
		select {
		case <-done:
			s.mu.Lock()
			s.cmd = nil
			s.mu.Unlock()
			return fmt.Errorf("sshd on port %d exited (%v); its log:\n%s", s.port, cmd.ProcessState, s.Log())
		default:
		}
		if greets(s.port) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sshd on port %d did not greet within %v; its log:\n%s", s.port, backstop, s.Log())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// greets reports whether something on the port answers with an SSH
// banner (sshd's, once it listens).
func greets(port int) bool {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.HasPrefix(line, "SSH-2.0-")
}

// Port is the port the server listens on (127.0.0.1).
func (s *Server) Port() int { return s.port }

// Key is the path of the client's private key.
func (s *Server) Key() string { return s.key }

// Log is sshd's log so far (its last 16 KiB), for failure messages.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.logPath())
	if len(b) > 16<<10 {
		b = b[len(b)-16<<10:]
	}
	return string(b)
}

// Command is the argv of an ssh client that runs remote on the server, as
// the test's user, with no config, agent or known-hosts file of the
// user's. Each word of remote arrives as one argument on the remote side:
// it is quoted for the remote shell (ssh joins its arguments into one
// command line); a word that needs no quoting stays bare, so a transport's
// trailing "mcp" is still the literal last word. For a shell construct,
// pass "sh", "-c", script.
func (s *Server) Command(remote ...string) []string {
	argv := []string{s.ssh, "-F", "/dev/null", "-i", s.key, "-p", strconv.Itoa(s.port),
		"-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
		"-o", "LogLevel=ERROR", "127.0.0.1"}
	for _, w := range remote {
		argv = append(argv, Quote(w))
	}
	return argv
}

// Quote quotes word for a POSIX shell as the project does everywhere
// (model.ShellQuote): bare when it holds only characters no shell treats
// specially, else quoted.
func Quote(word string) string { return model.ShellQuote(word) }

// Connections is how many connections the server holds now (its
// per-connection sshd processes).
func (s *Server) Connections() int {
	pid := s.pid()
	if pid == 0 {
		return 0
	}
	return len(procTree().children[pid])
}

// KillConnections drops every live connection, as a network fault would
// end it: every process below the listener (the per-connection sshd
// processes and the remote commands they run) is killed, and the listener
// stays, so clients can connect again at once. It returns how many
// processes it killed.
func (s *Server) KillConnections() int {
	pid := s.pid()
	if pid == 0 {
		return 0
	}
	return killBelow(pid)
}

// FreezeConnections makes every live connection hang without closing, as
// a half-open network path or a wedged remote does: every process below
// the listener (sshd's and the remote commands) is stopped, so the TCP
// connection stays up and nothing answers on it. New connections are
// served as before. thaw resumes the frozen processes (Stop kills them
// whether thawed or not).
func (s *Server) FreezeConnections() (thaw func()) {
	pid := s.pid()
	if pid == 0 {
		return func() {}
	}
	pids := stopBelow(pid)
	return func() {
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGCONT)
		}
	}
}

// Stop takes the host away: the listener and every connection's
// processes are killed, and new connections are refused until Restart.
// Cleanup calls it.
func (s *Server) Stop() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	// The listener is stopped first, so that it accepts nothing while its
	// connections are killed, and they are killed before it, since they
	// would outlive it (orphaned, no longer below it).
	cmd.Process.Signal(syscall.SIGSTOP)
	killBelow(cmd.Process.Pid)
	cmd.Process.Kill()
	<-done
}

// Restart brings a stopped host back on the same port with the same keys
// (stopping it first if it runs), and returns once it accepts connections.
func (s *Server) Restart() {
	s.tb.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		s.tb.Fatalf("sshtest: restart: %v", err)
	}
}

func (s *Server) pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// killBelow kills every process below pid and returns how many, once
// they are dead (a zombie or gone): SIGKILL is not instant.
func killBelow(pid int) int {
	pids := stopBelow(pid)
	killAll(pids)
	deadline := time.Now().Add(backstop)
	for _, p := range pids {
		for time.Now().Before(deadline) {
			if _, state, err := readStat(p); err != nil || state == 'Z' || state == 'X' {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	return len(pids)
}

// stopBelow stops every process below pid (SIGSTOP) and returns them.
// Passes repeat until one finds none that runs: a stopped process cannot
// fork, so none escapes by forking meanwhile (were its parent killed
// later, an orphan would no longer be below pid, and would be missed).
func stopBelow(pid int) []int {
	stopped := map[int]bool{}
	var pids []int
	for range 20 {
		fresh := 0
		for _, p := range procTree().below(pid) {
			if !stopped[p] {
				syscall.Kill(p, syscall.SIGSTOP)
				stopped[p] = true
				pids = append(pids, p)
				fresh++
			}
		}
		if fresh == 0 {
			break
		}
	}
	return pids
}

func killAll(pids []int) {
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// tree is the process table's parent links, zombies left out (they hold
// no connection and will not run again).
type tree struct{ children map[int][]int }

func procTree() tree {
	t := tree{children: map[int][]int{}}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, state, err := readStat(pid)
		if err != nil || state == 'Z' || state == 'X' {
			continue // gone meanwhile, or a zombie
		}
		t.children[ppid] = append(t.children[ppid], pid)
	}
	return t
}

// below lists every descendant of pid.
func (t tree) below(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range t.children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// readStat reads a process's parent and state from /proc/PID/stat, whose
// second field (the command name, in parentheses) may hold spaces and
// parentheses: the fields after it are found after the last ')'.
func readStat(pid int) (ppid int, state byte, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, errors.New("no command name in /proc/" + strconv.Itoa(pid) + "/stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 || len(f[0]) != 1 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: malformed %q", pid, b)
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[0][0], err
}
