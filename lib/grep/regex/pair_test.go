package regex

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// naivePair is indexPair's meaning, one position at a time.
func naivePair(hay []byte, b1, b2, m1, m2 byte, d int) int {
	for i := 0; i+d < len(hay); i++ {
		if hay[i]|m1 == b1 && hay[i+d]|m2 == b2 {
			return i
		}
	}
	return -1
}

// TestIndexPair: the SSE2 and AVX2 scans against the naive one on random
// texts of every length up to 300, at every alignment, over a small
// alphabet (so that hits are frequent, at block edges too).
func TestIndexPair(t *testing.T) {
	avx2 := hasAVX2
	defer func() { hasAVX2 = avx2 }()
	for _, hasAVX2 = range []bool{false, avx2} {
		testIndexPair(t)
	}
}

func testIndexPair(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alpha := []byte("abAB\x00\xff")
	buf := make([]byte, 400)
	for i := 0; i < 40000; i++ {
		n := r.IntN(301)
		off := r.IntN(16)
		hay := buf[off : off+n]
		sparse := r.IntN(2) == 0 // hits far apart: the wide rounds run on
		for k := range hay {
			hay[k] = alpha[r.IntN(len(alpha))]
			if sparse && r.IntN(60) != 0 {
				hay[k] = 'z'
			}
		}
		b1, b2 := alpha[r.IntN(len(alpha))], alpha[r.IntN(len(alpha))]
		var m1, m2 byte
		if r.IntN(2) == 0 {
			m1 = 0x20
			b1 |= m1
		}
		if r.IntN(2) == 0 {
			m2 = 0x20
			b2 |= m2
		}
		d := 1 + r.IntN(20)
		if got, want := indexPair(hay, b1, b2, m1, m2, d), naivePair(hay, b1, b2, m1, m2, d); got != want {
			t.Fatalf("indexPair(%q, %q, %q, %#x, %#x, %d) = %d, want %d", hay, b1, b2, m1, m2, d, got, want)
		}
	}
}

// TestLitIndexRandom: a literal's index (pair scan, folded or not) finds
// what bytes.Index finds, on random texts.
func TestLitIndexRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	alpha := []byte("abcAB m\n")
	for i := 0; i < 20000; i++ {
		s := make([]byte, 1+r.IntN(6))
		for k := range s {
			s[k] = alpha[r.IntN(len(alpha))]
		}
		hay := make([]byte, r.IntN(120))
		for k := range hay {
			hay[k] = alpha[r.IntN(len(alpha))]
		}
		fold := r.IntN(2) == 0
		set := newLitSet([]rune(string(s)), fold)
		if set == nil {
			continue
		}
		l := &set[0]
		from := r.IntN(len(hay) + 1)
		want := -1
		needle, h := l.s, hay
		if fold {
			h = bytes.ToLower(hay)
		}
		if j := bytes.Index(h[from:], needle); j >= 0 {
			want = from + j
		}
		st := litScan{next: -2, lo: -2, up: -2}
		if got := l.index(hay, from, &st); got != want {
			t.Fatalf("%q (fold %v) in %q from %d: %d, want %d", l.s, fold, hay, from, got, want)
		}
	}
}

func FuzzIndexPair(f *testing.F) {
	f.Add([]byte("func main() {}\nfunc mainly"), byte('f'), byte('m'), false, false, uint8(5))
	f.Fuzz(func(t *testing.T, hay []byte, b1, b2 byte, f1, f2 bool, d uint8) {
		var m1, m2 byte
		if f1 {
			m1 = 0x20
		}
		if f2 {
			m2 = 0x20
		}
		b1, b2 = b1|m1, b2|m2
		dd := int(d%64) + 1
		if got, want := indexPair(hay, b1, b2, m1, m2, dd), naivePair(hay, b1, b2, m1, m2, dd); got != want {
			t.Fatalf("indexPair = %d, want %d", got, want)
		}
	})
}

// TestAhoCorasickFirstEnd: firstEnd (two scans side by side over
// windows) finds the earliest end of any literal, on random sets and
// texts long enough to cross many windows; so does its pair scan
// (setPair) over literals of one length.
func TestAhoCorasickFirstEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 3000; i++ {
		var lits [][]byte
		size := 1 + r.IntN(12) // every literal's, every third round (setPair)
		n := r.IntN(30) + 1
		if i%3 == 2 {
			n = r.IntN(8) + 1 // in groups (setGroups)
		}
		for k := n; k > 0; k-- {
			b := make([]byte, size)
			if i%3 != 1 {
				b = make([]byte, 1+r.IntN(12))
			}
			for n := range b {
				b[n] = "abcdAB"[r.IntN(6)]
			}
			lits = append(lits, b)
		}
		h := make([]byte, r.IntN(3000))
		for n := range h {
			h[n] = "abcdefghAB"[r.IntN(10)]
		}
		a := newAhoCorasick(lits, false)
		switch i % 3 {
		case 1:
			a.setPair(false)
		case 2:
			a.setGroups(false)
		}
		from := r.IntN(len(h) + 1)
		want := -1
		for _, l := range lits {
			if j := bytes.Index(h[from:], l); j >= 0 && (want < 0 || from+j+len(l) < want) {
				want = from + j + len(l)
			}
		}
		// the earliest end: a longer literal may end before a shorter one starts
		for e := from + 1; e <= len(h) && (want < 0 || e < want); e++ {
			for _, l := range lits {
				if e-len(l) >= from && bytes.Equal(h[e-len(l):e], l) {
					want = e
				}
			}
		}
		if got := a.firstEnd(h, from); got != want {
			t.Fatalf("%q in %d bytes from %d (pair %v): firstEnd %d, want %d", lits, len(h), from, a.hasPair, got, want)
		}
	}
}

// FuzzAhoCorasick: the automaton of the lines of set against regexp's
// leftmost-first matches of their alternation, and firstEnd against the
// earliest end of any of them.
func FuzzAhoCorasick(f *testing.F) {
	f.Add("ab\nabc\nbc", []byte("xxabcabxbc"), uint16(0))
	f.Add("func\nmain\nunc m", bytes.Repeat([]byte("func main() {}\n"), 80), uint16(3))
	f.Fuzz(func(t *testing.T, set string, hay []byte, from uint16) {
		var lits [][]byte
		var quoted []string
		for _, l := range strings.Split(set, "\n") {
			if l == "" || !utf8.ValidString(l) || len(lits) == 40 {
				continue
			}
			lits = append(lits, []byte(l))
			quoted = append(quoted, regexp.QuoteMeta(l))
		}
		if len(lits) == 0 {
			return
		}
		a := newAhoCorasick(lits, false)
		p := int(from) % (len(hay) + 1)
		want := -1
		for _, l := range lits {
			if j := bytes.Index(hay[p:], l); j >= 0 && (want < 0 || p+j+len(l) < want) {
				want = p + j + len(l)
			}
		}
		if got := a.firstEnd(hay, p); got != want {
			t.Fatalf("%q in %q from %d: firstEnd %d, want %d", lits, hay, p, got, want)
		}
		g := newAhoCorasick(lits, false)
		g.setGroups(false)
		if got := g.firstEnd(hay, p); got != want {
			t.Fatalf("%q in %q from %d (%d groups): firstEnd %d, want %d", lits, hay, p, len(g.groups), got, want)
		}
		// firstEndIn from every position on, its ends kept from call to call
		var gs groupScan
		for q := p; q <= len(hay); q++ {
			want := -1
			for _, l := range lits {
				if j := bytes.Index(hay[q:], l); j >= 0 && (want < 0 || q+j+len(l) < want) {
					want = q + j + len(l)
				}
			}
			if got := g.firstEndIn(hay, q, &gs); got != want {
				t.Fatalf("%q in %q from %d, after %d (%d groups): firstEndIn %d, want %d", lits, hay, q, p, len(g.groups), got, want)
			}
		}
		if !utf8.Valid(hay) {
			return // regexp reads U+FFFD where the automaton reads bytes
		}
		loc := regexp.MustCompile(strings.Join(quoted, "|")).FindIndex(hay)
		s, e := a.leftmost(hay, 0)
		if loc == nil && s >= 0 || loc != nil && (s != loc[0] || e != loc[1]) {
			t.Fatalf("%q in %q: leftmost %d %d, regexp %v", lits, hay, s, e, loc)
		}
	})
}

// TestIndexPair3: the scan that checks a third byte (a literal not
// folded, AVX2) finds the first position with all three bytes, against a
// naive loop, on random texts around the 32- and 64-byte rounds, where
// the pair is frequent and the third byte sometimes before it.
func TestIndexPair3(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2")
	}
	r := rand.New(rand.NewPCG(9, 10))
	alpha := []byte("abcd\x00")
	for i := 0; i < 30000; i++ {
		s := make([]byte, 3+r.IntN(6))
		for k := range s {
			s[k] = alpha[r.IntN(len(alpha))]
		}
		p, ok := newPair(s, false)
		if !ok || !p.has3 {
			continue
		}
		hay := make([]byte, r.IntN(300))
		sparse := r.IntN(2) == 0
		for k := range hay {
			hay[k] = alpha[r.IntN(len(alpha))]
			if sparse && r.IntN(40) != 0 {
				hay[k] = 'z'
			}
		}
		from := r.IntN(len(hay) + 1)
		want := -1
		for j := from; j+len(s) <= len(hay); j++ {
			if hay[j+p.o1] == p.b1 && hay[j+p.o2] == p.b2 && hay[j+p.o3] == p.b3 {
				want = j
				break
			}
		}
		if got := p.index(hay, from, len(s)); got != want {
			t.Fatalf("%q (bytes %d %d %d) in %q from %d: %d, want %d", s, p.o1, p.o2, p.o3, hay, from, got, want)
		}
	}
}

// TestNewPairUTF8: a literal of non-ASCII letters is scanned for bytes
// that are not its characters' leading bytes (one script shares one or
// two: D0 and D1 are a tenth of a Russian text), and of those as rare,
// two letters apart rather than neighbours (пр starts a Russian word in
// ten).
func TestNewPairUTF8(t *testing.T) {
	for _, lit := range []string{"привет", "σοφία", "世界です"} {
		p, ok := newPair([]byte(lit), false)
		if !ok {
			t.Fatalf("%s: no pair", lit)
		}
		if p.b1 >= 0xc0 || p.b2 >= 0xc0 {
			t.Errorf("%s: pair %#x %#x: a leading byte", lit, p.b1, p.b2)
		}
		if p.o2-p.o1 < 4 {
			t.Errorf("%s: pair at %d and %d: want two letters apart at least", lit, p.o1, p.o2)
		}
	}
}
