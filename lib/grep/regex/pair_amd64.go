package regex

import "golang.org/x/sys/cpu"

// indexPairBlocks is indexPair over the positions [0, n), n a multiple of
// 16, with n+d <= len(hay) (pair_amd64.s).
//
//go:noescape
func indexPairBlocks(hay []byte, n int, b1, b2, m1, m2 byte, d int) int

// indexPairBlocksAVX2 is indexPairBlocks 32 and 64 positions a round, n
// a multiple of 32 (pair_amd64.s).
//
//go:noescape
func indexPairBlocksAVX2(hay []byte, n int, b1, b2, m1, m2 byte, d int) int

// indexPairExactAVX2 is indexPairBlocksAVX2 for m1 = m2 = 0
// (pair_amd64.s).
//
//go:noescape
func indexPairExactAVX2(hay []byte, n int, b1, b2, m1, m2 byte, d int) int

// hasAVX2: the processor has AVX2 (a fact of the machine, read once).
var hasAVX2 = cpu.X86.HasAVX2

// indexPairWide is the AVX2 scan of the positions [0, n &^ 31) when the
// processor has it: the position found (-1: none) and how many positions
// it covered.
func indexPairWide(hay []byte, n int, b1, b2, m1, m2 byte, d int) (int, int) {
	if !hasAVX2 || n < 32 {
		return -1, 0
	}
	blocks := n &^ 31
	if m1|m2 == 0 {
		return indexPairExactAVX2(hay, blocks, b1, b2, m1, m2, d), blocks
	}
	return indexPairBlocksAVX2(hay, blocks, b1, b2, m1, m2, d), blocks
}

// indexPairExact3AVX2 is indexPairExactAVX2 over positions that also have
// b3 at i+d3 (pair_amd64.s); hay[i+d3] must be readable for every
// position i < n, before hay's start too when d3 < 0.
//
//go:noescape
func indexPairExact3AVX2(hay []byte, n int, b1, b2, b3 byte, d, d3 int) int
