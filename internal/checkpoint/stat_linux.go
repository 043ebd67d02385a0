package checkpoint

import (
	"os"

	"golang.org/x/sys/unix"

	cp "github.com/agentutils/agentutils/lib/checkpoint"
)

// stat is a name's entry in the directory d (not following a link): a
// file or link (ok), a directory (isDir), or neither (!ok).
func stat(d *os.File, name string) (f cp.File, isDir, ok bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(d.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return f, false, false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return f, true, true
	case unix.S_IFREG:
		f.Mode = st.Mode & 0o777
	case unix.S_IFLNK:
		f.Mode = cp.ModeLink
	default:
		return f, false, false
	}
	f.Size = st.Size
	f.Mtime = st.Mtim.Nano()
	f.Ctime = st.Ctim.Nano()
	return f, false, true
}

// syncFS flushes the file system holding dir (the blobs a scan added: one
// call, not an fsync per blob).
func syncFS(dir string) {
	if fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0); err == nil {
		unix.Syncfs(fd)
		unix.Close(fd)
	}
}
