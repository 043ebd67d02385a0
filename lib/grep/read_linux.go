package grep

import (
	"syscall"
	"unsafe"
)

// Files are opened and read with raw system calls: no poller registration
// (os.Open's two extra calls per file), and no entersyscall/exitsyscall.
// The runtime's monitor hands the processor of a goroutine that sits in a
// system call to another thread after 20 µs; a search makes a few short
// calls per file, tens of thousands a second, and that hand-off (futex
// wake-ups, a monitor polling every 20 µs) cost more than the reads.
// A read of a file in the page cache returns in microseconds; a cold read
// holds one processor while the disk answers, which is what a search
// waits for anyway.

type rawFile uintptr

// openFile opens path for reading, with its size (-1 when unknown).
func openFile(path string) (rawFile, int64, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return 0, 0, err
	}
	for {
		fd, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, atFDCWD, uintptr(unsafe.Pointer(p)),
			uintptr(syscall.O_RDONLY|syscall.O_CLOEXEC), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return 0, 0, e
		}
		var st syscall.Stat_t
		size := int64(-1)
		if _, _, e := syscall.RawSyscall(syscall.SYS_FSTAT, fd, uintptr(unsafe.Pointer(&st)), 0); e == 0 && st.Mode&syscall.S_IFMT == syscall.S_IFREG {
			size = st.Size
		}
		return rawFile(fd), size, nil
	}
}

func (f rawFile) read(p []byte) (int, error) {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(f), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return 0, e
		}
		return int(n), nil
	}
}

func (f rawFile) close() { syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(f), 0, 0) }

// atFDCWD is AT_FDCWD (-100) as the call takes it.
var atFDCWD = ^uintptr(99)
