package flows

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/model"
)

// A sandbox path inside the project is taken beneath it: one an agent
// replaced by a symlink out of the project refuses the sandbox instead of
// binding where the link leads; a plain one is bound as configured.
func TestSandboxPathsStayInTheProject(t *testing.T) {
	e, _ := project(t, nil)
	home, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(e.Root, "build-cache"), 0o755)
	a := config.Agent{Command: []string{"agent"}, Sandbox: true,
		SandboxPaths: config.SandboxPaths{Read: []string{"~/tools"}, Write: []string{"build-cache", "/opt/x"}}}
	spec, err := e.sandboxSpec(&model.FlowRun{}, a, home)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(spec.Write, filepath.Join(e.Root, "build-cache")) || !slices.Contains(spec.Write, "/opt/x") || !slices.Contains(spec.Read, filepath.Join(home, "tools")) {
		t.Fatalf("spec: %+v", spec)
	}
	os.Symlink(outside, filepath.Join(e.Root, "planted"))
	for _, p := range []string{"planted", "planted/sub", filepath.Join(e.Root, "planted")} {
		a.SandboxPaths.Write = []string{p}
		if spec, err := e.sandboxSpec(&model.FlowRun{}, a, home); err == nil || !strings.Contains(err.Error(), "sandbox_paths") {
			t.Errorf("write %q through a link out of the project: %v %+v", p, err, spec.Write)
		}
	}
}
