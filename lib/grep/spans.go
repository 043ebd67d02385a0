package grep

// SpanNeed is what p prints of a matching line's match spans
// (SearchOptions.Spans): none when it prints lines as they are, so that
// the search finds only which lines match.
func (p *Printer) SpanNeed() SpanNeed {
	if p.mode != "standard" || p.color || p.only || p.replace != nil || p.stats || p.maxTotal > 0 || p.maxBytes > 0 || p.agent != nil {
		return SpansAll
	}
	if p.column {
		if p.trim || p.maxCols > 0 {
			return SpansAll // --trim drops the spans in the cut white space; -M's note counts them
		}
		return SpansFirst
	}
	return SpansNone
}
