package regex

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// A literal that every match contains, or one of a set of them, lets the
// search skip the regexp engine for most of a file: it looks for the
// literals with SIMD-backed byte scans and runs the regexp only on the lines
// where one occurs. That is ripgrep's main trick, and most of its speed.

// lit is one literal of the prefilter. A folded literal is stored lowered
// and found ignoring ASCII case; it holds k or s, whose case folds reach
// outside ASCII (K → U+212A KELVIN SIGN, s → U+017F LONG S), only beside
// the spellings with those (foldSpellings).
type lit struct {
	s    []byte
	fold bool
	rare int // index in s of the byte scanned for: the rarest one
	// pair: the two rarest bytes, scanned for together (pair.go); hasPair
	// false for one byte
	pair    pairBytes
	hasPair bool
}

// litSet is the alternatives every match contains one of (nil: none known).
type litSet []lit

// maxLits bounds an alternation's prefilter: past it a scan per literal
// costs more than the regexp.
const maxLits = 12

// maxACLits bounds a larger set (an alternation of many words, the
// case spellings of a non-ASCII word): found in one pass by an
// Aho-Corasick automaton (prefilterAC), whose cost does not grow with
// the number of literals, as rg's regex-automata hands a large literal
// set to its Teddy or Aho-Corasick prefilter.
const maxACLits = 256

// requiredLits is the best literal set every match of re contains.
func requiredLits(re *syntax.Regexp) litSet {
	switch re.Op {
	case syntax.OpLiteral:
		return newLitSet(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLits(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return requiredLits(re.Sub[0])
		}
	case syntax.OpConcat:
		var best litSet
		var run []rune
		runFold := false
		flush := func() {
			if len(run) > 0 {
				best = better(best, newLitSet(run, runFold))
			}
			run = nil
		}
		for _, s := range re.Sub {
			if s.Op == syntax.OpLiteral {
				f := s.Flags&syntax.FoldCase != 0
				if len(run) > 0 && f != runFold {
					flush()
				}
				run, runFold = append(run, s.Rune...), f
				continue
			}
			flush()
			best = better(best, requiredLits(s))
		}
		flush()
		return best
	case syntax.OpAlternate:
		var all litSet
		for _, s := range re.Sub {
			ls := requiredLits(s)
			if ls == nil {
				return nil
			}
			all = append(all, ls...)
		}
		if len(all) > maxACLits {
			return nil
		}
		return all
	}
	return nil
}

// newLitSet makes the one-literal set for runes, or nil when nothing of
// them is usable (folded non-ASCII text, empty).
func newLitSet(runes []rune, fold bool) litSet {
	s := []byte(string(runes))
	if fold {
		for _, r := range runes {
			if r >= utf8.RuneSelf {
				return foldSpellings(runes)
			}
		}
		s = longestFoldSafe(bytes.ToLower(s))
	}
	if len(s) == 0 {
		return nil
	}
	l := lit{s: s, fold: fold, rare: rarest(s, fold)}
	l.pair, l.hasPair = newPair(s, fold)
	return litSet{l}
}

// foldSpellings is the prefilter of a case-insensitive literal with
// non-ASCII letters (σοφία, straße): the spellings of one run of it with
// each character in each of its case forms (foldForms: unicode.SimpleFold's
// orbit, as Go's (?i) and rg's regex match: σ ς Σ, k and the Kelvin sign,
// s and ſ, ß and ẞ but not ss), found exactly but for ASCII case. Of the
// runs with at most maxLits spellings (scanned for one by one) or
// maxACLits (prefilterAC), the one that narrows the search most (score);
// nil when no run is that small.
func foldSpellings(runes []rune) litSet {
	var best litSet
	for i := range runes {
		n, small, large := 1, -1, -1 // the longest runs from i of each size
		for j := i; j < len(runes); j++ {
			if n *= len(foldForms(runes[j])); n > maxACLits {
				break
			}
			if large = j; n <= maxLits {
				small = j
			}
		}
		for _, j := range []int{small, large} {
			if j >= 0 {
				best = better(best, spellings(runes[i:j+1]))
			}
		}
	}
	return best
}

// foldOrbit is r and the characters it folds to, r first.
func foldOrbit(r rune) []rune {
	out := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		out = append(out, f)
	}
	return out
}

// foldForms is r's case forms (foldOrbit) with ASCII letters lowered and
// each form once: a spelling's ASCII letters are matched ignoring case.
func foldForms(r rune) []rune {
	var out []rune
	for _, f := range foldOrbit(r) {
		if f < utf8.RuneSelf && isLetter(byte(f)) {
			f |= 0x20
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// spellings is the literals of runes in every case (foldForms), folded
// (ASCII case ignored) where they hold an ASCII letter.
func spellings(runes []rune) litSet {
	words := [][]byte{nil}
	for _, r := range runes {
		var next [][]byte
		for _, w := range words {
			for _, f := range foldForms(r) {
				next = append(next, utf8.AppendRune(w[:len(w):len(w)], f))
			}
		}
		words = next
	}
	ls := make(litSet, 0, len(words))
	for _, w := range words {
		fold := bytes.ContainsFunc(w, func(r rune) bool { return r < utf8.RuneSelf && isLetter(byte(r)) })
		l := lit{s: w, fold: fold, rare: rarest(w, fold)}
		l.pair, l.hasPair = newPair(w, fold)
		ls = append(ls, l)
	}
	return ls
}

// longestFoldSafe is the longest run of s without k or s (lowered input).
func longestFoldSafe(s []byte) []byte {
	var best []byte
	for _, part := range bytes.FieldsFunc(s, func(r rune) bool { return r == 'k' || r == 's' }) {
		if len(part) > len(best) {
			best = part
		}
	}
	return best
}

// score is how much a set narrows the search: its shortest literal, less
// for each extra literal to scan for.
func (ls litSet) score() int {
	if ls == nil {
		return 0
	}
	m := len(ls[0].s)
	for _, l := range ls[1:] {
		m = min(m, len(l.s))
	}
	return m*4 - min(len(ls)-1, maxLits) // (past maxLits, one automaton)
}

func better(a, b litSet) litSet {
	if b.score() > a.score() {
		return b
	}
	return a
}

// byteRank orders bytes by how often they occur in source code: higher
// is more common. The prefilter scans for a literal's rarest byte. The
// order was measured over the Go, Python and Perl sources of a Debian
// system (text files only); bytes it does not list are rarer than all it
// does. Of the bytes of UTF-8 characters, the leading ones (0xC0 on) are
// more common than the others: one script's letters share one or two
// (D0 and D1 are a tenth of a Russian text's bytes, its continuation
// bytes spread over 64 values).
var byteRank = func() [256]uint8 {
	const order = " et0\nrn\taisol,xcfdu.1pA2m()/hg:=E\"bT4_3S6RIy8Cv{}O5DL97P\\NMFBwkV'X-[]UGH;>*$#WY+<K!|zQ&q%jZJ`@^?~"
	var r [256]uint8
	for i := 0; i < len(order); i++ {
		r[order[i]] = uint8(len(order) - i + 1)
	}
	for c := 0xc0; c < 0x100; c++ {
		r[c] = 1
	}
	return r
}()

// rarest is the index of the byte of s that should occur least often
// (both cases counted for a folded letter).
func rarest(s []byte, fold bool) int {
	best, bestRank := 0, 1<<30
	for i, c := range s {
		rank := int(byteRank[c])
		if fold && isLetter(c) {
			rank += int(byteRank[c&^0x20])
		}
		if rank < bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// litScan is one literal's search state over one buffer: the next
// occurrences found so far, so that a scan never reads a byte twice.
type litScan struct {
	next   int // absolute position of the next occurrence at or after from; -1 none; -2 unknown
	lo, up int // folded letters: next positions of the rare byte's two cases (-1 none, -2 unknown)
}

// prefilter finds, in one buffer, the next position where any literal of
// the set occurs.
type prefilter struct {
	set   litSet
	scans []litScan
	// ac finds a set of more than maxLits literals in one pass; acAt is
	// the last byte of its earliest-ending occurrence found (-1: none,
	// -2: unknown)
	ac   *ahoCorasick
	acAt int
}

func (p *prefilter) reset(set litSet, ac *ahoCorasick) {
	p.set, p.ac, p.acAt = set, ac, -2
	p.scans = p.scans[:0]
	for range set {
		p.scans = append(p.scans, litScan{next: -2, lo: -2, up: -2})
	}
}

// find returns the smallest position >= from where a literal starts, or
// -1. from must not decrease between calls on the same buffer. With the
// automaton (more than maxLits literals) it is a position inside the
// occurrence that ends first, on the first line holding one, from being
// a line start.
func (p *prefilter) find(hay []byte, from int) int {
	if p.ac != nil {
		if p.acAt == -2 || p.acAt >= 0 && p.acAt < from {
			p.acAt = p.ac.firstEnd(hay, from) - 1 // (-1: none)
			if p.acAt < -1 {
				p.acAt = -1
			}
		}
		return p.acAt
	}
	best := -1
	for i := range p.set {
		st := &p.scans[i]
		if st.next == -2 || (st.next >= 0 && st.next < from) {
			st.next = p.set[i].index(hay, from, st)
		}
		if st.next >= 0 && (best < 0 || st.next < best) {
			best = st.next
		}
	}
	return best
}

// index finds l in hay at or after from.
func (l *lit) index(hay []byte, from int, st *litScan) int {
	if from > len(hay)-len(l.s) {
		return -1
	}
	if l.hasPair {
		return l.indexPair(hay, from)
	}
	if !l.fold {
		return l.indexExact(hay, from)
	}
	c := l.s[l.rare]
	if !isLetter(c) {
		for pos := from + l.rare; ; {
			i := bytes.IndexByte(hay[pos:], c)
			if i < 0 {
				return -1
			}
			at := pos + i - l.rare
			if at+len(l.s) > len(hay) {
				return -1
			}
			if equalFoldLower(hay[at:at+len(l.s)], l.s) {
				return at
			}
			pos += i + 1
		}
	}
	// A letter: two bytes.IndexByte streams, one per case, each kept in
	// st so that neither rescans what it passed. That reads the buffer
	// twice, but each read is the runtime's SIMD scan. A one-pass scan
	// for both cases in Go (32 bytes a round as four words, b|0x20 ==
	// lower) was tried: over $GOROOT/src, CPU 218 vs 220 ms where the byte
	// is frequent (-i errunexpectedeof: u), 192 vs 177 ms where it is rare
	// (-i zq: z, the usual case for a rarest byte). Go has no two-byte
	// IndexByte short of assembly, which lib/ does not hold.
	lower, upper := c|0x20, c&^0x20
	pos := from + l.rare
	for {
		if st.lo != -1 && st.lo < pos {
			st.lo = indexFrom(hay, lower, pos)
		}
		if st.up != -1 && st.up < pos {
			st.up = indexFrom(hay, upper, pos)
		}
		cand := st.lo
		if cand < 0 || (st.up >= 0 && st.up < cand) {
			cand = st.up
		}
		if cand < 0 {
			return -1
		}
		at := cand - l.rare
		if at+len(l.s) > len(hay) {
			return -1
		}
		if equalFoldLower(hay[at:at+len(l.s)], l.s) {
			return at
		}
		pos = cand + 1
	}
}

// indexPair finds l by its pair of rare bytes and checks the literal at
// each place they occur together; past a number of false hits (a pair
// that is not rare in this file) an exact literal's search goes on with
// bytes.Index.
func (l *lit) indexPair(hay []byte, from int) int {
	fails := 0
	for pos := from; ; {
		at := l.pair.index(hay, pos, len(l.s))
		if at < 0 {
			return -1
		}
		cand := hay[at : at+len(l.s)]
		if l.fold && equalFoldLower(cand, l.s) || !l.fold && bytes.Equal(cand, l.s) {
			return at
		}
		pos = at + 1
		if fails++; !l.fold && fails > 16+(pos-from)/16 {
			return bytesIndex(hay, pos, l.s)
		}
	}
}

// indexExact scans for the literal's rarest byte and checks the literal
// around each hit; past a number of false hits (a byte that is not rare in
// this file) it leaves the rest to bytes.Index, which also scans by byte
// and then falls back to comparing blocks.
func (l *lit) indexExact(hay []byte, from int) int {
	if l.rare == 0 || len(l.s) == 1 {
		return bytesIndex(hay, from, l.s)
	}
	c := l.s[l.rare]
	fails := 0
	for pos := from + l.rare; pos < len(hay); {
		i := bytes.IndexByte(hay[pos:], c)
		if i < 0 {
			return -1
		}
		at := pos + i - l.rare
		if at+len(l.s) > len(hay) {
			return -1
		}
		if hay[at] == l.s[0] && bytes.Equal(hay[at:at+len(l.s)], l.s) {
			return at
		}
		pos += i + 1
		if fails++; fails > 16+(pos-from)/8 {
			return bytesIndex(hay, pos-l.rare, l.s)
		}
	}
	return -1
}

func bytesIndex(hay []byte, from int, s []byte) int {
	if i := bytes.Index(hay[from:], s); i >= 0 {
		return from + i
	}
	return -1
}

func indexFrom(hay []byte, c byte, from int) int {
	if from >= len(hay) {
		return -1
	}
	if i := bytes.IndexByte(hay[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// equalFoldLower reports whether b equals the lowered ASCII lower under
// ASCII case folding.
func equalFoldLower(b, lower []byte) bool {
	for i, c := range lower {
		d := b[i]
		if d != c && (!isLetter(c) || d|0x20 != c) {
			return false
		}
	}
	return true
}

// prefilterAC is the automaton of a literal set larger than maxLits, or
// nil when one holds a newline (find's positions are a line's). Folded
// literals are lowered and the automaton's classes fold ASCII case.
func prefilterAC(set litSet) *ahoCorasick {
	lits := make([][]byte, len(set))
	fold := false
	for i, l := range set {
		if bytes.IndexByte(l.s, '\n') >= 0 {
			return nil
		}
		lits[i], fold = l.s, fold || l.fold
	}
	if fold {
		for i, l := range lits {
			lits[i] = []byte(lowerASCII(string(l)))
		}
	}
	a := newAhoCorasick(lits, fold)
	a.setPair(fold)
	return a
}

// hasNonASCIILit reports whether a literal of set holds a byte >= 0x80.
func hasNonASCIILit(set litSet) bool {
	for _, l := range set {
		if HasNonASCII(l.s) {
			return true
		}
	}
	return false
}
