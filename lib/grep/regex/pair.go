package regex

// A literal is found by its two rarest bytes at once (ripgrep's "packed
// pair"): the scan looks for the positions where the first of them is
// at offset 0 and the second at offset d, 16 positions a round on amd64
// (pair_amd64.s, SSE2, which every amd64 processor has), so that a byte
// that is common on its own (m of "func main": one byte in 90 of Go
// source) no longer stops the scan at each occurrence.

// pairBytes is the two bytes a literal is scanned for: b1 at offset o1,
// b2 at offset o2 > o1, each compared after OR-ing its mask (0x20 for a
// folded ASCII letter: either case matches).
type pairBytes struct {
	o1, o2 int
	b1, b2 byte
	m1, m2 byte
	// o3, b3: a third byte of a literal not folded (three bytes or more),
	// checked by the AVX2 scan before it returns a position (has3)
	o3   int
	b3   byte
	has3 bool
}

// newPair picks the literal's two rarest bytes at different offsets
// (ok false for a literal of one byte).
func newPair(s []byte, fold bool) (p pairBytes, ok bool) {
	if len(s) < 2 {
		return p, false
	}
	rank := func(i int) int {
		c := s[i]
		r := int(byteRank[c])
		if fold && isLetter(c) {
			r += int(byteRank[c&^0x20])
		}
		return r
	}
	first := rarest(s, fold)
	second := -1
	// (of two as rare, the farther from the first: letters apart are a
	// rarer pair than neighbours, пр in every Russian text)
	far := func(i int) int { return max(i-first, first-i) }
	for i := range s {
		if i != first && s[i] != s[first] && (second < 0 || rank(i) < rank(second) || rank(i) == rank(second) && far(i) > far(second)) {
			second = i
		}
	}
	if second < 0 { // every byte the same: the first and the last
		second = len(s) - 1
		if first == second {
			second = 0
		}
	}
	o1, o2 := min(first, second), max(first, second)
	p = pairBytes{o1: o1, o2: o2, b1: s[o1], b2: s[o2]}
	if fold && isLetter(p.b1) {
		p.m1 = 0x20
	}
	if fold && isLetter(p.b2) {
		p.m2 = 0x20
	}
	p.b1 |= p.m1
	p.b2 |= p.m2
	if !fold {
		for i := range s {
			if i != o1 && i != o2 && (!p.has3 || rank(i) < rank(p.o3)) {
				p.o3, p.b3, p.has3 = i, s[i], true
			}
		}
	}
	return p, true
}

// index is the first position i >= from where a literal of length n with
// the pair's bytes could start (hay[i+o1] and hay[i+o2] match), or -1.
func (p *pairBytes) index(hay []byte, from, n int) int {
	lo := from + p.o1
	hi := len(hay) - (n - 1 - p.o2) // hay[lo:hi]: where b1 may be, b2 included
	if hi-lo <= p.o2-p.o1 {
		return -1
	}
	var i int
	if p.has3 && hasAVX2 {
		i = p.index3(hay, lo, hi)
	} else {
		i = indexPair(hay[lo:hi], p.b1, p.b2, p.m1, p.m2, p.o2-p.o1)
	}
	if i < 0 {
		return -1
	}
	return from + i
}

// index3 is the first i where hay[lo+i:] has the pair's three bytes
// (the pair within hay[lo:hi]), or -1.
func (p *pairBytes) index3(hay []byte, lo, hi int) int {
	d, d3 := p.o2-p.o1, p.o3-p.o1
	n := hi - lo - d // the positions i
	done := 0
	if n >= 32 {
		done = n &^ 31
		if i := indexPairExact3AVX2(hay[lo:hi], done, p.b1, p.b2, p.b3, d, d3); i >= 0 {
			return i
		}
	}
	for i := done; i < n; i++ {
		if hay[lo+i] == p.b1 && hay[lo+i+d] == p.b2 && hay[lo+i+d3] == p.b3 {
			return i
		}
	}
	return -1
}

// indexPair is the first i with hay[i]|m1 == b1 and hay[i+d]|m2 == b2
// (d > 0), or -1.
func indexPair(hay []byte, b1, b2, m1, m2 byte, d int) int {
	n := len(hay) - d // the positions i
	if n <= 0 {
		return -1
	}
	i, done := indexPairWide(hay, n, b1, b2, m1, m2, d)
	if i >= 0 {
		return i
	}
	blocks := n &^ 15
	if blocks > done {
		if i := indexPairBlocks(hay[done:], blocks-done, b1, b2, m1, m2, d); i >= 0 {
			return done + i
		}
	}
	for i := blocks; i < n; i++ {
		if hay[i]|m1 == b1 && hay[i+d]|m2 == b2 {
			return i
		}
	}
	return -1
}
