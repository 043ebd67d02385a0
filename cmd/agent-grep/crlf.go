package main

import (
	"github.com/agentutils/agentutils/lib/grep/regex"
	"regexp"
)

// rg 13's --crlf: lines may end in "\r\n". As in rg, every '$' of a
// pattern becomes "(?:\r??$)" (grep.CRLFPattern), a match that ends in
// '\r' ends before it (grep.CRLFSubs), and -o ends each match with "\r\n".

// crlfMatch is the match options under --crlf: '$' rewritten, and -x
// (which anchors with '$') spelled out in the patterns.
func crlfMatch(mo regex.MatchOptions) regex.MatchOptions {
	out := make([]string, len(mo.Patterns))
	for i, p := range mo.Patterns {
		if mo.Fixed {
			p = regexp.QuoteMeta(p)
		}
		p = regex.CRLFPattern(p)
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
