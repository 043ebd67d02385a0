//go:build !linux

package proctree

import "syscall"

// KillTree sends sig to the process group of pid: without /proc the
// descendants that left it (setsid) are not found.
func KillTree(pid int, marker string, sig syscall.Signal) {
	if pid > 0 {
		syscall.Kill(-pid, sig)
	}
}

// Subreaper does nothing where there is no PR_SET_CHILD_SUBREAPER.
func Subreaper() error { return nil }

// Attr is the SysProcAttr of a child that has its own process group.
func Attr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// Child is nil: there is no PR_SET_PDEATHSIG here.
func Child(syscall.Signal) *syscall.SysProcAttr { return nil }

// Reap does nothing: only a subreaper inherits children it did not start.
func Reap() {}

// DieWithParent does nothing where there is no PR_SET_PDEATHSIG.
func DieWithParent(syscall.Signal) error { return nil }

// ReaderGone is nil (never ready): the pipe is not watched here.
func ReaderGone(int) <-chan struct{} { return nil }

// Killer signals the process group of pid (and pid itself).
func Killer(pid int, marker string, namespace bool) func(syscall.Signal) {
	return func(sig syscall.Signal) { KillTree(pid, marker, sig); syscall.Kill(pid, sig) }
}
