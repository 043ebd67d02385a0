//go:build !amd64

package search

// nlScanBlocks: no wider scan off amd64 (nlScan does not call it).
func nlScanBlocks(p []byte) (int, bool) { return 0, false }

// nulBlocks: no wider scan off amd64 (indexNUL does not call it).
func nulBlocks(p []byte) bool { return false }

// byteLinesBlocks: not off amd64 (byteLines does not call it).
func byteLinesBlocks(p []byte, b byte, not bool, carry uint64) (lines, nls int, out uint64) {
	return 0, 0, carry
}

// hasAVX2 is false off amd64 (the tests set it on amd64 to try both scans).
var hasAVX2 = false
