package fleet

import (
	"os"
	"testing"

	"github.com/flowdeck/flowdeck/internal/testbin"
)

func TestMain(m *testing.M) {
	// The test binary is also the fake remote of the transport tests.
	if len(os.Args) > 2 && os.Args[1] == fakeRemoteFlag {
		serveFake(os.Args[2:])
		os.Exit(0)
	}
	if len(os.Args) > 1 && os.Args[1] == ttyProbeFlag {
		ttyProbe()
		os.Exit(0)
	}
	// The projects' config is the tests' own, not the user's.
	cfg, err := os.MkdirTemp("", "fleet-test-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", cfg)
	os.Unsetenv("FLOWDECK_CONFIG")
	os.Unsetenv("FLOWDECK_ACTOR") // the person is "human"
	os.Unsetenv("FLOWDECK_AGENT")
	code := m.Run()
	testbin.Cleanup()
	os.RemoveAll(cfg)
	os.Exit(code)
}
