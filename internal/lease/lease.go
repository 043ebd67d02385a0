// Package lease is the lease a running task holds on its id (agent-session
// run-task takes it, agent-batch checks it before it starts a task again):
// an exclusive flock(2) on OUT/leases/ID.lock, which the kernel lets go of
// when the holder ends however it ends, SIGKILL included, on this host or
// (NFS) another.
package lease

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Path is the lease file of task id in out.
func Path(out, id string) string { return filepath.Join(out, "leases", id+".lock") }

// Held is the error of Take when another process holds the lease.
type Held struct {
	Path  string
	Owner string // "pid N on HOST", as the holder wrote it
}

func (h *Held) Error() string {
	return fmt.Sprintf("%s is held by %s: the task is running", h.Path, h.Owner)
}

// Take takes the lease at path, creating it, and writes who holds it
// ("pid N on HOST"). The lease lasts as long as the returned file is open.
func Take(path, host string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b := make([]byte, 256)
		n, _ := f.ReadAt(b, 0)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &Held{Path: path, Owner: strings.TrimSpace(string(b[:n]))}
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	f.Truncate(0)
	f.WriteAt([]byte("pid "+strconv.Itoa(os.Getpid())+" on "+host+"\n"), 0)
	return f, nil
}

// Check reports the holder of the lease at path (nil when none holds it,
// or there is no lease file), taking it only for the time of the check.
func Check(path string) *Held {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	// A shared lock: checkers never see each other as the holder.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err == nil {
		return nil
	}
	b := make([]byte, 256)
	n, _ := f.ReadAt(b, 0)
	return &Held{Path: path, Owner: strings.TrimSpace(string(b[:n]))}
}
