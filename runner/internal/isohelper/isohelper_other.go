//go:build unix && !linux

package isohelper

import "syscall"

// No early init here (no /proc/self/cmdline before package os is ready):
// runner.Reexec at the top of main runs the helper.

func loopbackUp() error { return syscall.ENOTSUP } // network namespaces are Linux only

func clearAmbient() error { return nil }

// limitAndExec sets the rlimits and execs. (macOS does not enforce
// RLIMIT_AS the way Linux does; no raw-syscall care needed here.)
func limitAndExec(rl []Rlimit, path string, argv, env []string) error {
	for _, r := range rl {
		lim := syscall.Rlimit{Cur: r.Limit, Max: r.Limit}
		if err := syscall.Setrlimit(r.Resource, &lim); err != nil {
			return err
		}
	}
	return syscall.Exec(path, argv, env)
}
