// Package search is agent-grep's searcher, as ripgrep's grep-searcher
// crate is rg's: SearchBuffer searches a byte buffer with a matcher
// (lib/grep/regex) and SearchChunked a large file in pieces through a
// ReadFunc, with rg's binary detection, line counting, context and -v,
// -U and the Latin-1 search of (?-u). The lines found go back in a
// FileResult, or through a Sink (the printer's) printed as they are
// found. It opens no file: the walker, the reads and the parallel Search
// that hands results back in path order are internal/grepfs.
package search
