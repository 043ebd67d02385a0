package printer

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
	"github.com/google/go-cmp/cmp"
)

// TestChunkedSameLines: a file searched in pieces (its newlines counted
// as read, its NULs looked for in the same pass) prints what the search
// of it whole prints, with -n, on random texts: NULs (walked: the file
// dropped from the fill holding one; named: NULs turned into line ends),
// CRLF, long lines, a last line without a newline, and matches around
// rg's 64 KiB fills; and under the rules of a memory map (Slice: a NUL
// counts in a printed line only), where the pieces count no newlines as
// read but up to each match.
func TestChunkedSameLines(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for round := 0; round < 40; round++ {
		checkChunkedSameLines(t, chunkInput(rng), 1+rng.Intn(200<<10))
	}
}

func FuzzChunkedSameLines(f *testing.F) {
	f.Add(int64(1), 1000)
	f.Add(int64(2), 70000)
	f.Fuzz(func(t *testing.T, seed int64, size int) {
		if size <= 0 || size > 1<<20 {
			return
		}
		checkChunkedSameLines(t, chunkInput(rand.New(rand.NewSource(seed))), size)
	})
}

// chunkInput is up to 400 KB of random lines, "needle" in some, NULs, CR
// and long lines in some inputs.
func chunkInput(rng *rand.Rand) []byte {
	var b bytes.Buffer
	n := rng.Intn(400 << 10)
	nul, crlf, long := rng.Intn(3) == 0, rng.Intn(3) == 0, rng.Intn(4) == 0
	for b.Len() < n {
		switch r := rng.Intn(100); {
		case r < 5:
			b.WriteString("a needle here")
		case r < 6 && nul:
			b.WriteString("bin\x00ary needle")
		case r < 7 && long:
			b.Write(bytes.Repeat([]byte("long needle line "), rng.Intn(20000)))
		default:
			for k := rng.Intn(80); k > 0; k-- {
				b.WriteByte(byte('a' + rng.Intn(26)))
			}
		}
		if crlf {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
	}
	out := b.Bytes()
	if len(out) > 0 && rng.Intn(2) == 0 {
		out = out[:len(out)-1] // no final newline
	}
	return out
}

func checkChunkedSameLines(t *testing.T, in []byte, size int) {
	t.Helper()
	m, err := regex.Compile(regex.MatchOptions{Patterns: []string{"needle"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, po := range []PrintOptions{{Mode: "standard", LineNumbers: true}, {Mode: "standard", LineNumbers: true, ByteOffset: true}} {
		for _, so := range []search.SearchOptions{{}, {SkipBinary: true}, {Text: true}, {Slice: true}} {
			_, whole, _ := printBoth(m, po, so, in)
			so.ChunkAbove, so.ChunkSize = 1, size
			_, pieces, _ := printBoth(m, po, so, in)
			if whole != pieces {
				t.Fatalf("%+v, %d-byte pieces of %d bytes: differs from the whole search (-whole +pieces):\n%.3000s",
					so, size, len(in), cmp.Diff(strings.Split(whole, "\n"), strings.Split(pieces, "\n")))
			}
		}
	}
}
