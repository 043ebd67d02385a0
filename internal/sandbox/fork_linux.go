package sandbox

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The runtime's fork hooks, as package syscall uses them (go.dev/issue/67401
// keeps them reachable): signals blocked across the fork, the stack guard
// spoiled so that the child cannot grow its stack, handlers reset in the
// child before exec.

//go:linkname runtime_BeforeFork syscall.runtime_BeforeFork
func runtime_BeforeFork()

//go:linkname runtime_AfterFork syscall.runtime_AfterFork
func runtime_AfterFork()

//go:linkname runtime_AfterForkInChild syscall.runtime_AfterForkInChild
func runtime_AfterForkInChild()

// child is one sandboxed bash, prepared by the session helper before the
// fork: every pointer and number the child needs, so that between fork
// and exec it makes system calls only (no allocation, no stack growth).
type child struct {
	flags        uintptr // clone flags: new PID and mount namespaces (and network)
	bash, dir    *byte
	argv, envp   **byte
	out, null    uintptr // bash's stdout and stderr; its stdin
	ruleset      uintptr // the Landlock ruleset and its flags
	rflags       uintptr
	fprog        *unix.SockFprog
	proc, procFS *byte // "/proc", "proc"
	// procRule is the rule that lets bash read its /proc, added to the
	// (call's own) ruleset once the child mounted it: a rule on the
	// /proc the helper sees does not reach a mount over it.
	procRule struct {
		access uint64
		fd     int32
		_      [4]byte
	}
	errPipe uintptr
	errbuf  [2]uint32 // the failed step and its errno, written to errPipe
}

// atFDCWD is AT_FDCWD as a system call's argument.
const atFDCWD = ^uintptr(99) // -100

// The steps of forkExec, named in its error.
const (
	stepSetsid = iota + 1
	stepPdeathsig
	stepProc
	stepChdir
	stepFDs
	stepNoNewPrivs
	stepLandlock
	stepSeccomp
	stepCaps
	stepExec
)

var stepNames = [...]string{"", "setsid", "parent-death signal", "mount /proc", "chdir", "descriptors", "no_new_privs", "landlock", "seccomp", "capabilities", "exec"}

// forkExec forks c (a process copy, not a vfork: the child writes its own
// copy of c) and, in the child, does what helper does for a command
// re-executed alone, in the same order: a session of its own, SIGKILL
// when the helper dies, a /proc of its PID namespace (it is PID 1 there,
// so that the kernel kills what it leaves when it exits), the working
// directory, descriptors, no_new_privs, Landlock, seccomp, no ambient
// capabilities; then exec bash. A failed step is written to c.errPipe.
//
//go:norace
//go:nosplit
func forkExec(c *child) (pid uintptr, errno syscall.Errno) {
	runtime_BeforeFork()
	pid, _, errno = syscall.RawSyscall6(syscall.SYS_CLONE, c.flags|uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	if errno != 0 || pid != 0 {
		runtime_AfterFork()
		return pid, errno
	}
	runtime_AfterForkInChild()
	var step uint32
	if _, _, errno = syscall.RawSyscall(syscall.SYS_SETSID, 0, 0, 0); errno != 0 {
		step = stepSetsid
		goto fail
	}
	if _, _, errno = syscall.RawSyscall(syscall.SYS_PRCTL, unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); errno != 0 {
		step = stepPdeathsig
		goto fail
	}
	if _, _, errno = syscall.RawSyscall6(syscall.SYS_MOUNT, uintptr(unsafe.Pointer(c.procFS)), uintptr(unsafe.Pointer(c.proc)),
		uintptr(unsafe.Pointer(c.procFS)), procFlags, 0, 0); errno != 0 {
		step = stepProc
		goto fail
	}
	if fd, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, atFDCWD, uintptr(unsafe.Pointer(c.proc)), unix.O_PATH|unix.O_CLOEXEC, 0, 0, 0); e != 0 {
		errno, step = e, stepProc
		goto fail
	} else {
		c.procRule.fd = int32(fd)
	}
	if _, _, errno = syscall.RawSyscall6(unix.SYS_LANDLOCK_ADD_RULE, c.ruleset, unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&c.procRule)), 0, 0, 0); errno != 0 {
		step = stepLandlock
		goto fail
	}
	if _, _, errno = syscall.RawSyscall(syscall.SYS_CHDIR, uintptr(unsafe.Pointer(c.dir)), 0, 0); errno != 0 {
		step = stepChdir
		goto fail
	}
	if _, _, errno = syscall.RawSyscall(syscall.SYS_DUP3, c.null, 0, 0); errno != 0 {
		step = stepFDs
		goto fail
	}
	if _, _, errno = syscall.RawSyscall(syscall.SYS_DUP3, c.out, 1, 0); errno != 0 {
		step = stepFDs
		goto fail
	}
	if _, _, errno = syscall.RawSyscall(syscall.SYS_DUP3, c.out, 2, 0); errno != 0 {
		step = stepFDs
		goto fail
	}
	if _, _, errno = syscall.RawSyscall6(syscall.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0); errno != 0 {
		step = stepNoNewPrivs
		goto fail
	}
	if _, _, errno = syscall.RawSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, c.ruleset, c.rflags, 0); errno != 0 {
		step = stepLandlock
		goto fail
	}
	if _, _, errno = syscall.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(c.fprog))); errno != 0 {
		step = stepSeccomp
		goto fail
	}
	if _, _, errno = syscall.RawSyscall6(syscall.SYS_PRCTL, unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0, 0); errno != 0 {
		step = stepCaps
		goto fail
	}
	_, _, errno = syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(c.bash)), uintptr(unsafe.Pointer(c.argv)), uintptr(unsafe.Pointer(c.envp)))
	step = stepExec
fail:
	c.errbuf[0], c.errbuf[1] = step, uint32(errno)
	syscall.RawSyscall(syscall.SYS_WRITE, c.errPipe, uintptr(unsafe.Pointer(&c.errbuf[0])), 8)
	for {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 126, 0, 0)
	}
}
