package regex

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// dfaAgrees checks the line DFA of pattern against Go's regexp on each
// line of text: where the DFA is sure, it says what regexp.Match says.
func dfaAgrees(t *testing.T, pattern string, text []byte) {
	t.Helper()
	expr, re, p, d := testDFA(t, pattern, false)
	if d == nil {
		return
	}
	defer p.put(d)
	for _, line := range bytes.Split(text, []byte{'\n'}) {
		got, sure := d.matchLine(line)
		if !sure {
			if utf8.Valid(line) && !d.full {
				t.Fatalf("%q on %q: unsure on valid UTF-8", expr, line)
			}
			continue
		}
		if want := re.Match(line); got != want {
			t.Fatalf("%q on %q: DFA %v, regexp %v", expr, line, got, want)
		}
	}
	// the scan over a buffer finds the same first line
	for off := 0; off < len(text); {
		start, sure := d.nextLine(text, off)
		want := -1
		for o := off; o < len(text); {
			e := bytes.IndexByte(text[o:], '\n')
			if e < 0 {
				e = len(text)
			} else {
				e += o
			}
			if _, sure := d.matchLine(text[o:e]); re.Match(text[o:e]) || !sure {
				want = o
				break
			}
			o = e + 1
		}
		if start != want && sure {
			t.Fatalf("%q on %q from %d: line %d, regexp %d", expr, text, off, start, want)
		}
		if start < 0 {
			break
		}
		off = start + bytes.IndexByte(text[start:], '\n') + 1
		if off == start {
			break
		}
	}
}

// testDFA compiles pattern (multi-line, as a line's) for regexp and a
// line DFA (uniWord: Unicode word boundaries); d is nil when regexp
// refuses it.
func testDFA(t *testing.T, pattern string, uniWord bool) (expr string, re *regexp.Regexp, p *dfaProg, d *lineDFA) {
	t.Helper()
	expr, err := lineOnly("(?m)" + pattern)
	if err != nil {
		return "", nil, nil, nil
	}
	if re, err = regexp.Compile(expr); err != nil {
		return "", nil, nil, nil
	}
	p = newDFAProg(expr, false, uniWord, 0)
	if d = p.get(); d == nil {
		t.Fatalf("%q compiles for regexp but not for the DFA", expr)
	}
	return expr, re, p, d
}

var dfaPatterns = []string{
	`a`, `abc`, `.`, `^$`, `^\s*$`, `^`, `$`, `a*`, `x*`, `\bfoo\b`, `\Bfoo`, `foo\B`, `\w+@\w+\.com`,
	`[A-Z][a-z]+ing`, `\p{Greek}`, `(?i)straße`, `(?i)k`, `[^a]`, `a|b|cd`, `(a|ab)(c|bcd)(d*)`,
	`^abc$`, `\Aab`, `ab\z`, `(?i)HeLLo`, `\d{3}-\d{4}`, `(?s).`, `[[:upper:]]+`, `\pL+\d`, `a{2,3}b`,
	`^(foo|bar)+$`, `\b`, `\B`, `(?U)a+?`, `é`, `[é-ü]+`, `^\w+$`, `\W`, `\S+\s\S+`, `x|^y`, `y$|^x`,
}

var dfaTexts = []string{
	"abc\n\nfoo bar\nfoofoo\n  \t\nxfoo\nfoox\nab\nb\n",
	"user@example.com\nnot an email\nTesting Something\nbringing\n",
	"αβγ text\nplain\nstraße STRASSE\nKelvin \u212a k\n\n",
	"123-4567\nfoobar\nbarfoo\nfoo\n\u00e9t\u00e9\nCAPS ONLY\ny\nx\n",
	"\xff\xfe bad utf8 abc\nok abc\n",
	"no newline at the end abc",
}

func TestLineDFAAgreesWithRegexp(t *testing.T) {
	for _, p := range dfaPatterns {
		for _, txt := range dfaTexts {
			dfaAgrees(t, p, []byte(txt))
		}
	}
}

// TestLineDFARandom: random patterns over a small alphabet against random
// lines (a deterministic seed: the same cases every run).
func TestLineDFARandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	atoms := []string{"a", "b", "c", ".", "[ab]", "[^a]", `\w`, `\W`, `\s`, `\b`, `\B`, "^", "$", "é", `\d`, "(?i:a)", "A"}
	ops := []string{"", "*", "+", "?", "{2}", "{1,3}", "*?"}
	alpha := []string{"a", "b", "c", " ", "é", "A", "1", "_", "\n"}
	for i := 0; i < 3000; i++ {
		pat, txt := randomCase(r, atoms, ops, alpha, 30)
		dfaAgrees(t, pat, txt)
	}
}

// randomCase is a pattern of up to 5 atoms, each with an op (one in six
// an alternation of two), and a text of fewer than maxText pieces of
// alpha.
func randomCase(r *rand.Rand, atoms, ops, alpha []string, maxText int) (string, []byte) {
	var pat strings.Builder
	for k := r.IntN(5) + 1; k > 0; k-- {
		if r.IntN(6) == 0 {
			pat.WriteString("(" + atoms[r.IntN(len(atoms))] + "|" + atoms[r.IntN(len(atoms))] + ")")
		} else {
			pat.WriteString(atoms[r.IntN(len(atoms))])
		}
		pat.WriteString(ops[r.IntN(len(ops))])
	}
	var txt strings.Builder
	for k := r.IntN(maxText); k > 0; k-- {
		txt.WriteString(alpha[r.IntN(len(alpha))])
	}
	return pat.String(), []byte(txt.String())
}

func FuzzLineDFA(f *testing.F) {
	for i, p := range dfaPatterns {
		f.Add(p, []byte(dfaTexts[i%len(dfaTexts)]))
	}
	f.Fuzz(func(t *testing.T, pattern string, text []byte) {
		if len(pattern) > 200 {
			return
		}
		dfaAgrees(t, pattern, text)
	})
}

// TestAhoCorasickLeftmostFirst: the automaton's matches are regexp's on
// an alternation of the same literals, on random sets and texts.
func TestAhoCorasickLeftmostFirst(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		var lits [][]byte
		var quoted []string
		for k := r.IntN(20) + 1; k > 0; k-- {
			var b []byte
			for n := r.IntN(4) + 1; n > 0; n-- {
				b = append(b, []string{"a", "b", "c", "é"}[r.IntN(4)]...)
			}
			lits = append(lits, b)
			quoted = append(quoted, regexp.QuoteMeta(string(b)))
		}
		var h []byte
		for n := r.IntN(200); n > 0; n-- {
			h = append(h, []string{"a", "b", "c", "d", "\xc3", "é"}[r.IntN(6)]...)
		}
		want := regexp.MustCompile(strings.Join(quoted, "|")).FindAllIndex(h, -1)
		a := newAhoCorasick(lits, false)
		var got [][]int
		for p := 0; ; {
			s, e := a.leftmost(h, p)
			if s < 0 {
				break
			}
			got = append(got, []int{s, e})
			p = e
		}
		if fmt.Sprint(got) != fmt.Sprint(want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("%q on %q: %v, regexp %v", lits, h, got, want)
		}
		if e := a.firstEnd(h, 0); (e < 0) != (len(want) == 0) {
			t.Fatalf("%q on %q: firstEnd %d, regexp %v", lits, h, e, want)
		}
	}
}

// --dfa-size-limit bounds the cache: with a small one it never holds more
// states than the bound (it is emptied and refilled, RE2's way), and its
// answers stay the regexp's.
func TestDFASizeLimit(t *testing.T) {
	if statesFor(0) != maxStates || statesFor(1) != 8 || statesFor(10<<20) <= maxStates {
		t.Fatalf("statesFor: %d %d %d", statesFor(0), statesFor(1), statesFor(10<<20))
	}
	expr, _ := lineOnly("(?m)[a-z]+[0-9]{2,4}x")
	re := regexp.MustCompile(expr)
	for _, limit := range []int64{1, 0} {
		p := newDFAProg(expr, false, false, limit)
		d := p.get()
		most, sure := 0, 0
		for _, line := range []string{"abc12x", "q9999x", "zz1x", "m123x", "hello42x", "a1b22x", "x0000y", "ab12345x"} {
			got, ok := d.matchLine([]byte(line))
			most = max(most, len(d.cache))
			if !ok {
				continue
			}
			sure++
			if got != re.MatchString(line) {
				t.Fatalf("limit %d, %q: DFA %v, regexp %v", limit, line, got, !got)
			}
		}
		p.put(d)
		if most > p.states || sure == 0 {
			t.Fatalf("limit %d: the cache held %d states (bound %d), %d sure answers", limit, most, p.states, sure)
		}
		if limit == 1 && most != p.states {
			t.Fatalf("a 1-byte limit never filled its %d states (most %d): the test does not reach the bound", p.states, most)
		}
	}
}

// A matcher compiled with a tiny --dfa-size-limit (its forward DFA and the
// reverse-suffix one both bounded) finds the lines a default one finds.
func TestMatcherDFASizeLimit(t *testing.T) {
	var text []byte
	for i := 0; i < 300; i++ {
		text = append(text, fmt.Sprintf("x%d Setting(%d) Going %c%cing( zz\n", i, i, 'A'+i%26, 'a'+i%26)...)
	}
	for _, pat := range []string{`[A-Z][a-z]+ing\(`, `\w+[0-9]{2}\)`} {
		var got [2][]bool
		for j, limit := range []int64{0, 1} {
			m, err := Compile(MatchOptions{Patterns: []string{pat}, DFASizeLimit: limit})
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range bytes.Split(text, []byte{'\n'}) {
				got[j] = append(got[j], m.HasMatch(line))
			}
		}
		if !slices.Equal(got[0], got[1]) {
			t.Errorf("%s: a 1-byte DFA limit changes which lines match", pat)
		}
	}
}
