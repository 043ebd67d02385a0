package main

import (
	"math"
	"runtime"
	"runtime/debug"
)

// gcFloor is the heap a search grows to before its first collection.
const gcFloor = 64 << 20

// tuneGC sets the collector for a search. A search keeps little alive
// (read buffers are reused) and most allocate a few MB in all, yet the
// default goal (4 MB) collected two or three times on a tree search, each
// time with a mark worker on one of the few processors the search runs on
// (8% of the CPU time on Go's source tree). So there is no collection
// until the heap reaches gcFloor (a soft limit with the percentage off);
// after that first one, a sentinel's finalizer restores a goal of three
// times the live heap without a limit, so that a search holding more than
// gcFloor alive (a large file with many matches) does not collect back to
// back against the limit.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(gcFloor)
	sentinel := new([16]byte)
	runtime.SetFinalizer(sentinel, func(*[16]byte) {
		debug.SetGCPercent(200)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}
