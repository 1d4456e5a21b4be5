package db

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

var pageSize = os.Getpagesize()

// dropPages tells the kernel this process is done with the pages of b:
// they leave the process's resident set, and touching them again faults
// them back in from the page cache. Only for b inside bbolt's read-only
// shared memory map of the file (see mapped.drop): on any other memory it
// would lose data.
func dropPages(b []byte) {
	p := unsafe.Pointer(unsafe.SliceData(b))
	head := int(uintptr(p) & uintptr(pageSize-1)) // from the page start to b
	n := (head + len(b) + pageSize - 1) &^ (pageSize - 1)
	_ = unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, -head)), n), unix.MADV_DONTNEED)
}
