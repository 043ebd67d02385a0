package main

import (
	"syscall"
	"testing"
)

func TestSealProc(t *testing.T) {
	if err := sealProc(); err != nil {
		t.Fatal(err)
	}
	r, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_GET_DUMPABLE, 0, 0)
	if errno != 0 || r != 0 {
		t.Errorf("PR_GET_DUMPABLE = %d (%v), want 0", r, errno)
	}
	// Back, for the other tests of this process.
	syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 1, 0)
}
