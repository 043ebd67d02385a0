package main

import (
	"regexp"
	"strings"

	"github.com/agentutils/agentutils/lib/grep"
)

// rg 13's --crlf: lines may end in "\r\n". As in rg, every '$' of a
// pattern becomes "(?:\r??$)" (so '$' matches before "\r\n"), a match
// that ends in '\r' ends before it, and -o ends each match with "\r\n".

// crlfPattern rewrites each '$' of a pattern that is an anchor (not
// escaped, not in a class) to "(?:\r??$)".
func crlfPattern(p string) string {
	var b strings.Builder
	class := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteString(p[i : i+2])
			i++
			continue
		case class && c == ']':
			class = false
		case !class && c == '[':
			class = true
			b.WriteByte(c)
			// a ']' (after an optional '^') first in a class is a literal
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
			continue
		case !class && c == '$':
			b.WriteString(`(?:\r??$)`)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// crlfMatch is the match options under --crlf: '$' rewritten, and -x
// (which anchors with '$') spelled out in the patterns.
func crlfMatch(mo grep.MatchOptions) grep.MatchOptions {
	out := make([]string, len(mo.Patterns))
	for i, p := range mo.Patterns {
		if mo.Fixed {
			p = regexp.QuoteMeta(p)
		}
		p = crlfPattern(p)
		if mo.Line {
			p = `^(?:` + p + `)(?:\r??$)`
		}
		out[i] = p
	}
	if mo.Fixed && !mo.Line {
		return mo // a literal has no '$' to rewrite
	}
	mo.Patterns, mo.Fixed, mo.Line = out, false, false
	return mo
}

// crlfSubs moves the end of each match that ends in '\r' before it.
func crlfSubs(r grep.FileResult) grep.FileResult {
	for k, l := range r.Lines {
		for j, s := range l.Subs {
			if s.End > s.Start && s.End <= len(l.Text) && l.Text[s.End-1] == '\r' {
				r.Lines[k].Subs[j].End--
			}
		}
	}
	return r
}
