package regex_test

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
	"github.com/google/go-cmp/cmp"
)

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
			m, err := regex.Compile(regex.MatchOptions{Patterns: []string{pat}})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range []search.SearchOptions{{}, {CountOnly: true, LinesOnly: true}, {Spans: regex.SpansFirst}, {Invert: true}, {Before: 1}} {
				got := search.SearchBuffer(m, "f", buf, o)
				want := search.SearchBuffer(regex.WithoutNonASCIISkip(m), "f", buf, o)
				if diff := cmp.Diff(want, got, cmp.AllowUnexported(search.FileResult{})); diff != "" {
					t.Fatalf("%q %+v on %q: %s", pat, o, buf, diff)
				}
			}
		}
	}
}
