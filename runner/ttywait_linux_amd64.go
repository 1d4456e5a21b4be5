package runner

import "golang.org/x/sys/unix"

// archPollSyscalls are the older polls that only some architectures have.
var archPollSyscalls = []int{unix.SYS_POLL, unix.SYS_SELECT, unix.SYS_EPOLL_WAIT}
