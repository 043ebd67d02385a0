//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"syscall"
)

func procAttr(Spec) *syscall.SysProcAttr { return nil }

// Check says why the sandbox cannot be enforced: it is Linux's.
func Check() error {
	return errors.New("the sandbox needs Linux (Landlock, seccomp and namespaces)")
}

// Proc is a sandboxed bash: none here.
type Proc struct{ Pid int }

// Wait says the sandbox needs Linux.
func (p *Proc) Wait() (int, error) { return -1, Check() }

// Start says the sandbox needs Linux.
func Start(Spec, string, []string, string, *os.File) (*Proc, error) { return nil, Check() }

// CloseAll has nothing to end here.
func CloseAll() {}
