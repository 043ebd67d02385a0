//go:build unix

package grepfs

import "syscall"

// openFD opens path with the ordinary (scheduler-aware) system calls, with
// its size (-1 when not a regular file): a FIFO's open waits there for its
// writer.
func openFD(path string) (int, int64, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, 0, err
		}
		var st syscall.Stat_t
		size := int64(-1)
		if syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG {
			size = st.Size
		}
		return fd, size, nil
	}
}
