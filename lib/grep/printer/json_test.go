package printer

import (
	"bytes"
	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
	"math/rand"
	"strings"
	"testing"
)

// jsonSub and jsonLine are a match or context record as encoding/json
// writes it: the oracle of appendJSONLine.
type jsonSub struct {
	Match Data `json:"match"`
	Start int  `json:"start"`
	End   int  `json:"end"`
}

type jsonLine struct {
	Path           Data      `json:"path"`
	Lines          Data      `json:"lines"`
	LineNumber     int       `json:"line_number"`
	AbsoluteOffset int64     `json:"absolute_offset"`
	Submatches     []jsonSub `json:"submatches"`
}

// TestJSONLineAsEncodingJSON: the records appendJSONLine writes are
// encoding/json's (without HTML escaping), byte for byte, for random
// lines of quotes, backslashes, control bytes, UTF-8 and invalid UTF-8.
func TestJSONLineAsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "Z", " ", "\"", "\\", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f", "<", ">", "&",
		"é", "\u2028", "日本", "\xff", "\xc3", "/"}
	rnd := func(n int) []byte {
		var b []byte
		for i := rng.Intn(n); i > 0; i-- {
			b = append(b, alphabet[rng.Intn(len(alphabet))]...)
		}
		return b
	}
	for i := 0; i < 20000; i++ {
		path := rnd(6)
		l := search.Line{Number: rng.Intn(1 << 20), Offset: rng.Int63n(1 << 40), Text: rnd(12), Match: i%3 != 0}
		for s := 0; s < len(l.Text); {
			a := s + rng.Intn(len(l.Text)-s+1)
			b := a + rng.Intn(len(l.Text)-a+1)
			if rng.Intn(3) == 0 {
				l.Subs = append(l.Subs, regex.Span{Start: a, End: b})
			}
			s = b + 1
		}
		typ := "context"
		subs := []jsonSub{}
		if l.Match {
			typ = "match"
		}
		for _, s := range l.Subs { // (-v: a context line's matches too)
			subs = append(subs, jsonSub{NewData(l.Text[s.Start:s.End]), s.Start, s.End})
		}
		want := marshal(record{typ, jsonLine{NewData(path), NewData(l.Text), l.Number, l.Offset, subs}})
		got := appendJSONLine(nil, appendData(nil, path), l)
		if !bytes.Equal(got, want) {
			t.Fatalf("line %q (path %q):\ngot  %s\nwant %s", l.Text, path, got, want)
		}
	}
}

// TestJSONStringAsSerde: appendJSONString escapes as encoding/json does
// without HTML escaping, but for U+2028 and U+2029, which serde_json (rg)
// leaves as they are.
func TestJSONStringAsSerde(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	alphabet := []string{"a", " ", "\"", "\\", "\n", "\r", "\t", "\b", "\f", "\x00", "\x01", "\x1f", "\x7f", "<", ">", "&",
		"é", "\u2028", "\u2029", "日本", "/"}
	for i := 0; i < 20000; i++ {
		var s string
		for k := rng.Intn(16); k > 0; k-- {
			s += alphabet[rng.Intn(len(alphabet))]
		}
		want := strings.NewReplacer(`\u2028`, "\u2028", `\u2029`, "\u2029").Replace(string(marshal(s)))
		if got := string(appendJSONString(nil, s)); got != want {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	}
}
