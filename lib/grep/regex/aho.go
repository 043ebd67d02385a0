package regex

import (
	"math/bits"
	"slices"
)

// Many literals (-F -f with hundreds of lines, -e × N) are found in one
// pass by an Aho-Corasick automaton rather than a scan per literal or
// the regexp's NFA over an alternation of hundreds of branches.
//
// The matches are the regexp's: leftmost-first, as Go's regexp (and rg)
// match an alternation of literals: the leftmost start, and at that start
// the literal listed first, then on from its end. (Two Aho-Corasick
// libraries for Go were measured against regexp on random sets and
// texts and differ on a quarter to a half of them, reporting the match
// that ends first: see the README.)

// ahoCorasick is a dense automaton over byte classes.
type ahoCorasick struct {
	lits   [][]byte
	class  [256]uint8
	nclass int
	trans  []int32 // state*nclass + class → state
	own    []int32 // state → the first literal that is this state's string (-1: none)
	dict   []int32 // state → the nearest proper suffix state with own >= 0 (-1: none)
	out    []bool  // state → some literal ends here
	maxLen int
	// scan is trans for firstEnd: each entry the next state's row start
	// (state*nclass), or -1 where a literal ends on reaching it
	scan []int32
	// pair: every literal is plen bytes long and has the pair's bytes
	// (setPair), so firstEnd scans for the pair and checks the literals
	// only where it occurs
	pair    pairBytes
	hasPair bool
	plen    int
	// groups: literals of several lengths or with no pair in common
	// (straße|привет|kelvin in every case) split into automata of one
	// length that each have a pair scan (setGroups); firstEndIn takes the
	// earliest end of theirs
	groups []*ahoCorasick
}

// newAhoCorasick builds the automaton of lits (non-empty); with fold,
// of lits lowered, an ASCII letter's cases one byte class.
func newAhoCorasick(lits [][]byte, fold bool) *ahoCorasick {
	a := &ahoCorasick{lits: lits}
	var used [256]bool
	for _, l := range lits {
		for _, c := range l {
			used[c] = true
		}
		a.maxLen = max(a.maxLen, len(l))
	}
	a.nclass = 1 // class 0: bytes no literal holds
	for c := range used {
		if used[c] {
			a.class[c] = uint8(a.nclass)
			a.nclass++
		}
	}
	if fold {
		for c := 'A'; c <= 'Z'; c++ {
			a.class[c] = a.class[c|0x20]
		}
	}
	// the trie, as goto transitions (-1: none)
	a.trans = make([]int32, a.nclass)
	a.own = []int32{-1}
	for i := range a.trans {
		a.trans[i] = -1
	}
	for id, l := range lits {
		s := int32(0)
		for _, c := range l {
			t := &a.trans[int(s)*a.nclass+int(a.class[c])]
			if *t < 0 {
				*t = int32(len(a.own))
				a.own = append(a.own, -1)
				for range a.nclass {
					a.trans = append(a.trans, -1)
				}
				t = &a.trans[int(s)*a.nclass+int(a.class[c])] // the slice may have moved
			}
			s = *t
		}
		if a.own[s] < 0 {
			a.own[s] = int32(id)
		}
	}
	// failure links, breadth first, folded into the transitions
	n := len(a.own)
	fail := make([]int32, n)
	a.dict = make([]int32, n)
	a.out = make([]bool, n)
	a.dict[0] = -1
	queue := make([]int32, 0, n)
	for k := 0; k < a.nclass; k++ {
		if t := a.trans[k]; t > 0 {
			fail[t], a.dict[t] = 0, -1
			queue = append(queue, t)
		} else {
			a.trans[k] = 0
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		a.out[s] = a.own[s] >= 0 || a.dict[s] >= 0
		for k := 0; k < a.nclass; k++ {
			t := a.trans[int(s)*a.nclass+k]
			f := a.trans[int(fail[s])*a.nclass+k]
			if t < 0 {
				a.trans[int(s)*a.nclass+k] = f
				continue
			}
			fail[t] = f
			if a.own[f] >= 0 {
				a.dict[t] = f
			} else {
				a.dict[t] = a.dict[f]
			}
			queue = append(queue, t)
		}
	}
	a.scan = make([]int32, len(a.trans))
	for i, t := range a.trans {
		a.scan[i] = t * int32(a.nclass)
		if a.out[t] {
			a.scan[i] = -1
		}
	}
	return a
}

// firstEnd is where a literal occurs first in hay at or after from (the
// earliest end, not necessarily the leftmost start): the end, or -1.
//
// Each byte's step waits on the previous one's table look-up, so the
// scan runs two of them side by side, over two halves of a window: a
// from p and b from q = p+acWindow-(maxLen-1), warmed up to p+acWindow
// (a literal ending there or later starts at q or later); b's end
// counts only when a finds none in its half.
func (a *ahoCorasick) firstEnd(hay []byte, from int) int {
	switch {
	case a.hasPair:
		return a.pairEnd(hay, from)
	case len(a.groups) > 0:
		return a.groupsEnd(hay, from)
	}
	return a.scanEnd(hay, from)
}

// groupScan is one buffer's search through an automaton's groups: each
// group's earliest end found so far (-1: none in the buffer) and the
// position it was found from (-1: not yet looked for).
type groupScan struct{ from, end []int }

func (gs *groupScan) reset() { gs.from, gs.end = gs.from[:0], gs.end[:0] }

// firstEndIn is firstEnd, with the groups' ends found so far kept in gs
// (from must not decrease between calls on one buffer; gs reset for
// another): each group's scan goes through the buffer once, not again
// from every match of the others. Without groups, or gs nil, firstEnd.
func (a *ahoCorasick) firstEndIn(hay []byte, from int, gs *groupScan) int {
	if len(a.groups) == 0 || gs == nil {
		return a.firstEnd(hay, from)
	}
	for len(gs.end) < len(a.groups) {
		gs.from, gs.end = append(gs.from, -1), append(gs.end, -1)
	}
	best := -1
	for i, g := range a.groups {
		if gs.from[i] < 0 || gs.end[i] >= 0 && gs.end[i]-g.plen < from {
			gs.from[i], gs.end[i] = from, g.firstEnd(hay, from)
		}
		if e := gs.end[i]; e >= 0 && (best < 0 || e < best) {
			best = e
		}
	}
	return best
}

// groupsEnd is firstEnd over the groups, with no ends kept: each group's
// scan stops at the earliest end the groups before it found.
func (a *ahoCorasick) groupsEnd(hay []byte, from int) int {
	best := -1
	for _, g := range a.groups {
		h := hay
		if best >= 0 {
			h = hay[:best-1] // (an end at best or later does not count)
		}
		if e := g.firstEnd(h, from); e >= 0 {
			best = e
		}
	}
	return best
}

// maxGroups is the most groups setGroups makes: each is a pass over the
// text, and past a dozen the automaton's one pass costs less.
const maxGroups = 12

// setGroups splits the literals, in their order, into groups of one
// length that each share a pair (pairOf), each an automaton with its pair
// scan, when they are 2 to maxGroups.
func (a *ahoCorasick) setGroups(fold bool) {
	var sets [][][]byte
	for _, l := range a.lits {
		placed := false
		for i, g := range sets {
			if len(g[0]) == len(l) {
				if _, ok := pairOf(append(g[:len(g):len(g)], l), fold); ok {
					sets[i], placed = append(g, l), true
					break
				}
			}
		}
		if !placed {
			if _, ok := pairOf([][]byte{l}, fold); !ok || len(sets) == maxGroups {
				return
			}
			sets = append(sets, [][]byte{l})
		}
	}
	if len(sets) < 2 {
		return
	}
	for _, g := range sets {
		ga := newAhoCorasick(g, fold)
		ga.setPair(fold)
		a.groups = append(a.groups, ga)
	}
}

// pairEnd is firstEnd by the pair scan: each place the pair occurs is
// checked for a literal; past a number of false hits (a pair that is
// not rare in this text) the automaton goes on alone.
func (a *ahoCorasick) pairEnd(hay []byte, from int) int {
	fails := 0
	for pos := from; ; {
		at := a.pair.index(hay, pos, a.plen)
		if at < 0 {
			return -1
		}
		if a.startsAt(hay, at) {
			return at + a.plen // (the literals are of one length: the first start ends first)
		}
		pos = at + 1
		if fails++; fails > 16+(pos-from)/16 {
			return a.scanEnd(hay, pos)
		}
	}
}

// startsAt: a literal (all of length plen) starts at hay[at:]; a few
// are compared directly, more through the automaton.
func (a *ahoCorasick) startsAt(hay []byte, at int) bool {
	if len(a.lits) > 4 {
		s, _ := a.leftmost(hay[at:at+a.plen], 0)
		return s == 0
	}
	w := hay[at : at+a.plen]
	for _, l := range a.lits {
		k := 0
		for k < len(l) && a.class[w[k]] == a.class[l[k]] { // (a literal's bytes have classes of their own)
			k++
		}
		if k == len(l) {
			return true
		}
	}
	return false
}

// setPair gives the automaton a pair scan (pairEnd) when its literals
// are of one length and share two bytes at fixed offsets, each the same
// in every literal but for at most two bits, OR-ed away by the pair's
// masks (ο CE BF and Ο CE 9F at offset 1: 0x20; ς 82, σ 83, Σ A3:
// 0x21; ASCII letters when folded). Of those the rarest: ASCII bytes by
// byteRank, then UTF-8 continuation bytes, then lead bytes (one for each
// letter of a script), the fewer bits masked the better.
func (a *ahoCorasick) setPair(fold bool) {
	if p, ok := pairOf(a.lits, fold); ok {
		a.pair, a.hasPair, a.plen = p, true, len(a.lits[0])
	}
}

// pairOf is the pair of setPair for lits, ok false when there is none.
func pairOf(lits [][]byte, fold bool) (p pairBytes, ok bool) {
	n := len(lits[0])
	for _, l := range lits {
		if len(l) != n {
			return p, false
		}
	}
	type cand struct {
		off, rank int
		b, m      byte
	}
	var cands []cand
	for off := range n {
		b, m := lits[0][off], byte(0)
		letter := false
		for _, l := range lits {
			m |= l[off] ^ b
			letter = letter || isLetter(l[off])
		}
		if fold && letter { // any literal's letter there: the text may hold its other case
			m |= 0x20
		}
		if bits.OnesCount8(m) > 2 {
			continue
		}
		b |= m
		rank := int(byteRank[b&^m]) + int(byteRank[b])
		if b >= 0xc0 {
			rank = 1000
		} else if b >= 0x80 {
			rank = 100
		}
		rank += 10 * bits.OnesCount8(m)
		cands = append(cands, cand{off, rank, b, m})
	}
	if len(cands) < 2 {
		return p, false
	}
	slices.SortStableFunc(cands, func(x, y cand) int { return x.rank - y.rank })
	x, y := cands[0], cands[1]
	// of the second's rank, the farthest from the first: two letters
	// apart are a rarer pair than neighbours (пр, in every Russian text)
	for _, c := range cands[2:] {
		if c.rank == y.rank && max(c.off-x.off, x.off-c.off) > max(y.off-x.off, x.off-y.off) {
			y = c
		}
	}
	if x.off > y.off {
		x, y = y, x
	}
	return pairBytes{o1: x.off, o2: y.off, b1: x.b, b2: y.b, m1: x.m, m2: y.m}, true
}

// scanEnd is firstEnd by the automaton alone.
func (a *ahoCorasick) scanEnd(hay []byte, from int) int {
	scan, class := a.scan, &a.class
	warm := a.maxLen - 1
	row := int32(0) // the state at p
	p := from
	for p+2*acWindow <= len(hay) && warm < acWindow {
		w := hay[p : p+2*acWindow : p+2*acWindow]
		ra, rb := row, int32(0)
		k := acWindow - warm
		for ; k < acWindow; k++ {
			if rb = scan[rb+int32(class[w[k]])]; rb < 0 {
				break
			}
		}
		if rb < 0 {
			break // b found an end in a's half: a alone finds it, or an earlier one
		}
		for k = 0; k < acWindow; k++ {
			ra = scan[ra+int32(class[w[k]])]
			rb = scan[rb+int32(class[w[acWindow+k]])]
			if ra|rb < 0 {
				break
			}
		}
		if k == acWindow {
			row, p = rb, p+2*acWindow // b has read more than maxLen bytes: its state is the text's
			continue
		}
		if ra < 0 {
			return p + k + 1
		}
		bEnd := p + acWindow + k + 1
		for k++; k < acWindow; k++ { // the rest of a's half, alone
			if ra = scan[ra+int32(class[w[k]])]; ra < 0 {
				return p + k + 1
			}
		}
		return bEnd
	}
	for i := p; i < len(hay); i++ {
		if row = scan[row+int32(class[hay[i]])]; row < 0 {
			return i + 1
		}
	}
	return -1
}

// acWindow is the half of firstEnd's window.
const acWindow = 256

// leftmost is the leftmost-first match in hay at or after from: its
// start and end, or -1, -1.
func (a *ahoCorasick) leftmost(hay []byte, from int) (start, end int) {
	s := int32(0)
	best, bestID := -1, int32(-1)
	for i := from; i < len(hay); i++ {
		if best >= 0 && i-best >= a.maxLen {
			break // a later occurrence starts after best
		}
		s = a.trans[int(s)*a.nclass+int(a.class[hay[i]])]
		if !a.out[s] {
			continue
		}
		for t := s; t >= 0; t = a.dict[t] {
			id := a.own[t]
			if id < 0 {
				continue
			}
			st := i + 1 - len(a.lits[id])
			if st < from {
				continue
			}
			if best < 0 || st < best || st == best && id < bestID {
				best, bestID = st, id
			}
		}
	}
	if best < 0 {
		return -1, -1
	}
	return best, best + len(a.lits[bestID])
}
