package search

import "golang.org/x/sys/cpu"

// nlScanBlocks is nlScan over p, its length a multiple of 64 and at most
// 255*64 (nlscan_amd64.s, AVX2).
//
//go:noescape
func nlScanBlocks(p []byte) (n int, nul bool)

// nulBlocks reports whether p, its length a multiple of 128, holds a NUL
// (nlscan_amd64.s, AVX2).
//
//go:noescape
func nulBlocks(p []byte) bool

// byteLinesBlocks counts, over p (a multiple of 64 bytes), the newlines
// ending a line that holds b (not: a byte other than b), and all the
// newlines; carry: such a byte in the line open before p, and after it
// (0 or 1).
//
//go:noescape
func byteLinesBlocks(p []byte, b byte, not bool, carry uint64) (lines, nls int, out uint64)

// hasAVX2: the processor has AVX2 (a fact of the machine, read once).
var hasAVX2 = cpu.X86.HasAVX2
