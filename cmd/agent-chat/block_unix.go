//go:build unix

package main

import "syscall"

// newBlock is room for n bytes of records, mapped from the kernel rather
// than taken from the Go heap. The history is held for the whole run: on
// the heap it would count as live data, and the collector, pacing itself
// against live data, would let the garbage of encoding a request grow to
// the history's size again before collecting it. Mapped pages are resident
// only once written, so a block's unused tail costs nothing. Blocks are
// never unmapped: the records, and strings decoded from them, point into
// them until the process ends.
func newBlock(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]byte, 0, n)
	}
	return b[:0]
}
