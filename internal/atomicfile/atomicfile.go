// Package atomicfile replaces a file so that a reader, or a crash, sees the
// old content or the new one, never half of either.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
)

// FS is the file system a write goes through: OS (the os package's
// functions, names as they are) or an *os.Root (names relative to its
// directory, no symlink leaving it followed).
type FS interface {
	MkdirAll(name string, perm os.FileMode) error
	Stat(name string) (os.FileInfo, error)
	OpenFile(name string, flag int, perm os.FileMode) (*os.File, error)
	Chmod(name string, mode os.FileMode) error
	Rename(oldname, newname string) error
	Remove(name string) error
}

// OS is the FS of the os package.
type OS struct{}

func (OS) MkdirAll(name string, perm os.FileMode) error { return os.MkdirAll(name, perm) }
func (OS) Stat(name string) (os.FileInfo, error)        { return os.Stat(name) }
func (OS) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}
func (OS) Chmod(name string, mode os.FileMode) error { return os.Chmod(name, mode) }
func (OS) Rename(oldname, newname string) error      { return os.Rename(oldname, newname) }
func (OS) Remove(name string) error                  { return os.Remove(name) }

// Write replaces path with data: a temporary file in the same directory,
// fsync, rename over path, fsync of the directory. Missing parent
// directories are created (0755). The file keeps the permission bits of the
// file it replaces; a new file gets perm. On error path is left as it was
// and the temporary file is removed.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteFS(OS{}, path, data, perm)
}

// WriteFS is Write through fsys.
func WriteFS(fsys FS, path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if st, err := fsys.Stat(path); err == nil {
		perm = st.Mode().Perm()
	}
	tmp, name, err := createTemp(fsys, dir, "."+filepath.Base(path)+".", ".tmp")
	if err != nil {
		return err
	}
	defer fsys.Remove(name) // fails harmlessly after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := fsys.Chmod(name, perm); err != nil {
		return err
	}
	if err := fsys.Rename(name, path); err != nil {
		return err
	}
	syncDir(fsys, dir)
	return nil
}

// createTemp is os.CreateTemp through fsys.
func createTemp(fsys FS, dir, prefix, suffix string) (*os.File, string, error) {
	for range 100 {
		var b [6]byte
		rand.Read(b[:])
		name := filepath.Join(dir, prefix+hex.EncodeToString(b[:])+suffix)
		f, err := fsys.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", errors.New("atomicfile: cannot find a free temporary name in " + dir)
}

// syncDir makes a rename in dir durable; filesystems that cannot fsync a
// directory are left to their own guarantees.
func syncDir(fsys FS, dir string) {
	if d, err := fsys.OpenFile(dir, os.O_RDONLY, 0); err == nil {
		d.Sync()
		d.Close()
	}
}

// WritePrivate is Write of a file private to the user (credentials,
// trust): a new parent directory 0700, a new file 0600.
func WritePrivate(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return Write(path, data, 0o600)
}
