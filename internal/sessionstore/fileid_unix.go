//go:build unix

package sessionstore

import (
	"os"
	"syscall"

	"github.com/agentutils/agentutils/lib/session"
)

// FileID is the file's device and inode: a rewrite renamed over it changes them.
func FileID(st os.FileInfo) session.FileID {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return session.FileID{Dev: uint64(s.Dev), Ino: uint64(s.Ino)}
	}
	return session.FileID{}
}
