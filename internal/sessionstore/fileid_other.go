//go:build !unix

package sessionstore

import (
	"os"

	"github.com/agentutils/agentutils/lib/session"
)

// FileID is zero where there are no inodes: an index then never agrees
// with the file (it is rebuilt on every open).
func FileID(os.FileInfo) session.FileID { return session.FileID{} }
