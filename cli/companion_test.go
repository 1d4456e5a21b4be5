package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/internal/lean"
)

// TestLoneFlowdeckSaysHowToInstall: a flowdeck copied alone into a
// directory on PATH cannot become flowdeck-cli, and with flowdeck-cli beside
// it still cannot start flowdeck-mcp; each time it says exactly how to get
// the missing binary, and exits 3 without starting anything.
func TestLoneFlowdeckSaysHowToInstall(t *testing.T) {
	dir := t.TempDir()
	copyBin := func(name string) {
		data, err := os.ReadFile(filepath.Join(filepath.Dir(binary), name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	project := t.TempDir()
	for _, missing := range []string{lean.CLIBinary, lean.MCPBinary} {
		if missing == lean.MCPBinary {
			copyBin(lean.CLIBinary)
		} else {
			copyBin("flowdeck")
		}
		cmd := exec.Command(filepath.Join(dir, "flowdeck"), "--dir", project, "mcp")
		cmd.Env = append(os.Environ(), "PATH="+dir)
		_, errs, code := runProcess(t, cmd)
		if code != ExitInternal {
			t.Errorf("without %s: exit %d, want %d; stderr: %s", missing, code, ExitInternal, errs)
		}
		for _, want := range []string{
			missing + " not found in " + dir + " or in PATH",
			"go install " + lean.InstallModule + "/...@latest",
			"go install " + lean.InstallModule + "/cmd/" + missing + "@latest",
		} {
			if !strings.Contains(errs, want) {
				t.Errorf("without %s: stderr lacks %q:\n%s", missing, want, errs)
			}
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
	if msg := err.Error(); !strings.Contains(msg, "go install "+lean.InstallModule+"/cmd/flowdeck-cockpit@latest") ||
		!strings.Contains(msg, "go install "+lean.InstallModule+"/...@latest") {
		t.Errorf("error does not say how to install: %s", msg)
	}
}
