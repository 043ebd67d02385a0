//go:build !linux

package jobs

import (
	"errors"
	"os"
	"syscall"

	"github.com/agentutils/agentutils/internal/lease"
)

// terminate sends SIGTERM to the supervisor pid while it holds lock
// (without pidfds a pid reused in between could be hit).
func terminate(pid int, lock string) {
	if lease.Check(lock) != nil {
		syscall.Kill(pid, syscall.SIGTERM)
	}
}

// punch is not supported: the caller empties the file instead.
func punch(*os.File, int64, int64) error { return errors.ErrUnsupported }

// seekData is off: holes read as zeros.
func seekData(_ *os.File, off int64) (int64, error) { return off, nil }
