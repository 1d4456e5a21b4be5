package runner

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUnprivileged re-runs some tests of this binary as user nobody: the
// user-namespace path of NoNetwork and RLIMIT_NPROC only apply to non-root.
func TestUnprivileged(t *testing.T) {
	if os.Getenv("RUNNER_TEST_UNPRIVILEGED") != "" {
		t.Skip("already unprivileged")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to start a copy of this test binary as nobody")
	}
	// Not t.TempDir: its parent directory is private to root.
	dir, err := os.MkdirTemp("", "runner-nobody")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "runner.test")
	if err := copyFile(self, bin); err != nil {
		t.Fatal(err)
	}
	tests := []string{"TestNoNetwork", "TestPidsLimitFallbackNonRoot", "TestExitCodes", "TestTimeoutKillsGrandchildIgnoringHUP"}
	cmd := exec.Command(bin, "-test.run", "^("+strings.Join(tests, "|")+")$", "-test.v", "-test.count=1", "-test.timeout=60s")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + dir, "RUNNER_TEST_UNPRIVILEGED=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("as nobody (%s):\n%s", time.Since(start).Round(time.Millisecond), out)
	if err != nil {
		t.Fatalf("unprivileged run failed: %v", err)
	}
	for _, name := range tests {
		if !strings.Contains(string(out), "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass (or was skipped) as nobody", name)
		}
	}
}

// TestPidsLimitFallbackNonRoot: without cgroups a non-root run gets
// RLIMIT_NPROC; a bounded fork loop hits it.
func TestPidsLimitFallbackNonRoot(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("RLIMIT_NPROC does not apply to root (TestUnprivileged runs this as nobody)")
	}
	res, _ := runT(t, Spec{Argv: sh(`for i in $(seq 100); do sleep 2 & done; wait`), Limits: Limits{Pids: 20}, ForceFallback: true, Timeout: 20 * time.Second})
	if res.ExitCode == 0 || res.Isolation.Mechanism != MechRlimit || !hasNote(res, "RLIMIT_NPROC") {
		t.Fatalf("exit %d isolation %+v", res.ExitCode, res.Isolation)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
