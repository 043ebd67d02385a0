package search

// CRLFSubs moves the end of each match that ends in '\r' before it, as
// rg 13's --crlf does.
func CRLFSubs(r FileResult) FileResult {
	for k, l := range r.Lines {
		for j, s := range l.Subs {
			if s.End > s.Start && s.End <= len(l.Text) && l.Text[s.End-1] == '\r' {
				r.Lines[k].Subs[j].End--
			}
		}
	}
	return r
}
