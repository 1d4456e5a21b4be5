//go:build unix

package runner

import (
	"os"

	"github.com/flowdeck/flowdeck/runner/internal/isohelper"
)

// Reexec must be called first thing in main, and in TestMain of test
// binaries that run commands. When os.Args says this process is the
// isolation helper, it joins the run's cgroups, sets its rlimits, brings up
// loopback in a new network namespace if asked, and execs the command; it
// never returns in that case. Otherwise it returns at once.
//
// On Linux the helper normally takes over even earlier, from the init of
// runner/internal/isohelper, before heavier packages' init runs; Reexec is
// what makes it work elsewhere (macOS) and without /proc.
func Reexec() { isohelper.Main(os.Args) }
