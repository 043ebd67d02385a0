package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"syscall"
	"unsafe"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// The session helper: one process per sandbox boundary (Spec) that sets
// up what every call shares once — the user, mount and network
// namespaces (the network one empty unless the network is kept), the
// mounts, the Landlock rules' paths and the seccomp program — and then
// forks each call's bash into new PID and mount namespaces, mounting the
// call's /proc and restricting it there with a Landlock ruleset of its
// own and the filter (forkExec), as helper does for a command started
// alone. It reads its requests on descriptor 3, a unix socket:
// one byte carrying bash's stdout (SCM_RIGHTS), then a length and a JSON
// request; it answers JSON lines: the pid of each bash, then its end.

const sessionName = "agentutils-sandbox-session"

// request is one command for the session helper.
type request struct {
	ID     int64    `json:"id"`
	Dir    string   `json:"dir"`
	Env    []string `json:"env"`
	Script string   `json:"script"`
}

// reply is the session helper's answer: ready (id 0), a bash's pid, or
// its end (exit code, -1 when a signal ended it).
type reply struct {
	ID     int64  `json:"id"`
	Ready  bool   `json:"ready,omitempty"`
	Pid    int    `json:"pid,omitempty"`
	Error  string `json:"error,omitempty"`
	Done   bool   `json:"done,omitempty"`
	Code   int    `json:"code"`
	Signal string `json:"signal,omitempty"`
	gone   bool   // the client's: the helper ended before it answered
}

// server is the session helper's state, prepared once.
type server struct {
	s      Spec
	conn   int
	wmu    sync.Mutex
	wg     sync.WaitGroup // the calls running
	mu     sync.Mutex
	pids   map[int]bool // their bash
	flags  uintptr
	rules  *heldRules
	filter []unix.SockFilter
	fprog  unix.SockFprog
	null   int
	bash   *byte
	proc   *byte
	procFS *byte
}

// serveSession runs the session helper; it returns when its socket closes
// (its bash processes then get SIGKILL: their parent-death signal).
func serveSession(specJSON string) error {
	srv := &server{conn: 3, pids: map[int]bool{}}
	// The socket came without close-on-exec (ExtraFiles): a bash holding
	// it could read other calls' requests and their descriptors.
	unix.CloseOnExec(srv.conn)
	err := srv.setup(specJSON)
	if err != nil {
		srv.send(reply{Error: err.Error()})
		return err
	}
	srv.send(reply{Ready: true})
	for {
		req, out, err := srv.read()
		if err == io.EOF {
			// Closed: the bash still running are killed and reaped (their
			// CPU time counts in this process's, and so in its parent's).
			srv.mu.Lock()
			for pid := range srv.pids {
				unix.Kill(pid, unix.SIGKILL)
			}
			srv.mu.Unlock()
			srv.wg.Wait()
			os.Exit(0)
		}
		if err != nil {
			return err
		}
		srv.wg.Add(1)
		go srv.run(req, out)
	}
}

func (srv *server) setup(specJSON string) error {
	if err := json.Unmarshal([]byte(specJSON), &srv.s); err != nil {
		return fmt.Errorf("spec: %v", err)
	}
	if err := mounts(srv.s); err != nil {
		return err
	}
	var err error
	if srv.rules, err = holdRules(srv.s); err != nil {
		return fmt.Errorf("landlock: %v", err)
	}
	if srv.filter, err = seccompFilter(srv.s); err != nil {
		return fmt.Errorf("seccomp: %v", err)
	}
	srv.fprog = unix.SockFprog{Len: uint16(len(srv.filter)), Filter: &srv.filter[0]}
	if srv.null, err = unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0); err != nil {
		return err
	}
	// The network namespace is the session's (made empty by
	// StartSession when the network is off): one per call cost more than
	// the rest of a call's sandbox.
	srv.flags = unix.CLONE_NEWPID | unix.CLONE_NEWNS
	if srv.bash, err = syscall.BytePtrFromString(srv.s.Bash); err != nil {
		return err
	}
	srv.proc, srv.procFS = &[]byte("/proc\x00")[0], &[]byte("proc\x00")[0]
	return nil
}

// read is the next request and the descriptor that came with it.
func (srv *server) read() (request, int, error) {
	var req request
	b := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := unix.Recvmsg(srv.conn, b, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return req, -1, err
	}
	if n == 0 {
		return req, -1, io.EOF
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return req, -1, fmt.Errorf("request without its descriptor")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return req, -1, fmt.Errorf("request without its descriptor")
	}
	var size [4]byte
	if err := readFull(srv.conn, size[:]); err != nil {
		unix.Close(fds[0])
		return req, -1, err
	}
	body := make([]byte, binary.BigEndian.Uint32(size[:]))
	if err := readFull(srv.conn, body); err != nil {
		unix.Close(fds[0])
		return req, -1, err
	}
	if err := json.Unmarshal(body, &req); err != nil {
		unix.Close(fds[0])
		return req, -1, err
	}
	return req, fds[0], nil
}

func readFull(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Read(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return io.ErrUnexpectedEOF
		}
		b = b[n:]
	}
	return nil
}

func (srv *server) send(r reply) {
	b, _ := json.Marshal(r)
	b = append(b, '\n')
	srv.wmu.Lock()
	defer srv.wmu.Unlock()
	for len(b) > 0 {
		n, err := unix.Write(srv.conn, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return
		}
		b = b[n:]
	}
}

// run starts req's bash, says its pid, waits for it and says its end.
func (srv *server) run(req request, out int) {
	defer srv.wg.Done()
	pid, err := srv.start(req, out)
	unix.Close(out)
	if err != nil {
		srv.send(reply{ID: req.ID, Error: err.Error()})
		return
	}
	srv.mu.Lock()
	srv.pids[pid] = true
	srv.mu.Unlock()
	srv.send(reply{ID: req.ID, Pid: pid})
	var ws unix.WaitStatus
	for {
		_, err = unix.Wait4(pid, &ws, 0, nil)
		if err != unix.EINTR {
			break
		}
	}
	srv.mu.Lock()
	delete(srv.pids, pid)
	srv.mu.Unlock()
	r := reply{ID: req.ID, Done: true, Code: ws.ExitStatus()}
	if err != nil {
		r.Error = err.Error()
	} else if ws.Signaled() {
		r.Code, r.Signal = -1, ws.Signal().String()
	}
	srv.send(r)
}

// start forks and execs req's bash (forkExec), with the helper's
// ruleset and filter, and waits for the exec or the step that failed.
func (srv *server) start(req request, out int) (int, error) {
	argv, err := syscall.SlicePtrFromStrings([]string{"bash", "-c", req.Script})
	if err != nil {
		return 0, err
	}
	envp, err := syscall.SlicePtrFromStrings(req.Env)
	if err != nil {
		return 0, err
	}
	dir, err := syscall.BytePtrFromString(req.Dir)
	if err != nil {
		return 0, err
	}
	// A ruleset of the call's own, which the child completes with its /proc.
	ruleset, rflags, err := srv.rules.newRuleset()
	if err != nil {
		return 0, fmt.Errorf("landlock: %v", err)
	}
	defer unix.Close(ruleset)
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return 0, err
	}
	defer unix.Close(p[0])
	c := &child{flags: srv.flags, bash: srv.bash, dir: dir, argv: &argv[0], envp: &envp[0], out: uintptr(out),
		null: uintptr(srv.null), ruleset: uintptr(ruleset), rflags: uintptr(rflags), fprog: &srv.fprog,
		proc: srv.proc, procFS: srv.procFS, errPipe: uintptr(p[1])}
	c.procRule.access = llsys.AccessFSExecute | llsys.AccessFSReadFile | llsys.AccessFSReadDir
	// The parent-death signal follows the thread that forks: this one,
	// which stays (the goroutine is unlocked after, the thread kept).
	runtime.LockOSThread()
	syscall.ForkLock.Lock()
	pid, errno := forkExec(c)
	syscall.ForkLock.Unlock()
	runtime.UnlockOSThread()
	unix.Close(p[1])
	runtime.KeepAlive(argv)
	runtime.KeepAlive(envp)
	runtime.KeepAlive(c)
	if errno != 0 {
		return 0, fmt.Errorf("fork: %v", errno)
	}
	var buf [8]byte
	n, _ := unix.Read(p[0], buf[:])
	if n == 0 {
		return int(pid), nil
	}
	var ws unix.WaitStatus
	unix.Wait4(int(pid), &ws, 0, nil)
	step, e := *(*uint32)(unsafe.Pointer(&buf[0])), syscall.Errno(*(*uint32)(unsafe.Pointer(&buf[4])))
	if n != 8 || int(step) >= len(stepNames) {
		return 0, errors.New("the sandboxed bash failed to start")
	}
	if step == stepChdir {
		return 0, fmt.Errorf("chdir %s: %v", req.Dir, e)
	}
	if step == stepExec {
		return 0, fmt.Errorf("exec %s: %v", srv.s.Bash, e)
	}
	return 0, fmt.Errorf("%s: %v", stepNames[step], e)
}
