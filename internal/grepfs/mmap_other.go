//go:build !linux

package grepfs

import (
	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
)

// searchMapped reports false: files are read (mmap_linux.go maps them).
func searchMapped(m *regex.Matcher, path string, f rawFile, size int64, o search.SearchOptions, emit func(search.FileResult) bool) bool {
	return false
}
