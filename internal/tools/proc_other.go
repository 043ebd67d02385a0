//go:build !linux

package tools

import "syscall"

// killTree sends sig to the process group of pid: without /proc the
// descendants that left it (setsid) are not found.
func killTree(pid int, marker string, sig syscall.Signal) {
	syscall.Kill(-pid, sig)
}
