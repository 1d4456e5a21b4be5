package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestReleaseArchive installs flowdeck as its README says for a release
// archive (.ci/release, unpacked, its directory alone on PATH) and checks
// that the lean binary answers, hands writes to flowdeck-cli, serves MCP
// through flowdeck-mcp and opens the cockpit through flowdeck-cockpit.
func TestReleaseArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release archive; skipped with -short")
	}
	for _, tool := range []string{"go", "bash", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: cannot build and unpack the release archive", tool)
		}
	}
	dist := t.TempDir()
	build := exec.Command("bash", ".ci/release", "test", dist)
	build.Env = append(os.Environ(), "RELEASE_FAST=1", "TARGETS="+runtime.GOOS+"/"+runtime.GOARCH)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf(".ci/release: %v\n%s", err, out)
	}
	install := t.TempDir()
	archive := filepath.Join(dist, "flowdeck_test_"+runtime.GOOS+"_"+runtime.GOARCH+".tar.gz")
	if out, err := exec.Command("tar", "-xzf", archive, "-C", install).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	bin := filepath.Join(install, "flowdeck_test_"+runtime.GOOS+"_"+runtime.GOARCH)
	project := t.TempDir()
	env := append(os.Environ(), "PATH="+bin, "HOME="+t.TempDir(), "TERM=xterm-256color")
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, "flowdeck"), append([]string{"--dir", project}, args...)...)
		cmd.Env, cmd.Stdin = env, strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("flowdeck %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("", "flow", "plan", "start", "release check")
	if out := run("", "hud"); !strings.Contains(out, "release check") {
		t.Fatalf("hud: %s", out)
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"release-test","version":"1"}}}` + "\n"
	if out := firstLine(t, env, filepath.Join(bin, "flowdeck"), initialize, "--dir", project, "mcp"); !strings.Contains(out, `"serverInfo"`) {
		t.Fatalf("flowdeck mcp answered initialize with: %s", out)
	}
	cockpit := exec.Command(filepath.Join(bin, "flowdeck"), "--dir", project)
	cockpit.Env = env
	f, err := pty.StartWithSize(cockpit, &pty.Winsize{Cols: 120, Rows: 40})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	defer cockpit.Process.Kill()
	if screen := readUntil(f, "release check", 30*time.Second); !strings.Contains(screen, "release check") {
		t.Fatalf("the cockpit did not show the session within 30s:\n%q", screen)
	}
}

// firstLine runs bin with in on stdin and returns its first line of output.
func firstLine(t *testing.T, env []string, bin, in string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	io.WriteString(stdin, in)
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		return s
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		return "(nothing within 30s)"
	}
}

// readUntil reads r until what it read contains want or the time is up.
func readUntil(r io.Reader, want string, within time.Duration) string {
	chunks, stop := make(chan []byte), make(chan struct{})
	defer close(stop)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 4096)
			n, err := r.Read(buf)
			if n > 0 {
				select {
				case chunks <- buf[:n]:
				case <-stop:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	var seen bytes.Buffer
	deadline := time.After(within)
	for !strings.Contains(seen.String(), want) {
		select {
		case c, ok := <-chunks:
			if !ok {
				return seen.String()
			}
			seen.Write(c)
		case <-deadline:
			return seen.String()
		}
	}
	return seen.String()
}
