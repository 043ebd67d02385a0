package printer

import (
	"github.com/agentutils/agentutils/lib/grep/search"
	"testing"
)

// TestBinaryStopAt: the line rg's printer stops at once it has seen a NUL
// (convert mode), read whole or through its buffer.
func TestBinaryStopAt(t *testing.T) {
	// lines as printed: numbers, offsets (10 bytes a line), matches
	mk := func(spec string) []search.Line {
		var out []search.Line
		for i := 0; i < len(spec); i += 2 {
			n := int(spec[i] - '0')
			out = append(out, search.Line{Number: n, Offset: int64(10 * (n - 1)), Text: []byte("123456789\n"), Match: spec[i+1] == 'm'})
		}
		return out
	}
	cases := []struct {
		name           string
		lines          string // number, then m (match) or c (context)
		from           int64
		slice, pass    bool
		lastNum, after int
		want           int
	}{
		{"no binary data", "1c2m3c", -1, false, false, 0, 1, 3},
		{"read whole, NUL early: the first line", "1c2m3c", 0, true, false, 0, 1, 0},
		{"read whole, NUL late: the line holding it", "1c2m3c", 20, true, false, 0, 1, 2},
		{"read whole: a context line before a match stops alone", "4c5m", 30, true, false, 0, 0, 0},
		{"buffered: a context line before a match goes with it", "3c4m", 25, false, false, 0, 0, 0},
		{"buffered: matches before the fill print", "1m2c4c5m", 35, false, false, 0, 1, 2},
		{"buffered: a line after a match at its own offset", "1m2c3c", 15, false, false, 0, 2, 2},
		{"buffered: after a match in an earlier part", "2c3c", 15, false, false, 1, 2, 1},
		{"buffered: after the -A lines, a line goes with the next match", "1m2c4c5c6m", 35, false, false, 0, 1, 2},
		{"buffered: no match after, the line at its own offset", "3c", 100, false, false, 0, 0, 1},
		{"passthru: every line at its own offset", "1c2c3m", 15, false, true, 0, 0, 2},
	}
	for _, c := range cases {
		if got := binaryStopAt(mk(c.lines), c.from, c.slice, c.pass, c.lastNum, c.after); got != c.want {
			t.Errorf("%s: stop at %d, want %d", c.name, got, c.want)
		}
	}
}
