//go:build unix && !linux

package grepfs

import "syscall"

// Files are opened and read with the system calls directly: os.Open would
// also register each file with the poller (more calls per file).

type rawFile int

func openFile(path string) (rawFile, int64, error) {
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
		return rawFile(fd), size, nil
	}
}

func (f rawFile) read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(f), p)
		if err == syscall.EINTR {
			continue
		}
		return max(n, 0), err
	}
}

func (f rawFile) close() { syscall.Close(int(f)) }
