//go:build !linux

package checkpoint

import (
	"io/fs"
	"os"
	"path/filepath"

	cp "github.com/agentutils/agentutils/lib/checkpoint"
)

// stat is a name's entry in the directory d (not following a link): a
// file or link (ok), a directory (isDir), or neither (!ok). Without the
// change time, a file is known changed by its size, mtime and mode.
func stat(d *os.File, name string) (f cp.File, isDir, ok bool) {
	st, err := os.Lstat(filepath.Join(d.Name(), name))
	if err != nil {
		return f, false, false
	}
	switch {
	case st.IsDir():
		return f, true, true
	case st.Mode().IsRegular():
		f.Mode = uint32(st.Mode().Perm())
	case st.Mode()&fs.ModeSymlink != 0:
		f.Mode = cp.ModeLink
	default:
		return f, false, false
	}
	f.Size = st.Size()
	f.Mtime = st.ModTime().UnixNano()
	return f, false, true
}

// syncFS: no syncfs here; the blobs reach the disk when the system
// writes them back.
func syncFS(string) {}
