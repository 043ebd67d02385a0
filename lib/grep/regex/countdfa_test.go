package regex

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// countAgrees checks the count DFA of pattern on each line of text
// against the number of matches the regexp finds (uniBoundary's with
// Unicode word boundaries when uni): where the DFA answers, the same
// number; and it answers on valid UTF-8 for a pattern with no empty match.
func countAgrees(t *testing.T, pattern string, text []byte, uni bool) {
	t.Helper()
	expr, re, p, d := testDFA(t, pattern, uni)
	if d == nil {
		return
	}
	defer p.put(d)
	var ref Regexp = re
	if uni {
		var err error
		if ref, err = newUniBoundary(expr, re); err != nil {
			t.Fatal(err)
		}
	}
	for _, line := range bytes.Split(text, []byte{'\n'}) {
		got, ok := d.countMatches(line)
		if !ok {
			if p.nonEmpty && utf8.Valid(line) && !d.cfull {
				t.Fatalf("%q on %q: no count on valid UTF-8", expr, line)
			}
			continue
		}
		if want := len(ref.FindAllIndex(line, -1)); got != want {
			t.Fatalf("%q (uni %v) on %q: DFA counts %d, regexp %d", expr, uni, line, got, want)
		}
	}
}

func TestCountDFAAgrees(t *testing.T) {
	for _, p := range append(dfaPatterns, `\b\w+\b`, `\w+`, `\b\p{Greek}+ος\b`, `(a|ab)(c|bcd)`, `a+?b*`, `\bé\w*`) {
		for _, txt := range append(dfaTexts, "héllo 世界 wörld ñandú\nσοφία σοφίας ος\n_a1 é,b") {
			countAgrees(t, p, []byte(txt), false)
			countAgrees(t, p, []byte(txt), true)
		}
	}
}

// TestCountDFARandom: random patterns over a small alphabet against
// random lines, both word-boundary kinds (a deterministic seed).
func TestCountDFARandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	atoms := []string{"a", "b", "c", ".", "[ab]", "[^a]", `\w`, `\W`, `\s`, `\b`, `\B`, "^", "$", "é", `\d`, "(?i:a)", "A", "世"}
	ops := []string{"", "*", "+", "?", "{2}", "{1,3}", "*?", "+?"}
	alpha := []string{"a", "b", "c", " ", "é", "A", "1", "_", "世", ",", "\n"}
	for i := 0; i < 4000; i++ {
		pat, txt := randomCase(r, atoms, ops, alpha, 40)
		countAgrees(t, pat, txt, i%2 == 0)
	}
}

func FuzzCountDFA(f *testing.F) {
	f.Add(`\b\w+\b`, []byte("héllo 世界 wörld ñandú"), true)
	f.Add(`(a|ab)(c|bcd)`, []byte("abcd abc"), false)
	f.Add(`\B\w\b`, []byte("ab é, c"), true)
	f.Fuzz(func(t *testing.T, pattern string, text []byte, uni bool) {
		if len(pattern) > 100 || len(text) > 1000 {
			return
		}
		countAgrees(t, pattern, text, uni)
	})
}
