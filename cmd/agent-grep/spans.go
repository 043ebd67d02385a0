package main

import "github.com/agentutils/agentutils/lib/grep"

// spanNeed is what the printer uses of a matching line's match spans
// (grep.SearchOptions.Spans): none when it prints lines as they are, so
// that the search finds only which lines match.
func spanNeed(p *printer) grep.SpanNeed {
	if p.mode != "standard" || p.color || p.only || p.replace != nil || p.stats || p.maxTotal > 0 || p.maxBytes > 0 || p.agent != nil {
		return grep.SpansAll
	}
	if p.column {
		if p.trim {
			return grep.SpansAll // --trim drops the spans in the cut white space
		}
		return grep.SpansFirst
	}
	return grep.SpansNone
}
