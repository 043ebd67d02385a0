package search

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/google/go-cmp/cmp"
)

// TestContextLinesSame: searchContextLines (the matching lines and the
// lines around them) prints what searchContext (every line walked)
// prints, with random texts, patterns, -A/-B, -m and span needs.
func TestContextLinesSame(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	words := []string{"foo", "bar", "fo", "o", "", "café", "x\xffy", "foobar", "a b", "ee", "Foo"}
	pats := []string{"foo", "o", "fo+", "a*", "^", "$", "é", "\\w+", "bar|foo", "x.y", "(?i)foo", "e", "^$", "b.r$"}
	for i := 0; i < 3000; i++ {
		var sb strings.Builder
		for n := rng.Intn(30); n > 0; n-- {
			for w := rng.Intn(4); w > 0; w-- {
				sb.WriteString(words[rng.Intn(len(words))])
				sb.WriteByte(' ')
			}
			if rng.Intn(8) > 0 || n > 1 {
				sb.WriteByte('\n')
			}
		}
		buf := []byte(sb.String())
		if len(buf) == 0 {
			continue
		}
		pat := pats[rng.Intn(len(pats))]
		m, err := regex.Compile(regex.MatchOptions{Patterns: []string{pat}, Word: i%5 == 0, IgnoreCase: i%7 == 0, Fixed: i%11 == 0})
		if err != nil {
			t.Fatal(err)
		}
		o := SearchOptions{Before: rng.Intn(3), After: rng.Intn(3), MaxCount: rng.Intn(3), Slice: i%2 == 0}
		if o.Before+o.After == 0 {
			o.After = 1
		}
		old := m
		if m.Uni != nil && regex.HasNonASCII(buf) {
			old = m.Uni // (as SearchBuffer chose for searchContext)
		}
		r0 := FileResult{BytesSearched: int64(len(buf)), BinaryOffset: -1, BinaryFrom: -1}
		want := searchContext(old, buf, o, r0)
		cur := m
		if m.Uni != nil && !m.UniLines && regex.HasNonASCII(buf) {
			cur = m.Uni // (as SearchBuffer chooses for searchContextLines)
		}
		got := searchContextLines(cur, buf, o, r0)
		name := fmt.Sprintf("%q %+v over %q", pat, o, buf)
		if d := cmp.Diff(want.Lines, got.Lines); d != "" {
			t.Fatalf("%s: lines differ (-searchContext +searchContextLines):\n%s", name, d)
		}
		if want.MatchedLines != got.MatchedLines || want.Matches != got.Matches || want.BytesSearched != got.BytesSearched {
			t.Fatalf("%s: counts %d %d %d, want %d %d %d", name, got.MatchedLines, got.Matches, got.BytesSearched,
				want.MatchedLines, want.Matches, want.BytesSearched)
		}
	}
}
