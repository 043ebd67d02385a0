package grep

// indexPairBlocks is indexPair over the positions [0, n), n a multiple of
// 16, with n+d <= len(hay) (pair_amd64.s).
//
//go:noescape
func indexPairBlocks(hay []byte, n int, b1, b2, m1, m2 byte, d int) int
