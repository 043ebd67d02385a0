//go:build !unix

package main

import (
	"os"

	"github.com/agentutils/agentutils/lib/session"
)

// fileID is zero where there are no inodes: an index then never agrees
// with the file (it is rebuilt on every open).
func fileID(os.FileInfo) session.FileID { return session.FileID{} }
