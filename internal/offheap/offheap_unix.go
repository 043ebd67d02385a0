//go:build unix

package offheap

import "golang.org/x/sys/unix"

func newBuf(n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return make([]byte, 0, n)
	}
	return b[:0]
}
