package regex

import (
	"regexp/syntax"
	"strings"
	"testing"
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
		if got := IndexNonASCII(p); got != -1 {
			t.Fatalf("len %d: %d", n, got)
		}
		for i := 0; i < n; i++ {
			p[i] = 0x80 + byte(i)
			if got := IndexNonASCII(p); got != i {
				t.Fatalf("len %d, at %d: %d", n, i, got)
			}
			p[i] = 'a'
		}
	}
}
