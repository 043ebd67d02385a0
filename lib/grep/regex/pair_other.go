//go:build !amd64

package regex

// indexPairBlocks is indexPair over the positions [0, n) (a multiple of
// 16), with n+d <= len(hay).
func indexPairBlocks(hay []byte, n int, b1, b2, m1, m2 byte, d int) int {
	for i := 0; i < n; i++ {
		if hay[i]|m1 == b1 && hay[i+d]|m2 == b2 {
			return i
		}
	}
	return -1
}

// hasAVX2 is false off amd64 (the tests set it on amd64 to try both scans).
var hasAVX2 = false

// indexPairWide: no wider scan off amd64.
func indexPairWide(hay []byte, n int, b1, b2, m1, m2 byte, d int) (int, int) { return -1, 0 }

// indexPairExact3AVX2: not off amd64 (hasAVX2 is false).
func indexPairExact3AVX2(hay []byte, n int, b1, b2, b3 byte, d, d3 int) int { return -1 }
