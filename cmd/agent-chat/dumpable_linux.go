package main

import "syscall"

// sealProc makes this process non-dumpable (prctl PR_SET_DUMPABLE 0): its
// /proc/PID/environ and cmdline, which hold the keys, become unreadable to
// other processes of the same user, the tools among them (root's
// CAP_SYS_PTRACE still reads them; the sandbox hides them too). An exec
// makes a process dumpable again, so the tools are unchanged.
func sealProc() error {
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
