package regex

import (
	"unicode"
	"unicode/utf8"
)

// rg's -w: the pattern must be surrounded by non-word characters (Unicode
// ones: Go's \b only knows ASCII) or line edges. rg compiles
// (?:^|\W)(pat)(?:\W|$) and reports group 1, searching again from the end
// of group 1, so the \W after one match may start the next.

const nonWordClass = `[^` + uniWord + `]` // (unicode.go)

// nonWordLine is nonWordClass without the newline, as lineOnly
// (newline.go) would make it: written so, the class leaves lineOnly
// nothing to rewrite, and the pattern is not printed back from its syntax
// tree (3.5 ms for these Unicode classes, at each compile).
const nonWordLine = `[^` + uniWord + `\n]`

// wordExpr wraps expr for -w; multiline: the \W on either side may be a
// newline (-U).
func wordExpr(expr string, multiline bool) string {
	c := nonWordLine
	if multiline {
		c = nonWordClass
	}
	return `(?:^|` + c + `)(` + expr + `)(?:` + c + `|$)`
}

// isWordRune: r is a word character as rg's Unicode \w (and so \b)
// reads it.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return (r == '_' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	}
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.IsMark(r) || unicode.IsDigit(r) ||
		unicode.Is(unicode.Pc, r) || r == 0x200C || r == 0x200D
}

// adjustLine fixes the spans the regexp found in the line buf[start:end]
// (subs[n:], relative to start): under -w the matches are group 1's,
// found here (the caller has not run the regexp on the line), and no
// match may hold invalid UTF-8 (utf8.go).
func (m *Matcher) adjustLine(buf []byte, start, end int, subs []Span, n int) []Span {
	if len(subs) == n && !m.Word { // (-w: the regexp has not run on the line yet)
		return subs
	}
	if m.Word {
		subs = subs[:n]
		for _, s := range m.WordsIn(buf, start, end, 0, nil) {
			subs = append(subs, Span{s.Start - start, s.End - start})
		}
	}
	for _, s := range subs[n:] {
		if !utf8.Valid(buf[start+s.Start : start+s.End]) {
			subs = subs[:n]
			for _, s := range validRuns(m, buf, start, end) {
				subs = append(subs, Span{s.Start - start, s.End - start})
			}
			break
		}
	}
	return subs
}

// wordsIn finds the -w matches in buf[from:to] (from is a line start).
func (m *Matcher) WordsIn(buf []byte, from, to, limit int, out []Span) []Span {
	rgStart := from // where rg's search resumes
	pos := from     // where the regexp runs from (its ^ matches there)
	for pos <= to {
		loc := m.Re.FindSubmatchIndex(buf[pos:to])
		if loc == nil || loc[2] < 0 {
			return out
		}
		g0, g1 := pos+loc[2], pos+loc[3]
		if loc[0] == loc[2] && g0 == pos && g0 > 0 && buf[g0-1] != '\n' {
			// ^ matched only because the slice starts here: valid when the
			// character before is a non-word one rg may consume as \W
			r, _ := utf8.DecodeLastRune(buf[:g0])
			if g0-1 < rgStart || isWordRune(r) {
				_, n := utf8.DecodeRune(buf[pos:to])
				pos += max(n, 1)
				continue
			}
		}
		out = append(out, Span{g0, g1})
		if limit > 0 && len(out) >= limit {
			return out
		}
		if g1 > g0 {
			rgStart, pos = g1, g1
		} else {
			_, n := utf8.DecodeRune(buf[g1:to])
			rgStart, pos = g1+max(n, 1), g1+max(n, 1)
		}
	}
	return out
}
