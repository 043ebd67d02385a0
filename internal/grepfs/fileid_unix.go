//go:build unix

package grepfs

import (
	"os"
	"syscall"
)

// fileID is a file's device and inode (symlink loops, --one-file-system).
func fileID(info os.FileInfo) (dev, ino uint64) {
	if s, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Dev), uint64(s.Ino)
	}
	return 0, 0
}
