package printer

import "github.com/agentutils/agentutils/lib/grep/regex"

// SpanNeed is what p prints of a matching line's match spans
// (SearchOptions.Spans): none when it prints lines as they are, so that
// the search finds only which lines match.
func (p *Printer) SpanNeed() regex.SpanNeed {
	if p.mode != "standard" || p.color || p.only || p.replace != nil || p.stats || p.maxTotal > 0 || p.maxBytes > 0 || p.agent != nil {
		return regex.SpansAll
	}
	if p.column {
		if p.trim || p.maxCols > 0 {
			return regex.SpansAll // --trim drops the spans in the cut white space; -M's note counts them
		}
		return regex.SpansFirst
	}
	return regex.SpansNone
}
