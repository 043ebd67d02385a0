package grep

import (
	"math/rand"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// needsNonASCII on the shapes of pattern it says yes and no to.
func TestNeedsNonASCII(t *testing.T) {
	for pat, want := range map[string]bool{
		`\p{Greek}`: true, `[α-ω]+`: true, `é`: true, `aé`: true, `(é|ü)x`: true, `(?:ü){2,}`: true, `\PL`: false,
		`a`: false, `é?`: false, `é*`: false, `(é|a)`: false, `[^a]`: false, `.`: false, `(?i)k`: false,
		`(?i)\x{212A}`: false, `(?i)ſ`: false, `(?i)é`: true, `\p{Han}+x`: true, `^$`: false, `[\x{80}-\x{10FFFF}]`: true,
	} {
		re, err := syntax.Parse(pat, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := needsNonASCII(re.Simplify()); got != want {
			t.Errorf("needsNonASCII(%q) = %v, want %v", pat, got, want)
		}
	}
}

// indexNonASCII against a loop, at every position around its steps.
func TestIndexNonASCII(t *testing.T) {
	for n := 0; n < 100; n++ {
		p := []byte(strings.Repeat("a", n))
		if got := indexNonASCII(p); got != -1 {
			t.Fatalf("len %d: %d", n, got)
		}
		for i := 0; i < n; i++ {
			p[i] = 0x80 + byte(i)
			if got := indexNonASCII(p); got != i {
				t.Fatalf("len %d, at %d: %d", n, i, got)
			}
			p[i] = 'a'
		}
	}
}

// A search that skips the ASCII lines finds what the DFA on every line
// finds, with invalid UTF-8, CRLF and no final newline about.
func TestNonASCIISkipSameResult(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	pieces := []string{"plain ascii text", "αβγ", "ω", "café", "\xff\xfe", "K", "\u212a", "x\r", "", "  "}
	for round := 0; round < 60; round++ {
		var b strings.Builder
		for n := rng.Intn(200); n > 0; n-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
			if rng.Intn(3) == 0 {
				b.WriteByte('\n')
			}
		}
		buf := []byte(b.String())
		for _, pat := range []string{`\p{Greek}`, `[α-ω]+`, `\p{Greek}\s*\w`, `(?i)\x{212A}x?`, `^\p{Greek}`, `\p{Greek}$`} {
			m, err := Compile(MatchOptions{Patterns: []string{pat}})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range []SearchOptions{{}, {CountOnly: true, LinesOnly: true}, {Spans: SpansFirst}, {Invert: true}, {Before: 1}} {
				got := SearchBuffer(m, "f", buf, o)
				plain := *m
				plain.nonASCII = false
				want := SearchBuffer(&plain, "f", buf, o)
				if diff := cmp.Diff(want, got, cmp.AllowUnexported(FileResult{})); diff != "" {
					t.Fatalf("%q %+v on %q: %s", pat, o, buf, diff)
				}
			}
		}
	}
}
