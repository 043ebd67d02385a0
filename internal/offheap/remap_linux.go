package offheap

import "golang.org/x/sys/unix"

// remap doubles a mapping in place or elsewhere: the kernel moves its
// pages rather than copying them.
func remap(b []byte) ([]byte, bool) {
	nb, err := unix.Mremap(b[:cap(b)], 2*cap(b), unix.MREMAP_MAYMOVE)
	if err != nil {
		return nil, false
	}
	return nb[:len(b)], true
}
