package proctree

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Descendants lists the processes below pid in the parent tree, and
// those whose environment carries marker (a setsid or double-forked child
// whose parent has gone, so that it hangs under init now, still inherited
// it); never this process. A process that cleared its environment and
// lost its parent is not found. pid 0 looks for the marker alone.
func Descendants(pid int, marker string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	var found []int
	seen := map[int]bool{}
	me := os.Getpid()
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil || p == me {
			continue
		}
		if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			// pid (comm) state ppid ...: comm may hold spaces and parens
			if i := bytes.LastIndexByte(st, ')'); i > 0 {
				if f := strings.Fields(string(st[i+1:])); len(f) > 1 {
					parent[p], _ = strconv.Atoi(f[1])
				}
			}
		}
		if marker == "" {
			continue
		}
		if env, err := os.ReadFile("/proc/" + e.Name() + "/environ"); err == nil && bytes.Contains(env, []byte("\x00"+marker+"\x00")) {
			found, seen[p] = append(found, p), true
		}
	}
	for p := range parent {
		for q, n := p, 0; pid > 0 && q > 1 && n < 64; q, n = parent[q], n+1 {
			if q == pid && !seen[p] {
				found, seen[p] = append(found, p), true
				break
			}
		}
	}
	return found
}

// KillTree sends sig to the process group of pid (pid > 0) and to every
// process Descendants finds, until a scan finds none (new forks race the
// first scans) or after a few rounds.
func KillTree(pid int, marker string, sig syscall.Signal) {
	if pid > 0 {
		syscall.Kill(-pid, sig)
	}
	for range 8 {
		ps := Descendants(pid, marker)
		if len(ps) == 0 {
			return
		}
		for _, p := range ps {
			syscall.Kill(p, sig)
		}
		if sig != syscall.SIGKILL {
			return
		}
	}
}

// Killer is how to signal the process tree of a command started at pid
// with marker in its environment: its process group and every descendant
// (KillTree); or, when it is PID 1 of a PID namespace of its own (the
// sandbox's bash), its process group and itself, the kernel killing the
// rest of the namespace when it dies.
func Killer(pid int, marker string, namespace bool) func(syscall.Signal) {
	if namespace {
		return func(sig syscall.Signal) { syscall.Kill(-pid, sig); syscall.Kill(pid, sig) }
	}
	return func(sig syscall.Signal) { KillTree(pid, marker, sig) }
}

// Subreaper makes this process the parent of every orphan below it (a
// tool's `sleep 30 &` whose shell has exited), rather than init, so that
// they stay its descendants (PR_SET_CHILD_SUBREAPER).
func Subreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// Attr is the SysProcAttr of a child that has its own process group and
// gets SIGKILL when this process dies, however it dies (PR_SET_PDEATHSIG).
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// Child is the SysProcAttr of a child that gets sig when this process
// dies, however it dies (PR_SET_PDEATHSIG), in this process group.
func Child(sig syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: sig}
}

// Reap collects the exit status of every child that has ended (the
// orphans a subreaper inherited), without waiting for the others.
func Reap() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}

// DieWithParent has the kernel send this process sig when its parent dies
// (PR_SET_PDEATHSIG on itself), and sends it now if the parent died while
// the call was made.
func DieWithParent(sig syscall.Signal) error {
	ppid := os.Getppid()
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(sig), 0, 0, 0); err != nil {
		return err
	}
	if os.Getppid() != ppid {
		return syscall.Kill(os.Getpid(), sig)
	}
	return nil
}

// ReaderGone returns a channel closed when the reading end of fd (a pipe
// or a socket: a job's stdout under sshd) is closed by every process that
// held it, as when the ssh connection of a remote job goes; nil (never
// ready) when fd is neither, a file or a terminal say.
func ReaderGone(fd int) <-chan struct{} {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return nil
	}
	if t := st.Mode & unix.S_IFMT; t != unix.S_IFIFO && t != unix.S_IFSOCK {
		return nil
	}
	gone := make(chan struct{})
	go func() {
		// No events asked for: poll returns on POLLERR (a pipe without
		// readers) or POLLHUP (a socket whose peer closed) alone.
		fds := []unix.PollFd{{Fd: int32(fd)}}
		n, err := unix.Poll(fds, -1)
		for err == unix.EINTR {
			n, err = unix.Poll(fds, -1)
		}
		if err == nil && n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			close(gone)
		}
	}()
	return gone
}
