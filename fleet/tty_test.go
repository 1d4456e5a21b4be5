package fleet

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ttyProbeFlag makes the test binary open a fleet whose one transport
// reports whether it could open the controlling terminal, and print that
// project's error.
const ttyProbeFlag = "-fleet-tty-probe"

func ttyProbe() {
	probe := `if (exec 3</dev/tty) 2>/dev/null; then echo "has a terminal" >&2; else echo "no terminal" >&2; fi; exit 1`
	f := Open([]Entry{{Name: "probe", Command: []string{"sh", "-c", probe, "sh", "mcp"}}}, Options{CallTimeout: 30 * time.Second})
	defer f.Close()
	for {
		if st := f.Statuses(); st[0].Reach != Connecting {
			fmt.Printf("probe: %s\n", st[0].Err)
			return
		}
		<-f.Changed()
	}
}

// A transport has no controlling terminal, even when the fleet runs in one:
// ssh's prompts (a password, a new host key) cannot write over the fleet's
// screen or wait for its keys; they fail, and the row says why.
func TestTransportHasNoTerminal(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// pty.Start makes the pty the child's controlling terminal.
	tty, err := pty.Start(exec.Command(exe, ttyProbeFlag))
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer tty.Close()
	var out bytes.Buffer
	io.Copy(&out, tty) // until the probe exits (EIO)
	if !strings.Contains(out.String(), "probe: ") || !strings.Contains(out.String(), "no terminal") {
		t.Fatalf("the probe said: %q", out.String())
	}
}
