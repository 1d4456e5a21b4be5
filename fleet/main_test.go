package fleet

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	// The test binary is also the fake remote of the transport tests.
	if len(os.Args) > 2 && os.Args[1] == fakeRemoteFlag {
		serveFake(os.Args[2:])
		os.Exit(0)
	}
	os.Exit(m.Run())
}
