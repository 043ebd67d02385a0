package grepfs

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"testing"

	"github.com/agentutils/agentutils/lib/grep/search"
)

// trickle reads data a few bytes to 100 KB at a time, as a pipe hands a
// stream over.
type trickle struct {
	data []byte
	rng  *rand.Rand
}

func (r *trickle) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 1+r.rng.Intn(100<<10))], r.data)
	r.data = r.data[n:]
	return n, nil
}

// wordLines is size bytes of numbered lines of random words; more may
// add to line i before its number.
func wordLines(rng *rand.Rand, size int, more func(i int, b *bytes.Buffer)) []byte {
	words := strings.Fields("alpha beta needle gamma delta rare epsilon café x")
	var text bytes.Buffer
	for i := 1; text.Len() < size; i++ {
		for n := rng.Intn(10); n > 0; n-- {
			text.WriteString(words[rng.Intn(len(words))] + " ")
		}
		if more != nil {
			more(i, &text)
		}
		fmt.Fprintf(&text, "%d\n", i)
	}
	return text.Bytes()
}

// flat is what a search emits, its parts' lines in one list, then the
// final counts.
func flat(rs []search.FileResult) string {
	var b strings.Builder
	for _, r := range rs {
		for _, l := range r.Lines {
			fmt.Fprintf(&b, "%d %d %v %q %v\n", l.Number, l.Offset, l.Match, l.Text, l.Subs)
		}
		if !r.More {
			fmt.Fprintf(&b, "matched=%d matches=%d binary=%d\n", r.MatchedLines, r.Matches, r.BinaryOffset)
		}
	}
	return b.String()
}

// TestStreamSameAsWhole: a stream of a few MB, searched in pieces through
// the one buffer that first held its head (the default sizes), gives
// what the search of its bytes whole gives.
func TestStreamSameAsWhole(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	text := wordLines(rng, 3<<20, func(i int, b *bytes.Buffer) {
		if i%5000 == 0 {
			b.WriteString(strings.Repeat("long needle ", 20000)) // lines longer than a piece
		}
	})
	for _, pat := range []string{"needle", "rare", "x$"} {
		m := mustCompile(t, pat)
		for _, so := range []search.SearchOptions{{}, {CountOnly: true}, {Before: 1, After: 2}} {
			so.Stdin, so.ChunkAbove = true, search.DefaultChunkAbove
			want := flat([]search.FileResult{search.SearchDecoded(m, "<stdin>", append([]byte(nil), text...), so)})
			var got []search.FileResult
			err := SearchReader(m, "<stdin>", &trickle{text, rng}, so, func(r search.FileResult) bool {
				got = append(got, r)
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			if g := flat(got); g != want {
				t.Fatalf("%q %+v: the stream's search differs:\n%s", pat, so, firstLineDiff(want, g))
			}
		}
	}
}
