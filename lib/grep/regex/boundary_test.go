package regex

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUnicodeBoundary: \b and \B as rg 13 reads them (each row checked
// against `rg -o`): Unicode word characters on either side.
func TestUnicodeBoundary(t *testing.T) {
	text := "héllo 世界 wörld ñandú\naé b\néa\nxéx\n"
	for _, c := range []struct {
		pat  string
		want []string
	}{
		{`\b\w+\b`, []string{"héllo", "世界", "wörld", "ñandú", "aé", "b", "éa", "xéx"}},
		{`é\b`, []string{"é"}},           // aé's
		{`\bé`, []string{"é"}},           // éa's
		{`\Bé`, []string{"é", "é", "é"}}, // héllo, aé, xéx: inside words
		{`\b\p{Han}+\b`, []string{"世界"}},
		{`(?-u:\b)x`, []string{"x", "x"}}, // ASCII: é is no word character there
	} {
		m, err := Compile(MatchOptions{Patterns: []string{c.pat}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range m.Find([]byte(text), 0) {
			got = append(got, text[s.Start:s.End])
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.pat, d)
		}
	}
}

// FuzzUniBoundary: on ASCII text, Unicode and ASCII word boundaries are
// the same, so uniBoundary finds what Go's regexp finds, groups included.
func FuzzUniBoundary(f *testing.F) {
	f.Add(`\b\w+\b`, "ab cd_1 ,e")
	f.Add(`(a|\Bb)+\b`, "abab ba b")
	f.Add(`^\b|x*\B`, "x xx\nxy")
	f.Add(`(\w)(\W)?\b$`, "a,\nb c")
	f.Fuzz(func(t *testing.T, pat, text string) {
		for i := 0; i < len(text); i++ {
			if text[i] >= 0x80 {
				return
			}
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return
		}
		u, err := newUniBoundary(pat, re)
		if err != nil {
			t.Fatalf("%q: regexp compiles it, uniBoundary not: %v", pat, err)
		}
		b := []byte(text)
		if d := cmp.Diff(re.FindAllIndex(b, -1), u.FindAllIndex(b, -1)); d != "" {
			t.Fatalf("%q on %q: FindAllIndex (-regexp +uniBoundary):\n%s", pat, text, d)
		}
		if d := cmp.Diff(re.FindSubmatchIndex(b), u.FindSubmatchIndex(b)); d != "" {
			t.Fatalf("%q on %q: FindSubmatchIndex (-regexp +uniBoundary):\n%s", pat, text, d)
		}
		if re.Match(b) != u.Match(b) {
			t.Fatalf("%q on %q: Match %v, uniBoundary %v", pat, text, re.Match(b), u.Match(b))
		}
	})
}

// TestUniBoundaryRandom runs FuzzUniBoundary's check on random patterns
// built from boundaries, classes, groups and repetitions.
func TestUniBoundaryRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	atoms := []string{`\b`, `\B`, "a", "b", `\w`, `\W`, " ", ".", "^", "$", "(a|b)", "(?:ab)", "[^a]", `\s`}
	ops := []string{"", "*", "+", "?", "*?", "{1,2}"}
	alpha := []string{"a", "b", " ", "_", "1", ",", "\n", "ab"}
	for i := 0; i < 2000; i++ {
		var pat, txt strings.Builder
		if i%3 == 0 {
			pat.WriteString("(?m)")
		}
		for k := r.IntN(5) + 1; k > 0; k-- {
			pat.WriteString(atoms[r.IntN(len(atoms))])
			pat.WriteString(ops[r.IntN(len(ops))])
		}
		for k := r.IntN(30); k > 0; k-- {
			txt.WriteString(alpha[r.IntN(len(alpha))])
		}
		re, err := regexp.Compile(pat.String())
		if err != nil {
			continue
		}
		u, err := newUniBoundary(pat.String(), re)
		if err != nil {
			t.Fatal(err)
		}
		b := []byte(txt.String())
		if d := cmp.Diff(re.FindAllIndex(b, -1), u.FindAllIndex(b, -1)); d != "" {
			t.Fatalf("%q on %q (-regexp +uniBoundary):\n%s", pat.String(), b, d)
		}
		if d := cmp.Diff(re.FindSubmatchIndex(b), u.FindSubmatchIndex(b)); d != "" {
			t.Fatalf("%q on %q: submatches (-regexp +uniBoundary):\n%s", pat.String(), b, d)
		}
	}
}

// TestFoldSpellings: a case-insensitive literal with non-ASCII letters is
// prefiltered by the spellings of one of its runs, and one literal or an
// alternation of them is matched by the automaton of all their spellings
// (required.go, foldLiteralSet); every match the regexp finds is still
// found, whatever the case of each character (σ ς Σ, the Kelvin sign, ſ,
// ß ẞ), the leftmost first and at one start the alternative listed first.
func TestFoldSpellings(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, pat := range []string{"σοφία", "straße", "привет", "ärger", "ksk", "ǅemal", "ΣΟΦΊΑ",
		"straße|привет|ärger|kelvin", "σ|σοφία", "σοφία|σοφ|ία", "ss|ß|s", "k|ke|kelvin", "φία|σοφ|ία", "kelvin|elv|ſ"} {
		m, err := Compile(MatchOptions{Patterns: []string{pat}, IgnoreCase: true})
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile("(?i)" + pat)
		alts := strings.Split(pat, "|")
		for i := 0; i < 200; i++ {
			var b strings.Builder
			for range 1 + r.IntN(4) {
				for _, c := range alts[r.IntN(len(alts))] {
					o := foldOrbit(c)
					b.WriteRune(o[r.IntN(len(o))])
				}
				b.WriteString([]string{"", " ", "x", "\n"}[r.IntN(4)])
			}
			text := "x " + b.String() + " y\n" + strings.Repeat("z", r.IntN(5)) + b.String() + "\n"
			var want []Span
			for _, loc := range re.FindAllIndex([]byte(text), -1) {
				want = append(want, Span{loc[0], loc[1]})
			}
			if d := cmp.Diff(want, m.Find([]byte(text), 0)); d != "" {
				t.Fatalf("%s on %q (-regexp +matcher):\n%s", pat, text, d)
			}
		}
	}
}
