package checkpoint

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	cp "github.com/agentutils/agentutils/lib/checkpoint"
)

// The watcher (agent-session watch) holds an inotify watch on every
// directory of a workspace and remembers, per path, when it last saw it
// change; a checkpoint asks it over a socket what changed since the token
// its manifest holds, and stats only that. As git's fsmonitor daemon and
// watchman do, an answer is made current with a cookie: the watcher
// creates a file in a directory it watches with the same inotify instance
// once the question came, and answers when that file's event comes back:
// every change made before the question (a bash child's write included)
// was queued before it. When it cannot vouch (the queue overflowed, a
// watch could not be added, another watcher's token) it says so and the
// checkpoint scans the whole tree.

const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_ATTRIB |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_CLOSE_WRITE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW

// maxDirty bounds the paths remembered: past it the watcher forgets them
// and the next checkpoint scans everything.
const maxDirty = 1 << 18

type watchEvent struct {
	wd   int32
	mask uint32
	name string
}

type watchQuestion struct {
	since string
	reply chan watchReply
}

// watchReply is the watcher's answer: the paths to scan again since the
// token asked about (each a subtree: a file, or a directory and all
// below), and the token the answer is current to. Fresh: the watcher
// cannot say (scan everything).
type watchReply struct {
	Token string   `json:"token,omitempty"`
	Fresh bool     `json:"fresh,omitempty"`
	Paths []string `json:"paths,omitempty"`
}

type watcher struct {
	fd       int
	root     string
	exclude  []string
	wds      map[int32]string // directory watched, relative ("" the root)
	unwatch  map[string]bool  // directories no watch could be put on: always scanned
	cookies  string
	cookieWd int32
	epoch    string
	seq      uint64
	lost     uint64 // a token before it cannot be answered (overflow)
	broken   string // why no token can be answered any more
	dirty    map[string]uint64
	pending  map[string]watchQuestion
	nCookie  int
	warn     func(string)
}

// Watch watches root until ctx ends (agent-session watch): it serves the
// checkpoints of this store and root. ready is called once every
// directory is watched, with their count.
func (s Store) Watch(ctx context.Context, root string, ready func(dirs int), warn func(string)) error {
	l, err := net.Listen("unix", s.watchAddr(root))
	if err != nil {
		if errors.Is(err, unix.EADDRINUSE) {
			return fmt.Errorf("%s is watched already (by another agent-session watch)", root)
		}
		return err
	}
	defer l.Close()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("inotify: %v", err)
	}
	defer unix.Close(fd)
	w := &watcher{fd: fd, root: root, exclude: s.Exclude, wds: map[int32]string{}, unwatch: map[string]bool{},
		dirty: map[string]uint64{}, pending: map[string]watchQuestion{}, warn: warn,
		epoch: strconv.FormatInt(time.Now().UnixNano(), 36) + "." + strconv.Itoa(os.Getpid())}
	if w.cookies, err = os.MkdirTemp("", "agentutils-watch-"); err != nil {
		return err
	}
	defer os.RemoveAll(w.cookies)
	cwd, err := unix.InotifyAddWatch(fd, w.cookies, unix.IN_CREATE)
	if err != nil {
		return fmt.Errorf("inotify: %v", err)
	}
	w.cookieWd = int32(cwd)
	if err := w.addTree(""); err != nil {
		return err
	}
	ready(len(w.wds))
	events := make(chan []watchEvent, 16)
	go readEvents(fd, events)
	questions := make(chan watchQuestion)
	go serveWatch(l, questions)
	for {
		select {
		case <-ctx.Done():
			return nil
		case evs, ok := <-events:
			if !ok {
				return errors.New("inotify: the event queue could not be read")
			}
			for _, e := range evs {
				w.event(e)
			}
		case q := <-questions:
			w.ask(q)
		}
	}
}

// watchAddr is the watcher's socket for root: an abstract one (no file;
// gone with the process), named by the store and the root.
func (s Store) watchAddr(root string) string {
	return "@agentutils-watch-" + filepath.Base(s.manifestPath(s.Manifests+"\x00"+root))
}

// addTree watches directory rel and every directory below it: the watch
// first, then the listing, so that a directory made meanwhile is either
// listed or reported.
func (w *watcher) addTree(rel string) error {
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	wd, err := unix.InotifyAddWatch(w.fd, abs, watchMask)
	switch {
	case errors.Is(err, unix.ENOSPC):
		return fmt.Errorf("inotify: no watch left for %s (fs.inotify.max_user_watches)", abs)
	case errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR):
		return nil // gone or replaced: its event comes
	case err != nil:
		w.unwatch[rel] = true
		return nil
	}
	w.wds[int32(wd)] = rel
	d, err := os.Open(abs)
	if err != nil {
		return nil
	}
	ents, _ := d.ReadDir(-1)
	d.Close()
	for _, e := range ents {
		if !e.IsDir() || e.Name() == ".git" {
			continue
		}
		p := joinRel(rel, e.Name())
		if w.excluded(p) {
			continue
		}
		if err := w.addTree(p); err != nil {
			return err
		}
	}
	return nil
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func (w *watcher) excluded(rel string) bool {
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	for _, x := range w.exclude {
		if abs == x {
			return true
		}
	}
	return false
}

// event takes one inotify event: the path it names is remembered as
// changed; a directory that came is watched, one that went is not.
func (w *watcher) event(e watchEvent) {
	if e.mask&unix.IN_Q_OVERFLOW != 0 {
		w.forget("the inotify queue overflowed")
		return
	}
	if e.wd == w.cookieWd {
		if q, ok := w.pending[e.name]; ok && e.mask&unix.IN_CREATE != 0 {
			delete(w.pending, e.name)
			os.Remove(filepath.Join(w.cookies, e.name))
			q.reply <- w.answer(q.since)
		}
		return
	}
	dir, ok := w.wds[e.wd]
	if !ok {
		return // a watch removed, its last events
	}
	if e.mask&unix.IN_IGNORED != 0 {
		delete(w.wds, e.wd)
		return
	}
	if e.name == "" { // the directory itself
		if dir == "" && e.mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0 {
			w.broken = "the workspace was moved or removed"
		}
		return
	}
	if e.name == ".git" {
		return
	}
	p := joinRel(dir, e.name)
	if w.excluded(p) {
		return
	}
	w.seq++
	w.dirty[p] = w.seq
	if len(w.dirty) > maxDirty {
		w.forget("too many paths changed")
	}
	if e.mask&unix.IN_ISDIR == 0 {
		return
	}
	if e.mask&(unix.IN_MOVED_FROM|unix.IN_DELETE) != 0 {
		for wd, r := range w.wds {
			if r == p || cp.Under(r, p) {
				unix.InotifyRmWatch(w.fd, uint32(wd))
				delete(w.wds, wd)
			}
		}
	}
	if e.mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 {
		if err := w.addTree(p); err != nil {
			w.broken = err.Error()
			w.warn(err.Error() + ": every checkpoint scans the whole tree")
		}
	}
}

// forget drops what the watcher remembers: a token from before cannot be
// answered; the questions waiting (their cookie may be lost) are answered
// so.
func (w *watcher) forget(why string) {
	w.seq++
	w.lost = w.seq
	clear(w.dirty)
	w.warn(why + ": the next checkpoint scans the whole tree")
	for name, q := range w.pending {
		delete(w.pending, name)
		os.Remove(filepath.Join(w.cookies, name))
		q.reply <- watchReply{Token: w.token(), Fresh: true}
	}
}

func (w *watcher) token() string { return w.epoch + ":" + strconv.FormatUint(w.seq, 10) }

// ask makes a question's cookie; the answer goes when its event comes.
func (w *watcher) ask(q watchQuestion) {
	w.nCookie++
	name := "c" + strconv.Itoa(w.nCookie)
	f, err := os.Create(filepath.Join(w.cookies, name))
	if err != nil {
		q.reply <- watchReply{Fresh: true}
		return
	}
	f.Close()
	w.pending[name] = q
}

// answer is what changed since token since, now that every event queued
// before the question was taken.
func (w *watcher) answer(since string) watchReply {
	if w.broken != "" {
		return watchReply{Fresh: true}
	}
	r := watchReply{Token: w.token()}
	epoch, n, ok := strings.Cut(since, ":")
	seq, err := strconv.ParseUint(n, 10, 64)
	if !ok || err != nil || epoch != w.epoch || seq < w.lost {
		r.Fresh = true
		return r
	}
	r.Paths = []string{}
	for p, at := range w.dirty {
		if at > seq {
			r.Paths = append(r.Paths, p)
		}
	}
	for p := range w.unwatch {
		r.Paths = append(r.Paths, p)
	}
	return r
}

// readEvents reads the inotify queue into events until it fails.
func readEvents(fd int, events chan<- []watchEvent) {
	defer close(events)
	buf := make([]byte, 256<<10)
	for {
		n, err := unix.Read(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			return
		}
		var evs []watchEvent
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			raw := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(raw.Len)]
			if i := strings.IndexByte(string(name), 0); i >= 0 {
				name = name[:i]
			}
			evs = append(evs, watchEvent{wd: raw.Wd, mask: raw.Mask, name: string(name)})
			off += unix.SizeofInotifyEvent + int(raw.Len)
		}
		events <- evs
	}
}

// serveWatch answers each connection's question (one JSON line, the
// token) with one JSON line; only this user's processes are answered.
func serveWatch(l net.Listener, questions chan<- watchQuestion) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			if !sameUser(c) {
				return
			}
			c.SetDeadline(time.Now().Add(watchWait))
			line, err := bufio.NewReader(c).ReadBytes('\n')
			if err != nil {
				return
			}
			var since string
			if json.Unmarshal(line, &since) != nil {
				return
			}
			q := watchQuestion{since: since, reply: make(chan watchReply, 1)}
			questions <- q
			r := <-q.reply
			data, _ := json.Marshal(r)
			c.Write(append(data, '\n'))
		}()
	}
}

func sameUser(c net.Conn) bool {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	var cred *unix.Ucred
	raw.Control(func(fd uintptr) {
		cred, err = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	})
	return err == nil && cred != nil && int(cred.Uid) == os.Getuid()
}

// watchWait is how long a checkpoint waits for the watcher before it
// scans the whole tree (a watcher stopped, say).
const watchWait = 5 * time.Second

// askWatcher asks root's watcher what changed since token since; ok is
// false when no watcher answers.
func (s Store) askWatcher(root, since string) (watchReply, bool) {
	c, err := net.DialTimeout("unix", s.watchAddr(root), watchWait)
	if err != nil {
		return watchReply{}, false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(watchWait))
	q, _ := json.Marshal(since)
	if _, err := c.Write(append(q, '\n')); err != nil {
		return watchReply{}, false
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	var r watchReply
	if err != nil || json.Unmarshal(line, &r) != nil {
		return watchReply{}, false
	}
	return r, true
}
