package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoneFlowdeckSaysHowToInstall: a flowdeck copied alone into a
// directory on PATH cannot start flowdeck-mcp; it says exactly how to get
// it, and exits 3 without starting anything.
func TestLoneFlowdeckSaysHowToInstall(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "flowdeck")
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	cmd := exec.Command(bin, "--dir", project, "mcp")
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin))
	_, errs, code := runProcess(t, cmd)
	if code != ExitInternal {
		t.Errorf("exit %d, want %d; stderr: %s", code, ExitInternal, errs)
	}
	for _, want := range []string{
		"flowdeck-mcp not found in " + filepath.Dir(bin) + " or in PATH",
		"go install " + installModule + "/...@latest",
		"go install " + installModule + "/cmd/flowdeck-mcp@latest",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}

// TestFindCockpitMissing: the cockpit's lookup fails the same way, naming
// the cockpit's own go install path.
func TestFindCockpitMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := FindCockpit()
	if err == nil {
		t.Skip("a flowdeck-cockpit sits next to the test binary")
	}
	if msg := err.Error(); !strings.Contains(msg, "go install "+installModule+"/cmd/flowdeck-cockpit@latest") ||
		!strings.Contains(msg, "go install "+installModule+"/...@latest") {
		t.Errorf("error does not say how to install: %s", msg)
	}
}
