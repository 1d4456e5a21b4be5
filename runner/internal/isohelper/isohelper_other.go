//go:build unix && !linux

package isohelper

import (
	"errors"
	"syscall"
)

func loopbackUp() error { return errors.New("network namespaces are Linux only") }

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
