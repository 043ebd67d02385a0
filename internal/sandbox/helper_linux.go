package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/agentutils/agentutils/lib/sandbox"
)

// init runs the helper when this binary was started as one (Command):
// it never returns then.
func init() {
	if len(os.Args) < 2 || (os.Args[0] != helperName && os.Args[0] != sessionName) {
		return
	}
	if os.Args[0] == sessionName {
		err := serveSession(os.Args[1])
		fmt.Fprintf(os.Stderr, "agentutils sandbox: %v\n", err)
		os.Exit(126)
	}
	err := helper(os.Args[1], os.Args[2:])
	fmt.Fprintf(os.Stderr, "agentutils sandbox: %v\n", err)
	os.Exit(126)
}

// helper sets the sandbox up, in order: mounts (credential stores hidden,
// the private /tmp, fresh /run, /dev/shm and /proc, .git's hooks and
// config read-only), Landlock, seccomp; then it execs bash, which is PID
// 1 of the namespace. Only this thread execs, so only it is restricted.
func helper(specJSON string, args []string) error {
	runtime.LockOSThread() // never unlocked: the thread that is restricted execs
	var s Spec
	if err := json.Unmarshal([]byte(specJSON), &s); err != nil {
		return fmt.Errorf("spec: %v", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	if err := mounts(s); err != nil {
		return err
	}
	if err := unix.Mount("proc", "/proc", "proc", procFlags, ""); err != nil {
		return fmt.Errorf("mount /proc: %v", err)
	}
	// The working directory again, through the new mounts.
	if err := os.Chdir(wd); err != nil {
		return err
	}
	if err := restrictFS(s); err != nil {
		return fmt.Errorf("landlock: %v", err)
	}
	if err := loadSeccomp(s); err != nil {
		return fmt.Errorf("seccomp: %v", err)
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("capabilities: %v", err)
	}
	env, _ := splitEnv(os.Environ())
	return fmt.Errorf("exec %s: %v", s.Bash, syscall.Exec(s.Bash, append([]string{"bash"}, args...), append(env, s.Restore...)))
}

// mask is a directory or file the sandbox sees replaced.
type mask struct {
	path string
	src  string // "" for a tmpfs, else the path bound over it
	ro   bool
}

func mounts(s Spec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("private mounts: %v", err)
	}
	// The directories that stay visible and writable, held open before
	// anything is mounted over them.
	keep := append([]string{s.Root}, s.Writable...)
	if s.Net {
		if p, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil {
			keep = append(keep, p)
		}
	}
	fds := map[string]int{}
	for i, p := range keep {
		fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			if i == 0 {
				return fmt.Errorf("root %s: %v", p, err)
			}
			continue
		}
		fds[p] = fd
	}
	tmp, err := unix.Open(s.Tmp, unix.O_PATH|unix.O_CLOEXEC|unix.O_DIRECTORY, 0)
	if err != nil {
		return fmt.Errorf("private tmp %s: %v", s.Tmp, err)
	}
	var masks []mask
	for _, h := range s.Hide {
		st, err := os.Stat(h)
		switch {
		case err != nil:
		case st.IsDir():
			masks = append(masks, mask{path: h, ro: true})
		default:
			masks = append(masks, mask{path: h, src: "/dev/null", ro: true})
		}
	}
	masks = append(masks, mask{path: "/tmp", src: fdPath(tmp)})
	for _, d := range []string{"/run", "/dev/shm"} {
		if st, err := os.Lstat(d); err == nil && st.IsDir() {
			masks = append(masks, mask{path: d})
		}
	}
	for _, m := range masks {
		if err := m.mount(); err != nil {
			return err
		}
	}
	// What was below a mask is bound back in place.
	for _, p := range keep {
		fd, ok := fds[p]
		if !ok || !masked(p, masks) {
			continue
		}
		if err := bindBack(fd, p); err != nil {
			return err
		}
	}
	// Every mount read-only (Landlock does not govern chmod, chown,
	// utimes or xattrs; a read-only mount refuses them), then the
	// writable places writable again, parents first.
	if err := unix.MountSetattr(-1, "/", unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("read-only mounts: %v", err)
	}
	rw := []string{"/tmp", "/dev/shm"}
	if s.Mode == sandbox.WorkspaceWrite {
		rw = append(append(rw, s.Root), s.Writable...)
	}
	slices.SortFunc(rw, func(a, b string) int { return len(a) - len(b) })
	for _, p := range rw {
		if err := writable(p); err != nil {
			return err
		}
	}
	if s.Mode == sandbox.WorkspaceWrite {
		if err := protectGit(s.Root); err != nil {
			return err
		}
	}
	return nil
}

// procFlags are the flags of the /proc a sandboxed bash sees.
const procFlags = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC

// writable puts a writable mount of p over it (when p exists).
func writable(p string) error {
	if _, err := os.Stat(p); err != nil {
		return nil
	}
	if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %v", p, err)
	}
	if err := unix.MountSetattr(-1, p, 0, &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("writable %s: %v", p, err)
	}
	return nil
}

func fdPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

func (m mask) mount() error {
	var err error
	if m.src == "" {
		flags := uintptr(unix.MS_NOSUID | unix.MS_NODEV)
		opt := "mode=1777"
		if m.ro {
			flags |= unix.MS_RDONLY | unix.MS_NOEXEC
			opt = "mode=0,size=4k"
		}
		err = unix.Mount("tmpfs", m.path, "tmpfs", flags, opt)
	} else {
		err = unix.Mount(m.src, m.path, "", unix.MS_BIND|unix.MS_REC, "")
		if err == nil && m.ro {
			err = remountRO(m.path)
		}
	}
	if err != nil {
		return fmt.Errorf("mount over %s: %v", m.path, err)
	}
	return nil
}

func masked(p string, masks []mask) bool {
	for _, m := range masks {
		if !m.ro && sandbox.Under(p, m.path) {
			return true
		}
	}
	return false
}

// bindBack binds the file or directory held by fd at p, making p first.
func bindBack(fd int, p string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return fmt.Errorf("bind %s back: %v", p, err)
		}
	} else {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("bind %s back: %v", p, err)
		}
		if f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			f.Close()
		}
	}
	if err := unix.Mount(fdPath(fd), p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s back: %v", p, err)
	}
	return nil
}

// protectGit makes the workspace's .git a mount point (so that it cannot
// be renamed or removed) and its hooks and config read-only: a hook is
// code that runs outside the sandbox later.
func protectGit(root string) error {
	git := filepath.Join(root, ".git")
	if st, err := os.Lstat(git); err != nil || !st.IsDir() {
		return nil
	}
	if err := unix.Mount(git, git, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %v", git, err)
	}
	for _, name := range []string{"hooks", "config"} {
		p := filepath.Join(git, name)
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if err := unix.Mount(p, p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind %s: %v", p, err)
		}
		if err := remountRO(p); err != nil {
			return fmt.Errorf("read-only %s: %v", p, err)
		}
	}
	return nil
}

// remountRO makes the bind mount at p read-only, keeping the flags the
// kernel locks in a user namespace (nosuid, nodev, noexec, atime).
func remountRO(p string) error {
	var sf unix.Statfs_t
	if err := unix.Statfs(p, &sf); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for st, ms := range map[int64]uintptr{unix.ST_NOSUID: unix.MS_NOSUID, unix.ST_NODEV: unix.MS_NODEV, unix.ST_NOEXEC: unix.MS_NOEXEC,
		unix.ST_NOATIME: unix.MS_NOATIME, unix.ST_NODIRATIME: unix.MS_NODIRATIME, unix.ST_RELATIME: unix.MS_RELATIME} {
		if sf.Flags&st != 0 {
			flags |= ms
		}
	}
	return unix.Mount("", p, "", flags, "")
}
