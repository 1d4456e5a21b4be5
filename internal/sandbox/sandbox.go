// Package sandbox builds the bubblewrap (bwrap) command line that runs an
// agent with the machine read-only, the person's home hidden, and only the
// paths its Spec names writable. It decides nothing about flowdeck's
// projects: flows says which paths those are.
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Program is bubblewrap's command; Package is the Debian/Ubuntu package
// that installs it (Fedora and Arch call it bubblewrap too).
const (
	Program = "bwrap"
	Package = "bubblewrap"
)

// ErrMissing is bwrap not found on PATH.
var ErrMissing = errors.New("bubblewrap is not installed: " + Program + " is not on PATH (install the package " + Package + ": apt install " + Package + ")")

// Spec is what one sandboxed command sees. Paths are absolute. Binds are
// made in this order, each over the ones before: the machine read-only,
// Home hidden, Read, Write, ReadOver; so a ReadOver path inside a Write
// directory stays read-only, and a Write path inside the read-only
// project is writable.
type Spec struct {
	// Home is hidden behind an empty tmpfs ("" or "/" hides nothing): the
	// command may write there, and it is gone when the command ends.
	Home string
	// Read are bound read-only (the project, flowdeck's own binary, the
	// agent client's programs).
	Read []string
	// Write are bound writable (the feature's worktree, the git objects
	// and refs a commit needs, the client's state).
	Write []string
	// ReadOver are bound read-only after Write: the files inside a
	// writable directory that must not change (a worktree's .git file,
	// a client's settings, which hold hooks).
	ReadOver []string
	// Dir is the working directory inside.
	Dir string
}

// Argv is the bwrap command line that runs cmd under s. Paths that do
// not exist are left out (bwrap refuses to bind them, and a client that
// is not installed has none); "/run/systemd/resolve" is kept visible
// when it exists, since /etc/resolv.conf often links there and the
// agent keeps its network for the model's API.
func (s Spec) Argv(bwrap string, cmd []string) []string {
	argv := []string{bwrap,
		// The whole machine read-only: programs, libraries, /etc.
		"--ro-bind", "/", "/",
		"--dev", "/dev", // null, zero, random, tty, pts: no host devices
		"--proc", "/proc", // this pid namespace's processes only
		"--tmpfs", "/tmp", // private: nothing left in or read from the host's /tmp
		// Sockets of the person's session (docker, ssh-agent, dbus) live
		// under /run; a docker socket alone would undo the sandbox.
		"--tmpfs", "/run",
	}
	if exists("/run/systemd/resolve") {
		argv = append(argv, "--ro-bind", "/run/systemd/resolve", "/run/systemd/resolve")
	}
	if h := filepath.Clean(s.Home); s.Home != "" && h != "/" && exists(h) {
		argv = append(argv, "--tmpfs", h)
	}
	bind := func(flag string, paths []string) {
		seen := map[string]bool{}
		for _, p := range paths {
			if p = filepath.Clean(p); filepath.IsAbs(p) && !seen[p] && exists(p) {
				seen[p] = true
				argv = append(argv, flag, p, p)
			}
		}
	}
	bind("--ro-bind", s.Read)
	bind("--bind", s.Write)
	bind("--ro-bind", s.ReadOver)
	if s.Dir != "" {
		argv = append(argv, "--chdir", s.Dir)
	}
	argv = append(argv,
		"--unshare-pid", "--unshare-ipc", "--unshare-uts", // not net: the model's API is on the network
		"--die-with-parent", // the runner's kill (timeout, cancel) ends the sandbox with bwrap
		"--new-session",     // no controlling terminal: no TIOCSTI into a terminal the command did not open
		"--")
	return append(argv, cmd...)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// Find is bwrap's path on path (a PATH value), or ErrMissing.
func Find(path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry would run whatever the cwd holds
		}
		p := filepath.Join(dir, Program)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", ErrMissing
}

// Usable is bwrap's path on path when it can make a sandbox here: Find,
// then Check, which runs once per bwrap in a process (every sandboxed
// agent step asks; the machine's answer does not change between them). A
// failed Check is asked again next time.
func Usable(ctx context.Context, path string) (string, error) {
	p, err := Find(path)
	if err != nil {
		return p, err
	}
	if _, ok := checked.Load(p); ok {
		return p, nil
	}
	if err := Check(ctx, p); err != nil {
		return p, err
	}
	checked.Store(p, true)
	return p, nil
}

// checked are the bwrap paths whose Check passed in this process.
var checked sync.Map

// Check runs bwrap once with the namespaces an agent gets and returns why
// it cannot make them, nil when it can. Where unprivileged user namespaces
// are switched off (kernel.unprivileged_userns_clone=0, Ubuntu's
// kernel.apparmor_restrict_unprivileged_userns=1, a container without
// CAP_SYS_ADMIN) bwrap is installed and still fails.
func Check(ctx context.Context, bwrap string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	argv := Spec{}.Argv(bwrap, []string{"true"})
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("bubblewrap (%s) cannot make its sandbox on this machine: %s (unprivileged user namespaces may be switched off: sysctl kernel.unprivileged_userns_clone, or kernel.apparmor_restrict_unprivileged_userns on Ubuntu)", bwrap, msg)
	}
	return nil
}

// Clients are the paths in the person's home that the agent clients
// flowdeck knows (Claude Code, opencode) need inside a sandbox, relative
// to home; each is bound only when it exists.
//
// write: state the clients write as they run (sessions, logs, the OAuth
// token they refresh). readOver: what inside those may hold programs the
// person's own, unsandboxed client would run later (hooks, plugins,
// commands, settings), kept read-only so that an agent cannot plant one.
// read: the person's git identity (a commit needs it) and where the
// clients' installers put their programs.
func Clients(home string) (read, write, readOver []string) {
	in := func(rel ...string) []string {
		out := make([]string, len(rel))
		for i, r := range rel {
			out[i] = filepath.Join(home, r)
		}
		return out
	}
	write = in(
		".claude", ".claude.json", // Claude Code: state, sessions, credentials
		".local/share/opencode", ".local/state/opencode", ".cache/opencode", // opencode: state, auth, logs
	)
	readOver = in(
		".claude/settings.json", ".claude/settings.local.json", ".claude/hooks",
		".claude/commands", ".claude/agents", ".claude/plugins", ".claude/skills", ".claude/CLAUDE.md",
	)
	read = in(
		".gitconfig", ".config/git", // git identity
		".config/opencode",                  // opencode's config and plugins: read, never written
		".local/bin", ".local/share/claude", // Claude Code's native installer
		".opencode",                             // opencode's installer
		".nvm", ".npm-global", ".volta", ".bun", // node and npm installs
	)
	return read, write, readOver
}
