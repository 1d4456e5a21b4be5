package ui

import (
	"os"
	"testing"

	"github.com/flowdeck/flowdeck/internal/testbin"
	"github.com/flowdeck/flowdeck/runner"
)

func TestMain(m *testing.M) {
	// Runs started from the cockpit (v, /run) may re-execute this binary to
	// join their cgroups (cgroup v1), as flowdeck-cockpit does.
	runner.Reexec()
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}
