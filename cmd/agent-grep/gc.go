package main

import (
	"math"
	"runtime"
	"runtime/debug"
)

// gcFloor is the heap a search grows to before its first collection.
const gcFloor = 64 << 20

// tuneGC sets the collector for a search. A search keeps little alive
// and allocates little in all: read buffers are reused, the output
// buffers go back to the searches once printed, and the results searched
// ahead of the printer are bounded in bytes (internal/grepfs), so a tree
// search allocates 17-25 MB (GOROOT/src; -n e, which prints as much as
// it reads, about 50 MB). Yet the default goal (4 MB) collected two or
// three times on a tree search, each time with a mark worker on one of
// the few processors the search runs on (8% of the CPU time on Go's
// source tree). So there is no collection until the heap reaches gcFloor
// (a soft limit with the percentage off), which those searches never
// reach; after that first one, a sentinel's finalizer restores a goal of
// three times the live heap without a limit, so that a search holding
// more than gcFloor alive (a large file read whole with many matches)
// does not collect back to back against the limit.
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
