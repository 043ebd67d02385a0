package sandbox

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Session is a running session helper (serveSession): the sandbox of one
// Spec, kept for many commands. Each command still gets its own PID,
// mount (and network) namespaces, /proc, Landlock domain and seccomp
// filter; what the helper saves is a Go process started, namespaces
// made and mounts set up per command.
type Session struct {
	conn *net.UnixConn
	cmd  *exec.Cmd
	key  string

	mu      sync.Mutex // below, and the order of a request's two writes
	next    int64
	waits   map[int64]chan reply
	running int
	err     error         // set when the helper has gone
	ended   chan struct{} // closed then
}

// Proc is a bash started by a Session.
type Proc struct {
	Pid  int
	done chan reply
}

// Wait waits for the bash to end: its exit code (-1 when a signal ended
// it) and, when it did not exit 0, an error saying how it ended.
func (p *Proc) Wait() (int, error) {
	r := <-p.done
	switch {
	case r.Error != "":
		return -1, errors.New(r.Error)
	case r.Signal != "":
		return -1, fmt.Errorf("signal: %s", r.Signal)
	case r.Code != 0:
		return r.Code, fmt.Errorf("exit status %d", r.Code)
	}
	return 0, nil
}

// StartSession starts the session helper of s and waits until it is set
// up (or says why it cannot be).
func StartSession(s Spec) (*Session, error) {
	if err := checkSpec(s); err != nil {
		return nil, err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	theirs := os.NewFile(uintptr(fds[1]), "sandbox-session")
	defer theirs.Close()
	ours := os.NewFile(uintptr(fds[0]), "sandbox-session")
	fc, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return nil, err
	}
	h := &Session{conn: fc.(*net.UnixConn), key: string(b), waits: map[int64]chan reply{}, ended: make(chan struct{})}
	// The helper needs no environment (each command brings its own): it
	// gets none of this process's (its keys).
	h.cmd = &exec.Cmd{Path: "/proc/self/exe", Args: []string{sessionName, string(b)}, Env: sessionEnv,
		Stderr: os.Stderr, ExtraFiles: []*os.File{theirs}}
	// The session's own namespaces: user, mount (and network); each
	// command gets a PID namespace of its own when it is forked.
	h.cmd.SysProcAttr = procAttr(s)
	h.cmd.SysProcAttr.Cloneflags &^= unix.CLONE_NEWPID
	if err := h.cmd.Start(); err != nil {
		h.conn.Close()
		return nil, err
	}
	ready := make(chan reply, 1)
	h.waits[0] = ready
	go h.readReplies()
	if r := <-ready; !r.Ready {
		h.Close()
		return nil, fmt.Errorf("sandbox: %s", r.Error)
	}
	return h, nil
}

// sessionEnv keeps the session helper's Go runtime small: one P, no
// cgroup scan for GOMAXPROCS.
var sessionEnv = []string{"GOMAXPROCS=1", "GODEBUG=containermaxprocs=0,updatemaxprocs=0"}

// readReplies hands each reply to the command it is for, until the
// helper goes: then every command waiting hears it.
func (h *Session) readReplies() {
	sc := bufio.NewScanner(h.conn)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		var r reply
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		h.mu.Lock()
		ch := h.waits[r.ID]
		if r.Done || r.Error != "" || r.ID == 0 {
			delete(h.waits, r.ID)
		}
		h.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
	err := h.cmd.Wait()
	h.mu.Lock()
	h.err = fmt.Errorf("sandbox: the session helper ended (%v)", err)
	for id, ch := range h.waits {
		ch <- reply{ID: id, Error: h.err.Error(), gone: true}
		delete(h.waits, id)
	}
	h.mu.Unlock()
	close(h.ended)
}

// start runs bash -c script in dir inside the session's sandbox, with env
// (TMPDIR is set to /tmp here), stdin /dev/null and out as its stdout and
// stderr; the command is already counted in h.running. Bash is PID 1 of a
// new PID namespace, in a session of its own; Pid is its pid in this
// process's namespace.
func (h *Session) start(dir string, env []string, script string, out *os.File) (*Proc, error) {
	ch := make(chan reply, 2)
	h.mu.Lock()
	if h.err != nil {
		h.running--
		h.mu.Unlock()
		return nil, fmt.Errorf("%w: %v", errGone, h.err)
	}
	h.next++
	req := request{ID: h.next, Dir: dir, Env: append(env[:len(env):len(env)], "TMPDIR=/tmp"), Script: script}
	h.waits[req.ID] = ch
	err := h.write(req, out)
	if err != nil {
		delete(h.waits, req.ID)
	}
	h.mu.Unlock()
	if err != nil {
		h.finished()
		return nil, fmt.Errorf("%w: %v", errGone, err)
	}
	r := <-ch
	if r.gone {
		h.finished()
		return nil, fmt.Errorf("%w: %s", errGone, r.Error)
	}
	if r.Error != "" {
		h.finished()
		return nil, errors.New(r.Error)
	}
	p := &Proc{Pid: r.Pid, done: make(chan reply, 1)}
	go func() { d := <-ch; h.finished(); p.done <- d }()
	return p, nil
}

func (h *Session) finished() {
	h.mu.Lock()
	h.running--
	h.mu.Unlock()
}

// write sends req and out's descriptor; h.mu is held.
func (h *Session) write(req request, out *os.File) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, _, err := h.conn.WriteMsgUnix([]byte{0}, unix.UnixRights(int(out.Fd())), nil); err != nil {
		return err
	}
	frame := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(body)), uint32(len(body)))
	_, err = h.conn.Write(append(frame, body...))
	return err
}

// Close ends the session helper: the commands still running get SIGKILL.
// It waits (up to 5 s) for the helper to end, so that its CPU time and
// its commands' count in this process's children's.
func (h *Session) Close() error {
	h.conn.CloseWrite()
	select {
	case <-h.ended:
	case <-time.After(5 * time.Second):
	}
	h.conn.Close()
	return nil
}

// CloseAll ends the session helpers Start started that run no command
// (Close): another user of the process's helpers may still be running
// one; those end with the process (their socket closes, and their
// parent-death signal).
func CloseAll() {
	shared.Lock()
	defer shared.Unlock()
	for k, h := range shared.byKey {
		if h.idle() {
			h.Close()
			delete(shared.byKey, k)
			shared.order = slices.DeleteFunc(shared.order, func(o string) bool { return o == k })
		}
	}
}

// idle says whether no command runs in h; h.mu is not held.
func (h *Session) idle() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.running == 0
}

// gone says whether h's helper has ended.
func (h *Session) gone() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err != nil
}

// maxIdle is how many idle session helpers Shared keeps.
const maxIdle = 4

var shared struct {
	sync.Mutex
	byKey map[string]*Session
	order []string // least recently used first
}

// Start runs bash -c script as Session.start does, in the session helper
// of s for this process: started on first use and kept while the process
// runs (the idle ones beyond maxIdle, least recently used first, are
// ended).
func Start(s Spec, dir string, env []string, script string, out *os.File) (*Proc, error) {
	for try := 0; ; try++ {
		h, err := sharedSession(s)
		if err != nil {
			return nil, err
		}
		p, err := h.start(dir, env, script, out)
		if !errors.Is(err, errGone) || try > 0 {
			return p, err
		}
		// The helper ended before it started the command (nothing ran):
		// once more, with a new one.
		h.markGone(err)
	}
}

// errGone says that the session helper ended before it started a command.
var errGone = errors.New("sandbox: the session helper has ended")

// markGone makes sharedSession start a new helper for h's Spec (and
// closes h's socket: what is left of the helper ends).
func (h *Session) markGone(err error) {
	h.mu.Lock()
	if h.err == nil {
		h.err = err
	}
	h.mu.Unlock()
	h.conn.Close()
}

// sharedSession is the session helper of s, its command counted.
func sharedSession(s Spec) (*Session, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	key := string(b)
	shared.Lock()
	defer shared.Unlock()
	if shared.byKey == nil {
		shared.byKey = map[string]*Session{}
	}
	h := shared.byKey[key]
	if h != nil && h.gone() {
		delete(shared.byKey, key)
		h = nil
	}
	if h == nil {
		if h, err = StartSession(s); err != nil {
			return nil, err
		}
		shared.byKey[key] = h
	}
	order := []string{}
	for _, k := range shared.order {
		if k != key {
			order = append(order, k)
		}
	}
	shared.order = append(order, key)
	h.mu.Lock()
	h.running++
	h.mu.Unlock()
	for i := 0; len(shared.byKey) > maxIdle && i < len(shared.order)-1; {
		k := shared.order[i]
		if old := shared.byKey[k]; old != nil && old.idle() {
			old.Close()
			delete(shared.byKey, k)
			shared.order = append(shared.order[:i], shared.order[i+1:]...)
			continue
		}
		i++
	}
	return h, nil
}
