package grepfs

import (
	"errors"
	"fmt"
	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
	"runtime/debug"
	"syscall"
	"unsafe"
)

// A large regular file on a local file system whose search is a literal
// scan (search.LiteralScan) is searched in a memory map of it rather than
// read: the kernel's copy of each page into a read buffer, two thirds of
// a literal search's time, is saved (rg maps the files it names; we map
// the large files a walk finds too, which changes nothing but speed: the
// binary rules stay rg's of the file's mode, SearchOptions.Slice). The
// pages are mapped as the search touches them (the kernel maps 64 KiB
// around each fault, as for rg) and dropped a window behind it, so the
// pages mapped stay about a window whatever the file's size (peak RSS 18
// MB on the 345 MB bench file; 53 MB with 16 MiB windows, for no speed).
// They were mapped a window ahead too (MADV_POPULATE_READ), which cost
// more than the faults: the kernel walks each page of the window again
// after the fault that maps it, and a call of a millisecond made the Go
// runtime hand the processor to another thread and back (issue #38's
// fourth pass: --json of a Greek word over 100 MB, 36 → 28 ms of CPU).
//
// A file truncated while it is mapped makes the pages past its new end
// fault (SIGBUS): the worker touching the map panics instead of the
// process dying (debug.SetPanicOnFault), and the fault becomes the file's
// error, after the parts of its result already printed.

// mapWindow is how far ahead of the search the pages are mapped, and how
// far behind it they are dropped (a variable for the tests).
var mapWindow int64 = 4 << 20

// errTruncated is the error of a file that shrank while it was searched.
var errTruncated = errors.New("the file shrank while it was searched")

// searchMapped searches the opened file f of the given size in a memory
// map, emitting as grep.SearchMapped does. It reports false when the file
// cannot be mapped (the caller reads it).
func searchMapped(m *regex.Matcher, path string, f rawFile, size int64, o search.SearchOptions, emit func(search.FileResult) bool) bool {
	if !f.raw || size <= 0 || int64(int(size)) != size {
		return false
	}
	// private and writable: the NULs the buffered rules turn into line
	// ends are written into copies of their pages, never into the file
	data, err := syscall.Mmap(f.fd, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return false
	}
	defer syscall.Munmap(data)
	lo := uintptr(unsafe.Pointer(&data[0]))
	var dropped int64 // the pages dropped behind: [0, dropped)
	done := func(off int64) {
		if off-dropped >= mapWindow {
			end := off &^ (pageSize - 1)
			madvise(data[dropped:end], syscall.MADV_DONTNEED)
			dropped = end
		}
	}
	if at := searchFaulting(lo, len(data), func() { search.SearchMapped(m, path, data, o, done, emit) }); at >= 0 {
		emit(search.FileResult{Path: path, Err: fmt.Errorf("%w (truncated?): byte %d is past its end now", errTruncated, at), BinaryOffset: -1})
	}
	return true
}

// searchFaulting runs search, and reports the offset in [lo, lo+n) where
// it stopped at a fault (a page of the map past the file's end), -1
// when it did not; a fault elsewhere panics on.
func searchFaulting(lo uintptr, n int, search func()) (at int64) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if a, ok := r.(interface{ Addr() uintptr }); ok && a.Addr() >= lo && a.Addr() < lo+uintptr(n) {
			at = int64(a.Addr() - lo)
			return
		}
		panic(r)
	}()
	search()
	return -1
}

// pageSize is the system's (madvise wants aligned starts: 16 or 64 KiB
// pages on some arm64 kernels).
var pageSize = int64(syscall.Getpagesize())

// madvise advises the kernel on the pages of b; a refusal (an older
// kernel) changes nothing but speed. It is a raw call: a few hundred
// microseconds in the kernel, too short to be worth the runtime's hand-off
// of the processor (syscall.Syscall lets sysmon give it to another thread
// after 20 µs, which wakes one to take it).
func madvise(b []byte, advice int) {
	if len(b) > 0 {
		syscall.RawSyscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(advice))
	}
}
