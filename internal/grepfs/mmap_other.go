//go:build !linux

package grepfs

import "github.com/agentutils/agentutils/lib/grep"

// searchMapped reports false: files are read (mmap_linux.go maps them).
func searchMapped(m *grep.Matcher, path string, f rawFile, size int64, o grep.SearchOptions, emit func(grep.FileResult) bool) bool {
	return false
}
