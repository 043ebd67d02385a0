package jobs

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/agentutils/agentutils/internal/lease"
)

// terminate sends SIGTERM to the supervisor pid while it holds lock: a
// pidfd is opened first, then the lock checked, so that a pid reused
// after the supervisor ended is never signalled.
func terminate(pid int, lock string) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	if lease.Check(lock) != nil {
		unix.PidfdSendSignal(fd, unix.SIGTERM, nil, 0)
	}
}

// punch makes n bytes of f from off a hole (fallocate(2)), its length
// kept.
func punch(f *os.File, off, n int64) error {
	return unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n)
}

// seekData is the offset of the first data at or after off (lseek(2)
// SEEK_DATA); an error when there is only a hole after it.
func seekData(f *os.File, off int64) (int64, error) {
	return unix.Seek(int(f.Fd()), off, unix.SEEK_DATA)
}
