//go:build !unix

package grepfs

import "os"

// fileID is not known here (no device and inode numbers): -L does not
// detect symlink loops on such systems.
func fileID(os.FileInfo) (dev, ino uint64) { return 0, 0 }
