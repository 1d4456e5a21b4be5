package isohelper

import (
	"syscall"
	"unsafe"
)

// init takes over a helper process as early as Go allows (see the package
// comment). os.Args is not available before package os is initialized, so
// the arguments come from /proc/self/cmdline.
func init() {
	if _, ok := syscall.Getenv(EnvMarker); !ok {
		return
	}
	if args, ok := cmdline(); ok {
		Main(args)
	}
	// No /proc: runner.Reexec in main does it, after the other inits.
}

func cmdline() ([]string, bool) {
	fd, err := syscall.Open("/proc/self/cmdline", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(fd)
	var data []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		if n == 0 {
			break
		}
		data = append(data, buf[:n]...)
	}
	var args []string
	start := 0
	for i, c := range data {
		if c == 0 {
			args = append(args, string(data[start:i]))
			start = i + 1
		}
	}
	return args, true
}

// loopbackUp sets IFF_UP on "lo" so that a command in its own network
// namespace can still talk to itself (test suites open local listeners).
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	// struct ifreq: 16-byte name, then a union whose first member here is
	// short ifr_flags; 40 bytes on 64-bit, enough on 32-bit too.
	var ifr [40]byte
	copy(ifr[:], "lo")
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return e
	}
	flags := (*uint16)(unsafe.Pointer(&ifr[16]))
	*flags |= syscall.IFF_UP
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return e
	}
	return nil
}

func clearAmbient() error {
	const prCapAmbient, prCapAmbientClearAll = 47, 4
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClearAll, 0, 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

// limitAndExec sets the rlimits and execs without allocating in between.
// If the exec fails after rlimits were set, it reports through the status
// fd with raw writes and exits: the runtime may not be able to allocate.
func limitAndExec(rl []Rlimit, path string, argv, env []string) error {
	if len(rl) == 0 {
		return syscall.Exec(path, argv, env)
	}
	pathp, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	argvp, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return err
	}
	envp, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return err
	}
	lims := make([]syscall.Rlimit, len(rl))
	for i, r := range rl {
		lims[i] = syscall.Rlimit{Cur: r.Limit, Max: r.Limit}
	}
	for i, r := range rl {
		if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, 0, uintptr(r.Resource), uintptr(unsafe.Pointer(&lims[i])), 0, 0, 0); e != 0 {
			rawFail(126, "isolation helper: setrlimit: ", e.Error())
		}
	}
	_, _, e := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(pathp)), uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])))
	code := 126
	if e == syscall.ENOENT {
		code = 127
	}
	rawFail(code, argv[0], ": ", e.Error())
	return e
}

func rawFail(code int, parts ...string) {
	prefix := "126 "
	if code == 127 {
		prefix = "127 "
	}
	rawWrite(prefix)
	for _, p := range parts {
		rawWrite(p)
	}
	syscall.RawSyscall(syscall.SYS_EXIT_GROUP, uintptr(code), 0, 0)
}

func rawWrite(s string) {
	if len(s) > 0 {
		syscall.RawSyscall(syscall.SYS_WRITE, StatusFD, uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(len(s)))
	}
}
