package search

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/google/go-cmp/cmp"
)

func lines(r FileResult) []string {
	var out []string
	for _, l := range r.Lines {
		k := ":"
		if !l.Match {
			k = "-"
		}
		if l.Gap {
			out = append(out, "--")
		}
		out = append(out, strings.TrimRight(string(l.Text), "\n")+k)
	}
	return out
}

func TestSearchBuffer(t *testing.T) {
	buf := []byte("alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\n")
	tests := []struct {
		name string
		mo   regex.MatchOptions
		so   SearchOptions
		want []string
		n    int
	}{
		{"literal", regex.MatchOptions{Patterns: []string{"eta"}}, SearchOptions{}, []string{"beta:", "zeta:"}, 2},
		{"ignore case", regex.MatchOptions{Patterns: []string{"ALPHA"}, IgnoreCase: true}, SearchOptions{}, []string{"alpha:"}, 1},
		{"smart case lower", regex.MatchOptions{Patterns: []string{"delta"}, SmartCase: true}, SearchOptions{}, []string{"delta:"}, 1},
		{"smart case upper", regex.MatchOptions{Patterns: []string{"Delta"}, SmartCase: true}, SearchOptions{}, nil, 0},
		{"word", regex.MatchOptions{Patterns: []string{"eta"}, Word: true}, SearchOptions{}, nil, 0},
		{"line", regex.MatchOptions{Patterns: []string{"gam+a"}, Line: true}, SearchOptions{}, []string{"gamma:"}, 1},
		{"invert", regex.MatchOptions{Patterns: []string{"a$"}}, SearchOptions{Invert: true}, []string{"epsilon:"}, 1},
		{"max count", regex.MatchOptions{Patterns: []string{"a"}}, SearchOptions{MaxCount: 2}, []string{"alpha:", "beta:"}, 2},
		{"context", regex.MatchOptions{Patterns: []string{"^gamma", "^zeta"}}, SearchOptions{Before: 1, After: 1},
			[]string{"beta-", "gamma:", "delta-", "epsilon-", "zeta:"}, 2},
		{"fixed", regex.MatchOptions{Patterns: []string{"a.b"}, Fixed: true}, SearchOptions{}, nil, 0},
	}
	for _, tt := range tests {
		m, err := regex.Compile(tt.mo)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		r := SearchBuffer(m, "f", buf, tt.so)
		if d := cmp.Diff(tt.want, lines(r)); d != "" || r.MatchedLines != tt.n {
			t.Errorf("%s: matched %d (-want +got):\n%s", tt.name, r.MatchedLines, d)
		}
	}
	if _, err := regex.Compile(regex.MatchOptions{Patterns: []string{"a(b"}}); err == nil || !strings.Contains(err.Error(), "unclosed group") ||
		!strings.Contains(err.Error(), "\n     ^\n") {
		t.Errorf("bad regex error: %v", err)
	}
}

// rg's binary modes (binary.go): quit drops a walked file, convert keeps
// searching (a buffered read turns NULs into line ends) and marks where
// printing stops, -a ignores NULs; a NUL past the first 64 KiB leaves what
// came before searched (and the file marked BinaryQuit).
func TestBinaryModes(t *testing.T) {
	m := mustCompile(t, "x")
	small := []byte("x\n\x00x\n")
	big := append(bytes.Repeat([]byte("x\n"), 40<<10), 0) // NUL at 80 KiB
	tests := []struct {
		name    string
		buf     []byte
		so      SearchOptions
		matched int
		off     int64
		from    int64
		skipped bool
	}{
		{"convert buffered", small, SearchOptions{}, 2, 2, 0, false},
		{"convert whole", small, SearchOptions{Slice: true}, 2, 2, 0, false},
		{"quit", small, SearchOptions{SkipBinary: true}, 0, 2, -1, true},
		{"text", small, SearchOptions{Text: true}, 2, -1, -1, false},
		// fills: 3 bytes, then 64 KiB to offset 65538 (32769 lines); the next one has the NUL
		{"quit after the first fills", big, SearchOptions{SkipBinary: true}, 32769, 80 << 10, -1, false},
		{"whole, convert: a NUL in a matched line counts", append(big, 'x', '\n'), SearchOptions{Slice: true}, 40<<10 + 1, 80 << 10, 80 << 10, false},
		{"whole, convert: a NUL in no printed line does not", big, SearchOptions{Slice: true}, 40 << 10, -1, -1, false},
	}
	for _, tt := range tests {
		r := SearchBuffer(m, "b", tt.buf, tt.so)
		if r.MatchedLines != tt.matched || r.BinaryOffset != tt.off || r.BinaryFrom != tt.from || r.Skipped != tt.skipped {
			t.Errorf("%s: matched %d offset %d from %d skipped %v", tt.name, r.MatchedLines, r.BinaryOffset, r.BinaryFrom, r.Skipped)
		}
	}
}

func mustCompile(t *testing.T, p string) *regex.Matcher {
	m, err := regex.Compile(regex.MatchOptions{Patterns: []string{p}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func FuzzSearchBuffer(f *testing.F) {
	f.Add("a.c", []byte("abc\nxyz\n\x00"), 1, 1)
	f.Fuzz(func(t *testing.T, pat string, buf []byte, b, a int) {
		m, err := regex.Compile(regex.MatchOptions{Patterns: []string{pat}})
		if err != nil {
			return
		}
		SearchBuffer(m, "f", buf, SearchOptions{Before: b % 4, After: a % 4})
	})
}

// referenceFind is what Find must return: the regexp run on each line
// alone, no prefilter, no literal shortcut.
func referenceFind(m *regex.Matcher, buf []byte) []regex.Span {
	var out []regex.Span
	for start := 0; start < len(buf); {
		end := bytes.IndexByte(buf[start:], '\n')
		next := start + end + 1
		if end < 0 {
			end, next = len(buf)-start, len(buf)
		}
		line := buf[start : start+end]
		if m.Word { // group 1 of the word regexp (word.go)
			out = append(out, m.WordsIn(buf, start, start+end, 0, nil)...)
			start = next
			continue
		}
		locs := m.Re.FindAllIndex(line, -1) // an empty match at the line's end included, as rg
		for _, l := range locs {
			out = append(out, regex.Span{Start: start + l[0], End: start + l[1]})
		}
		start = next
	}
	return out
}

var prefilterCases = []regex.MatchOptions{
	{Patterns: []string{"ErrUnexpectedEOF"}},
	{Patterns: []string{"errunexpectedeof"}, IgnoreCase: true},
	{Patterns: []string{"Kelvin"}, IgnoreCase: true},
	{Patterns: []string{"sks"}, IgnoreCase: true},
	{Patterns: []string{`\w+Handler\(`}},
	{Patterns: []string{`(Unmarshal|Marshal)Indent`}},
	{Patterns: []string{`foo|bar|baz`}},
	{Patterns: []string{`foo|bar|baz`}, IgnoreCase: true},
	{Patterns: []string{`a.c`, `x+y`}},
	{Patterns: []string{"Reader"}, Word: true},
	{Patterns: []string{"reader"}, Word: true, IgnoreCase: true},
	{Patterns: []string{"ab"}, Line: true},
	{Patterns: []string{"a.b", "(?i)Q"}, Fixed: true},
	{Patterns: []string{"$"}},
	{Patterns: []string{"^"}},
	{Patterns: []string{"a*"}},
	{Patterns: []string{`(?i)abc(?-i)DEF`}},
	{Patterns: []string{`[0-9]+px`}},
	{Patterns: []string{`éte`}, IgnoreCase: true},
	{Patterns: []string{`aa`}},
}

// The prefilter and the literal shortcut never change what matches.
func TestFindAgreesWithReference(t *testing.T) {
	texts := []string{
		"ErrUnexpectedEOF\nerrUNEXPECTEDeof x\n", "\u212Aelvin kelvin KELVIN\n", "ſkS sKs\n", "myHandler( x\nHandler(\n",
		"json.MarshalIndent UnmarshalIndent\n", "foo\nBAR baz\nqux", "abc\nxxy\naXc\n", "Reader readers aReader Reader\n",
		"ab\nab \nab", "", "\n\n", "a\naa\nb\n", "abcDEF ABCdef AbCDEF\n", "12px 3 px\n", "ÉTÉ été\n", "aaaa\naa aa\n",
		"a.b (?i)q (?i)Q\n",
		// many occurrences in both cases on one line: the literal scan keeps its state along the line
		"errUnexpectedEOF ERRUNEXPECTEDEOF ErrUnexpectedEOF errunexpectedeof readers Reader READER reader aReader\n",
	}
	for _, mo := range prefilterCases {
		m, err := regex.Compile(mo)
		if err != nil {
			t.Fatalf("%v: %v", mo.Patterns, err)
		}
		for _, s := range texts {
			if d := cmp.Diff(referenceFind(m, []byte(s)), m.Find([]byte(s), 0)); d != "" {
				t.Errorf("%v %+v on %q (-reference +Find):\n%s", mo.Patterns, mo, s, d)
			}
		}
	}
}

func FuzzFindAgreesWithReference(f *testing.F) {
	f.Add(0, []byte("ErrUnexpectedEOF\nerrUNEXPECTEDeof x\n"))
	f.Add(2, []byte("\u212Aelvin kelvin\n"))
	f.Add(6, []byte("foo\nBAR baz\n"))
	f.Fuzz(func(t *testing.T, which int, buf []byte) {
		mo := prefilterCases[uint(which)%uint(len(prefilterCases))]
		m, err := regex.Compile(mo)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(referenceFind(m, buf), m.Find(buf, 0)); d != "" {
			t.Errorf("%v on %q (-reference +Find):\n%s", mo.Patterns, buf, d)
		}
		r := SearchBuffer(m, "f", buf, SearchOptions{Text: true})
		n := 0
		for _, l := range r.Lines {
			n += len(l.Subs)
		}
		if n != r.Matches {
			t.Errorf("matches %d, spans %d", r.Matches, n)
		}
	})
}
