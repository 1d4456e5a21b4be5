package runner

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// A run nobody types into reads end-of-file: from stdin at once, and from
// the terminal itself (as password prompts read) within a moment.
func TestNobodyTypesReadsEOF(t *testing.T) {
	res, out := runT(t, Spec{Argv: sh(`read x; echo "stdin rc=$?"; read y < /dev/tty; echo "tty rc=$?"`), Timeout: 20 * time.Second})
	if res.Outcome != Exited || !strings.Contains(string(out), "stdin rc=1") {
		t.Fatalf("outcome %s, output %q", res.Outcome, out)
	}
	if runtime.GOOS == "linux" && !strings.Contains(string(out), "tty rc=1") {
		t.Fatalf("a read of /dev/tty did not end: %q", out)
	}
}

// A wait for a key in raw mode cannot be given end-of-file; it is ended as
// stalled once nothing was printed for Stall.
func TestStallEndsRawTerminalRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the stall check reads /proc")
	}
	res, out := runT(t, Spec{Argv: sh(`echo waiting; stty raw -echo </dev/tty; while :; do dd bs=1 count=1 </dev/tty 2>/dev/null; done`),
		Stall: time.Second, Timeout: 20 * time.Second})
	if res.Outcome != Stalled {
		t.Fatalf("outcome %s, want %s; output %q", res.Outcome, Stalled, out)
	}
}

// Quiet work that reads nothing is not a stall.
func TestStallSparesQuietWork(t *testing.T) {
	res, _ := runT(t, Spec{Argv: sh(`sleep 1.5; echo done`), Stall: 500 * time.Millisecond, Timeout: 20 * time.Second})
	if res.Outcome != Exited || res.ExitCode != 0 {
		t.Fatalf("outcome %s exit %d", res.Outcome, res.ExitCode)
	}
}
