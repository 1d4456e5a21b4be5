//go:build unix

package runner

import "flowdeck/runner/internal/isohelper"

// Reexec must be called first thing in main, and in TestMain of test
// binaries that run commands. When os.Args says this process is the
// isolation helper, it joins the run's cgroups, sets its rlimits, brings up
// loopback in a new network namespace if asked, and execs the command; it
// never returns in that case. Otherwise it returns at once.
//
// The helper normally takes over even earlier, from the init of
// runner/internal/isohelper (which imports only the standard library, so it
// runs before the init of heavier packages); Reexec makes the requirement
// explicit and is the fallback should that ever change.
func Reexec() { isohelper.Main() }
