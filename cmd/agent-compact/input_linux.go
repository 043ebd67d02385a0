//go:build linux

package main

import "golang.org/x/sys/unix"

// newInput is room for n bytes of stdin, mapped from the kernel rather than
// taken from the Go heap: a long session's bytes then neither count as
// live data for the collector's pacing nor get copied when the room grows
// (growInput remaps them). Pages are resident only once written. The
// mapping is never released: the entries point into it until the process
// ends.
func newInput(n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return make([]byte, 0, n)
	}
	return b[:0]
}

// growInput doubles b's room, keeping its bytes: the kernel moves the
// mapping's pages rather than copying them.
func growInput(b []byte) []byte {
	if nb, err := unix.Mremap(b[:cap(b)], 2*cap(b), unix.MREMAP_MAYMOVE); err == nil {
		return nb[:len(b)]
	}
	return growHeap(b) // not one of our mappings (newInput fell back to the heap)
}
