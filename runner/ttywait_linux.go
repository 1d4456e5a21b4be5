package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// readSyscalls read one file descriptor, named by their first argument.
var readSyscalls = map[int]bool{unix.SYS_READ: true, unix.SYS_READV: true, unix.SYS_PREAD64: true}

// pollSyscalls wait on several descriptors; their arguments are pointers.
var pollSyscalls = map[int]bool{unix.SYS_PPOLL: true, unix.SYS_PSELECT6: true, unix.SYS_EPOLL_PWAIT: true}

func init() {
	for _, nr := range archPollSyscalls {
		pollSyscalls[nr] = true
	}
}

// readingTerminal reports whether a process of session sid is blocked
// reading the terminal tty: in a read of a descriptor open on it, or in a
// poll while it holds the terminal open beyond stdout and stderr. It reads
// /proc/PID/syscall, which the kernel shows to a process's ancestors.
func readingTerminal(sid int, tty string) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, ok := procStat(pid)
		if !ok || st.session != sid || st.state != 'S' {
			continue
		}
		nr, fd, ok := blockedSyscall(pid)
		switch {
		case !ok:
		case readSyscalls[nr] && isTerminal(pid, fd, tty):
			return true
		case pollSyscalls[nr] && holdsTerminal(pid, tty):
			return true
		}
	}
	return false
}

// blockedSyscall is the system call pid is blocked in and its first argument.
func blockedSyscall(pid int) (nr, arg0 int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/syscall")
	if err != nil {
		return 0, 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, 0, false // "running", or "-1 ..." (not in a system call)
	}
	nr, err1 := strconv.Atoi(f[0])
	a, err2 := strconv.ParseInt(strings.TrimPrefix(f[1], "0x"), 16, 64)
	return nr, int(a), err1 == nil && err2 == nil
}

func isTerminal(pid, fd int, tty string) bool {
	link, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "fd", strconv.Itoa(fd)))
	return err == nil && (link == tty || link == "/dev/tty")
}

func holdsTerminal(pid int, tty string) bool {
	ents, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
	if err != nil {
		return false
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err == nil && fd != 1 && fd != 2 && isTerminal(pid, fd, tty) {
			return true
		}
	}
	return false
}

type stat struct {
	state   byte
	session int
	start   uint64 // clock ticks after boot
}

// procStat parses /proc/PID/stat: the fields after the command name, which
// is in parentheses and may hold anything, spaces and parentheses included.
func procStat(pid int) (stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	return parseStat(b)
}

// parseStat reads the fields procStat needs. The command name is the
// process's own choice (prctl, argv[0]): only the last ')' is trusted.
func parseStat(b []byte) (stat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	// state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
	// cmajflt utime stime cutime cstime priority nice num_threads
	// itrealvalue starttime
	if len(f) < 20 || len(f[0]) != 1 {
		return stat{}, false
	}
	sid, err1 := strconv.Atoi(f[3])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return stat{}, false
	}
	return stat{state: f[0][0], session: sid, start: start}, true
}

// procStart is pid's start time, 0 when unknown.
func procStart(pid int) uint64 {
	st, _ := procStat(pid)
	return st.start
}
