//go:build !linux

package sandbox

import (
	"errors"
	"syscall"
)

func procAttr(Spec) *syscall.SysProcAttr { return nil }

// Check says why the sandbox cannot be enforced: it is Linux's.
func Check() error {
	return errors.New("the sandbox needs Linux (Landlock, seccomp and namespaces)")
}
