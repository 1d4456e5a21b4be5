//go:build linux && !amd64

package runner

var archPollSyscalls []int
