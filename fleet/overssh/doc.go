// Package overssh proves the fleet (package fleet) against real things: a
// real OpenSSH server on 127.0.0.1 (internal/sshtest) serving a remote
// project's `flowdeck --dir D mcp`, local projects beside it, the real
// binaries (internal/testbin) raising and checking what the fleet sees, and
// the projects' stores read afterwards. It holds tests and benchmarks only:
// faults (a dropped, frozen or hanging transport), the person's answers
// recorded remotely, and a fleet of fifty projects against one.
package overssh
