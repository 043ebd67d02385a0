package search

import (
	"bytes"
	"github.com/agentutils/agentutils/lib/grep/regex"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzMatcher checks the matcher and the line search against the plain
// regexp: every line reported matches, every line not reported does not
// (so the literal prefilters lose nothing), spans stay inside their lines
// and line numbers grow.
func FuzzMatcher(f *testing.F) {
	f.Add("a.c", []byte("abc\nxyz\nABC\n"), uint8(0))
	f.Add(`\w+Handler\(`, []byte("func fooHandler(x)\nbar\n"), uint8(2))
	f.Add("foo|bar", []byte("foo\nbaz\nxbar\n\x00"), uint8(5))
	f.Add("(?i)straße", []byte("STRASSE straße\n"), uint8(1))
	f.Add("σοφία", []byte("ΣΟΦΊΑ σοφία\nςοφια\n"), uint8(2))
	f.Add("kelvin", []byte("\u212Aelvin KELVIN\n"), uint8(2))
	f.Add("straße|привет|ärger|kelvin", []byte("STRAẞE ſtraße\nПРИВЕТ \u212Aelvin\nÄrger\n"), uint8(2))
	f.Add(`\p{Greek}+ος`, []byte("λόγος ΛΟΓΟΣ\nλογοσ\n"), uint8(6))
	f.Add("^$", []byte("\n\na\n"), uint8(0))
	f.Add("b\\nc", []byte("a\nb\nc\n"), uint8(16))
	f.Add(`(?-u)\xFF.`, []byte("a\xff\xfeb\n\xc3\xa9\n"), uint8(0))
	f.Add(`x**|a{1001}`, []byte("xx\na\n"), uint8(2))
	f.Fuzz(func(t *testing.T, pat string, buf []byte, flags uint8) {
		mo := regex.MatchOptions{Patterns: []string{pat}, Fixed: flags&1 != 0, IgnoreCase: flags&2 != 0, Word: flags&4 != 0,
			Line: flags&8 != 0, Multiline: flags&16 != 0, RegexSizeLimit: 1 << 20} // (x{999}{999} compiles for seconds)
		m, err := regex.Compile(mo)
		if err != nil {
			return
		}
		so := SearchOptions{Text: true, Invert: flags&32 != 0, Before: int(flags>>6) & 1, After: int(flags>>7) & 1, Slice: flags&64 != 0}
		r := SearchBuffer(m, "f", buf, so)
		spansAgree(t, m, buf, so, r)
		last := 0
		reported := map[int]bool{}
		for _, l := range r.Lines {
			if l.Number <= last {
				t.Fatalf("line numbers not increasing: %d after %d", l.Number, last)
			}
			last = l.Number
			if l.Offset < 0 || int(l.Offset)+len(l.Text) > len(buf) || !bytes.Equal(buf[l.Offset:int(l.Offset)+len(l.Text)], l.Text) {
				t.Fatalf("line %d: text not at its offset", l.Number)
			}
			for _, s := range l.Subs {
				if s.Start < 0 || s.End < s.Start || s.End > len(l.Text) {
					t.Fatalf("line %d: span %v outside %q", l.Number, s, l.Text)
				}
			}
			if l.Match {
				reported[l.Number] = true
			}
		}
		if mo.Multiline || mo.Word || so.Invert {
			return
		}
		// the reference: Unicode classes everywhere (rg's meaning; on
		// ASCII lines the ASCII regexp agrees, \v aside)
		ref := m
		if m.Uni != nil {
			ref = m.Uni
		}
		n := 0
		for start := 0; start < len(buf); {
			end := bytes.IndexByte(buf[start:], '\n')
			next := len(buf)
			if end < 0 {
				end = len(buf)
			} else {
				end += start
				next = end + 1
			}
			n++
			line := buf[start:end]
			if utf8.Valid(line) && bytes.IndexByte(line, '\v') < 0 {
				img := line
				if m.Bytes != nil {
					img = regex.ToLatin1(line) // (?-u): the regexp reads the Latin-1 image
				}
				if want := ref.Re.Match(img); want != reported[n] {
					t.Fatalf("line %d %q: regexp says %v, search says %v", n, line, want, reported[n])
				}
			}
			start = next
		}
	})
}

// spansAgree checks that asking for fewer spans (SearchOptions.Spans)
// finds the same lines, with the first span of each or none.
func spansAgree(t *testing.T, m *regex.Matcher, buf []byte, so SearchOptions, all FileResult) {
	t.Helper()
	for _, need := range []regex.SpanNeed{regex.SpansFirst, regex.SpansNone} {
		o := so
		o.Spans = need
		r := SearchBuffer(m, "f", buf, o)
		if len(r.Lines) != len(all.Lines) || r.MatchedLines != all.MatchedLines {
			t.Fatalf("Spans %d: %d lines (%d matching), all spans: %d (%d)", need, len(r.Lines), r.MatchedLines, len(all.Lines), all.MatchedLines)
		}
		for i, l := range r.Lines {
			a := all.Lines[i]
			if l.Number != a.Number || l.Offset != a.Offset || !bytes.Equal(l.Text, a.Text) || l.Match != a.Match {
				t.Fatalf("Spans %d: line %+v, all spans: %+v", need, l, a)
			}
			want := a.Subs
			// (searchMatches, searchContextLines: the lines visited by their matches)
			reduced := !so.Invert && !m.Multiline && (so.Before == 0 && so.After == 0 || !so.Passthru && !so.CountOnly)
			if need == regex.SpansNone && reduced {
				want = nil
			} else if need == regex.SpansFirst && len(want) > 1 && reduced {
				want = want[:1]
			}
			if len(l.Subs) != len(want) || len(want) > 0 && l.Subs[0] != want[0] {
				t.Fatalf("Spans %d: line %d %q spans %v, want %v", need, l.Number, l.Text, l.Subs, want)
			}
		}
	}
}

// TestSpanNeedRandom: random patterns and texts, the lines found asking
// for all spans, the first or none agree (600 cases; FuzzMatcher goes on).
func TestSpanNeedRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	atoms := []string{"a", "b", "c", ".", "[ab]", "[^a]", `\w`, `\W`, `\s`, `\b`, "^", "$", "é", `\d`, "(?i:a)", "A", "ab", "bca"}
	ops := []string{"", "*", "+", "?", "{2}", "*?"}
	alpha := []string{"a", "b", "c", " ", "é", "A", "1", "_", "\n", "\xff", "ab"}
	for i := 0; i < 600; i++ { // (Compile of folded classes is slow under -race)
		var pat strings.Builder
		for k := r.IntN(4) + 1; k > 0; k-- {
			pat.WriteString(atoms[r.IntN(len(atoms))])
			pat.WriteString(ops[r.IntN(len(ops))])
		}
		var txt strings.Builder
		for k := r.IntN(40); k > 0; k-- {
			txt.WriteString(alpha[r.IntN(len(alpha))])
		}
		pats := []string{pat.String()}
		if i%5 == 0 {
			for k := 0; k < 14; k++ {
				pats = append(pats, atoms[r.IntN(len(atoms))]+atoms[r.IntN(len(atoms))])
			}
		}
		m, err := regex.Compile(regex.MatchOptions{Patterns: pats, Fixed: i%7 == 0, IgnoreCase: i%3 == 0, Word: i%4 == 0})
		if err != nil {
			continue
		}
		so := SearchOptions{Text: true}
		spansAgree(t, m, []byte(txt.String()), so, SearchBuffer(m, "f", []byte(txt.String()), so))
	}
}
