// Package gittest makes real git repositories for tests, so that tests of
// every package set one up alike: on main, with an identity of their own,
// and a first commit of the files they need.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Git runs git -C dir args and returns its trimmed output; an error fails
// tb with what git said.
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		tb.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Repo is a new repository in a temp dir, on main, whose first commit
// holds files (name to content). Without git on PATH it skips tb, saying
// why the test needs it.
func Repo(tb testing.TB, why string, files map[string]string) string {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git is not installed: " + why)
	}
	dir := tb.TempDir()
	Git(tb, dir, "init", "-q", "-b", "main")
	Git(tb, dir, "config", "user.name", "tester")
	Git(tb, dir, "config", "user.email", "tester@example.com")
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	Git(tb, dir, "add", "--all")
	Git(tb, dir, "commit", "-q", "-m", "initial")
	return dir
}
