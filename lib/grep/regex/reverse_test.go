package regex_test

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
)

// TestReverseSuffixRandom: patterns that end with a literal, on random
// texts: the lines found (counting, printing lines only, printing every
// span) are the lines Go's regexp matches.
func TestReverseSuffixRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	atoms := []string{"a", "b", "[A-Z]", "[a-z]", ".", "[^a]", `\d`, `\w`, `\s`, "^", `\b`, "é", "(?i:b)", "(a|bc)", " "}
	ops := []string{"", "*", "+", "?", "{2}"}
	tails := []string{"ing", "ab", "a", "(?i)ing", "Xb"}
	alpha := []string{"a", "b", "c", "i", "n", "g", "ing", "X", "B", " ", "é", "1", "\n", "\xff", "\u00a0", "٣"}
	used := 0
	for i := 0; i < 4000; i++ {
		var pat strings.Builder
		for k := r.IntN(3) + 1; k > 0; k-- {
			pat.WriteString(atoms[r.IntN(len(atoms))])
			pat.WriteString(ops[r.IntN(len(ops))])
		}
		tail := tails[r.IntN(len(tails))]
		p := pat.String() + tail
		if strings.HasPrefix(tail, "(?i)") {
			p = "(?i)" + pat.String() + tail[4:]
		}
		m, err := regex.Compile(regex.MatchOptions{Patterns: []string{p}})
		if err != nil {
			continue
		}
		if regex.HasReverseSuffix(m) {
			used++
		}
		var txt strings.Builder
		for k := r.IntN(60); k > 0; k-- {
			txt.WriteString(alpha[r.IntN(len(alpha))])
		}
		linesAgree(t, p, m, []byte(txt.String()))
	}
	t.Logf("the reversed scan served %d patterns", used)
	if used < 500 {
		t.Fatalf("the reversed scan served %d patterns of 4000", used)
	}
}

// linesAgree checks the lines m finds in buf (counting, printing lines
// only, printing every span) against Go's regexp on each line.
func linesAgree(t *testing.T, p string, m *regex.Matcher, buf []byte) {
	t.Helper()
	ref := m.Re // rg's meaning: Unicode \w \d \s where there is a twin
	if m.Uni != nil {
		ref = m.Uni.Re
	}
	for _, so := range []search.SearchOptions{{Text: true, CountOnly: true, LinesOnly: true}, {Text: true, Spans: regex.SpansNone}, {Text: true}} {
		res := search.SearchBuffer(m, "f", buf, so)
		got := map[int]bool{}
		for _, l := range res.Lines {
			got[l.Number] = true
		}
		n, matched := 0, 0
		for _, line := range bytes.SplitAfter(buf, []byte{'\n'}) {
			if len(line) == 0 {
				continue
			}
			n++
			text := bytes.TrimSuffix(line, []byte{'\n'})
			want := ref.Match(text)
			if want {
				matched++
			}
			if !so.CountOnly && utf8.Valid(text) && got[n] != want {
				t.Fatalf("%q (rev %v) line %d %q: search %v, regexp %v", p, regex.HasReverseSuffix(m), n, text, got[n], want)
			}
		}
		if so.CountOnly && utf8.Valid(buf) && res.MatchedLines != matched {
			t.Fatalf("%q (rev %v) on %q: %d lines, regexp %d", p, regex.HasReverseSuffix(m), buf, res.MatchedLines, matched)
		}
	}
}

// FuzzReverseSuffix: a pattern with a literal appended (the shape the
// reversed scan serves), its lines against regexp's.
func FuzzReverseSuffix(f *testing.F) {
	f.Add("[A-Z][a-z]+", "ing", []byte("Testing string\nbring Bring\n"))
	f.Add("^a*", "ab", []byte("aab\nxab\nab"))
	f.Fuzz(func(t *testing.T, pre, lit string, buf []byte) {
		if len(pre) > 100 || len(lit) > 20 {
			return
		}
		p := pre + regexp.QuoteMeta(lit)
		m, err := regex.Compile(regex.MatchOptions{Patterns: []string{p}})
		if err != nil {
			return
		}
		linesAgree(t, p, m, buf)
	})
}

// TestReverseSuffixLongLine: a long line with many occurrences and no
// match (each reversed scan would read back to the line's start), and
// the same line with a match at its end.
func TestReverseSuffixLongLine(t *testing.T) {
	m, err := regex.Compile(regex.MatchOptions{Patterns: []string{"a.*ing"}})
	if err != nil || !regex.HasReverseSuffix(m) {
		t.Fatalf("a.*ing: rev %v, err %v", m != nil && regex.HasReverseSuffix(m), err)
	}
	line := bytes.Repeat([]byte("ing "), 200000)
	buf := append(append([]byte("first\n"), line...), "\nlast\n"...)
	if r := search.SearchBuffer(m, "f", buf, search.SearchOptions{Text: true}); r.MatchedLines != 0 {
		t.Fatalf("no 'a': %d lines match", r.MatchedLines)
	}
	buf = append(append(append([]byte("first\n"), line...), "a ing"...), "\nlast\n"...)
	r := search.SearchBuffer(m, "f", buf, search.SearchOptions{Text: true, Spans: regex.SpansNone})
	if r.MatchedLines != 1 || r.Lines[0].Number != 2 {
		t.Fatalf("a at the end: %+v", r.MatchedLines)
	}
}
