package grep

import (
	"os"
	"syscall"
	"unsafe"
)

// readFile reads path into buf's storage.
//
// Files are opened and read with raw system calls: no poller registration
// (os.Open's two extra calls per file), and no entersyscall/exitsyscall.
// The runtime's monitor hands the processor of a goroutine that sits in a
// system call to another thread after 20 µs; a search makes three short
// calls per file, tens of thousands a second, and that hand-off (futex
// wake-ups, a monitor polling every 20 µs) cost more than the reads.
// A read of a file in the page cache returns in microseconds; a cold read
// holds one processor while the disk answers, which is what a search
// waits for anyway.
func readFile(buf []byte, path string) ([]byte, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var fd uintptr
	for {
		r, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, atFDCWD, uintptr(unsafe.Pointer(p)),
			uintptr(syscall.O_RDONLY|syscall.O_CLOEXEC), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return nil, &os.PathError{Op: "open", Path: path, Err: e}
		}
		fd = r
		break
	}
	defer syscall.RawSyscall(syscall.SYS_CLOSE, fd, 0, 0)
	// Sized from fstat, the buffer grows once to a file's size rather than
	// by doubling: less garbage, fewer fresh pages.
	var st syscall.Stat_t
	if _, _, e := syscall.RawSyscall(syscall.SYS_FSTAT, fd, uintptr(unsafe.Pointer(&st)), 0); e == 0 && st.Size+1 > int64(cap(buf)) {
		buf = make([]byte, 0, st.Size+4096)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, max(64<<10, cap(buf)))...)[:len(buf)]
		}
		free := buf[len(buf):cap(buf)]
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&free[0])), uintptr(len(free)))
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return nil, &os.PathError{Op: "read", Path: path, Err: e}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+int(n)]
	}
}

// atFDCWD is AT_FDCWD (-100) as the call takes it.
var atFDCWD = ^uintptr(99)
