package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestArgvOrderAndFlags(t *testing.T) {
	tmp := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(tmp, rel)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	home, proj, wt, gitfile := mk("home"), mk("proj"), mk("proj/.flow/worktrees/a"), mk("proj/.flow/worktrees/a/.git")
	got := Spec{Home: home, Read: []string{proj, filepath.Join(tmp, "missing")}, Write: []string{wt}, ReadOver: []string{gitfile}, Dir: wt}.
		Argv("/usr/bin/bwrap", []string{"agent", "-p"})
	head := []string{"/usr/bin/bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run"}
	if !slices.Equal(got[:len(head)], head) {
		t.Fatalf("argv starts %q, want %q", got[:len(head)], head)
	}
	rest := strings.Join(got[len(head):], " ")
	rest = strings.Replace(rest, "--ro-bind /run/systemd/resolve /run/systemd/resolve ", "", 1) // only where the machine has it
	want := "--tmpfs " + home + " --ro-bind " + proj + " " + proj + " --bind " + wt + " " + wt +
		" --ro-bind " + gitfile + " " + gitfile + " --chdir " + wt +
		" --unshare-pid --unshare-ipc --unshare-uts --die-with-parent --new-session -- agent -p"
	if rest != want {
		t.Fatalf("argv\n got %s\nwant %s", rest, want)
	}
	if slices.Contains(got, "--unshare-net") || slices.Contains(got, "--unshare-all") {
		t.Fatalf("the network must stay (the model's API): %q", got)
	}
	// "/" or no home hides nothing: a tmpfs over / would hide the machine.
	for _, h := range []string{"", "/"} {
		if a := (Spec{Home: h}).Argv("bwrap", []string{"x"}); slices.Index(a, "--tmpfs") != slices.Index(a, "/tmp")-1 || strings.Count(strings.Join(a, " "), "--tmpfs") != 2 {
			t.Fatalf("home %q: %q", h, a)
		}
	}
}

func TestFindNamesThePackage(t *testing.T) {
	empty := t.TempDir()
	_, err := Find(empty + string(os.PathListSeparator) + "relative/bin")
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "apt install bubblewrap") {
		t.Fatalf("Find without bwrap: %v", err)
	}
	fake := filepath.Join(t.TempDir(), Program)
	os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755)
	if p, err := Find(empty + string(os.PathListSeparator) + filepath.Dir(fake)); err != nil || p != fake {
		t.Fatalf("Find: %q %v", p, err)
	}
}

// Bwrap is bwrap's path when it can make a sandbox here; otherwise the test
// skips saying why, or fails under FLOWDECK_CI=1, where .ci/run installs
// bubblewrap and nothing may skip.
func Bwrap(t testing.TB) string {
	t.Helper()
	p, err := Usable(context.Background(), os.Getenv("PATH"))
	if err != nil {
		if os.Getenv("FLOWDECK_CI") == "1" {
			t.Fatalf("FLOWDECK_CI=1: %v", err)
		}
		t.Skipf("no sandbox on this machine: %v", err)
	}
	return p
}

func TestSandboxWritesOnlyWhereTold(t *testing.T) {
	bwrap := Bwrap(t)
	tmp := t.TempDir()
	home, ro, rw := filepath.Join(tmp, "home"), filepath.Join(tmp, "ro"), filepath.Join(tmp, "rw")
	for _, d := range []string{home, ro, rw, filepath.Join(rw, "keep")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(home, "secret"), []byte("s"), 0o600)
	os.WriteFile(filepath.Join(ro, "file"), []byte("f"), 0o644)
	os.WriteFile(filepath.Join(rw, "keep", "f"), []byte("k"), 0o644)
	script := `set -u
echo ok > rw-new || exit 10
if echo x > "$RO/file" 2>/dev/null; then exit 11; fi
if [ -e "$HOME_DIR/secret" ]; then exit 12; fi
if echo x > "$RW/keep/f" 2>/dev/null; then exit 13; fi
echo x > "/tmp/$MARK" || exit 14
exit 0`
	argv := Spec{Home: home, Read: []string{ro}, Write: []string{rw}, ReadOver: []string{filepath.Join(rw, "keep")}, Dir: rw}.
		Argv(bwrap, []string{"sh", "-c", script})
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "RO="+ro, "RW="+rw, "HOME_DIR="+home, "MARK="+filepath.Base(tmp))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sandboxed script: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(rw, "rw-new")); string(b) != "ok\n" {
		t.Fatalf("the writable directory was not written: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ro, "file")); string(b) != "f" {
		t.Fatalf("the read-only file changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join("/tmp", filepath.Base(tmp))); err == nil {
		t.Fatal("/tmp is not private")
	}
}

// Usable checks a bwrap once per process: a crew's every agent step asks.
// A check that failed is asked again.
func TestUsableChecksOnce(t *testing.T) {
	dir := t.TempDir()
	count, fail := filepath.Join(dir, "count"), filepath.Join(dir, "fail")
	os.WriteFile(filepath.Join(dir, Program), []byte("#!/bin/sh\necho x >> "+count+"\n[ ! -e "+fail+" ]\n"), 0o755)
	os.WriteFile(fail, nil, 0o644)
	for i := 0; i < 2; i++ {
		if _, err := Usable(context.Background(), dir); err == nil {
			t.Fatal("a failing bwrap was usable")
		}
	}
	os.Remove(fail)
	for i := 0; i < 3; i++ {
		if _, err := Usable(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(count); strings.Count(string(b), "x") != 3 {
		t.Fatalf("bwrap ran %d times, want 2 failed checks and 1 that passed", strings.Count(string(b), "x"))
	}
}
