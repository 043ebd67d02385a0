//go:build unix && !linux

package grepfs

import "syscall"

// Files are opened and read with the system calls directly: os.Open would
// also register each file with the poller (more calls per file).

type rawFile int

func openFile(path string) (rawFile, int64, error) {
	fd, size, err := openFD(path)
	return rawFile(fd), size, err
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
