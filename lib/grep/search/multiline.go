package search

import (
	"bytes"
	"github.com/agentutils/agentutils/lib/grep/regex"
	"sort"
)

// searchMultiline is rg's -U search: the regexp runs over the whole
// buffer; each match is widened to whole lines, and matches whose lines
// touch or overlap (adjacent lines included) form one record, printed as
// one match whose Text holds several lines.
func searchMultiline(m *regex.Matcher, buf []byte, o SearchOptions, r FileResult) FileResult {
	type record struct {
		start, end int // line-aligned, end after the last line's newline
		subs       []regex.Span
	}
	var recs []record
	for _, loc := range multilineMatches(m, buf) {
		s, e := loc.Start, loc.End
		if s == len(buf) && s > 0 && buf[s-1] == '\n' {
			continue // an empty match after the last line end
		}
		ls := bytes.LastIndexByte(buf[:s], '\n') + 1
		var le int
		if e > s && buf[e-1] == '\n' {
			le = e
		} else if i := bytes.IndexByte(buf[e:], '\n'); i >= 0 {
			le = e + i + 1
		} else {
			le = len(buf)
		}
		if n := len(recs); n > 0 && recs[n-1].end >= ls {
			recs[n-1].end = max(recs[n-1].end, le)
			recs[n-1].subs = append(recs[n-1].subs, regex.Span{Start: s, End: e})
			continue
		}
		recs = append(recs, record{ls, le, []regex.Span{{Start: s, End: e}}})
	}
	if o.Invert {
		// the lines that no match touches, one by one
		var inv []record
		at := 0
		for _, rc := range append(recs, record{start: len(buf), end: len(buf)}) {
			for at < rc.start {
				end := bytes.IndexByte(buf[at:rc.start], '\n')
				if end < 0 {
					end = rc.start
				} else {
					end = at + end + 1
				}
				inv = append(inv, record{start: at, end: end})
				at = end
			}
			at = max(at, rc.end)
		}
		recs = inv
	}
	if o.MaxCount > 0 && len(recs) >= o.MaxCount {
		r.BytesSearched = int64(recs[o.MaxCount-1].end)
		if !o.Invert {
			// rg hands the Nth over when it has found the next match: it
			// stood past that one, or at the end
			r.BytesSearched = int64(len(buf))
			if len(recs) > o.MaxCount {
				r.BytesSearched = int64(recs[o.MaxCount].subs[0].End)
			}
			if r.BinaryOffset >= 0 {
				r.BytesSearched = min(r.BytesSearched, r.BinaryOffset) // (never past the NUL it saw)
			}
		}
		recs = recs[:o.MaxCount]
	}
	for _, rc := range recs {
		r.MatchedLines += CountLines(buf[rc.start:rc.end])
		if o.Invert {
			r.Matches++
		} else {
			r.Matches += len(rc.subs)
		}
	}
	if o.CountOnly || len(recs) == 0 && !(o.Passthru && len(buf) > 0) {
		return r
	}
	// line starts, for numbers and context
	starts := []int{0}
	for i, c := range buf {
		if c == '\n' && i+1 < len(buf) {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(off int) int { // 0-based index of the line holding off
		return max(sort.SearchInts(starts, off+1)-1, 0)
	}
	lineEnd := func(k int) int {
		if k+1 < len(starts) {
			return starts[k+1]
		}
		return len(buf)
	}
	if len(recs) == 0 { // rg: --passthru prints a file without a match too
		for k, st := range starts {
			r.Lines = append(r.Lines, Line{Number: k + 1, Offset: int64(st), Text: buf[st:lineEnd(k)]})
		}
		return r
	}
	printed := -1 // index of the last printed line
	for i, rc := range recs {
		first, last := lineOf(rc.start), lineOf(max(rc.end-1, rc.start))
		from := max(first-o.Before, printed+1)
		gap := printed >= 0 && from > printed+1
		for k := from; k < first; k++ {
			r.Lines = append(r.Lines, Line{Number: k + 1, Offset: int64(starts[k]), Text: buf[starts[k]:lineEnd(k)], Gap: gap && k == from})
		}
		l := Line{Number: first + 1, Offset: int64(rc.start), Text: buf[rc.start:rc.end], Match: true, Gap: gap && from == first}
		if !o.Invert {
			for _, s := range rc.subs {
				l.Subs = append(l.Subs, regex.Span{Start: s.Start - rc.start, End: s.End - rc.start})
			}
		}
		r.Lines = append(r.Lines, l)
		printed = last
		next := len(starts)
		if i+1 < len(recs) {
			next = lineOf(recs[i+1].start)
		}
		for k := last + 1; k <= last+o.After && k < next && k < len(starts); k++ {
			r.Lines = append(r.Lines, Line{Number: k + 1, Offset: int64(starts[k]), Text: buf[starts[k]:lineEnd(k)]})
			printed = k
		}
	}
	return r
}

// multilineMatches are the matches in the whole buffer; under -w the
// words themselves (rg reports the pattern's group, not the non-word
// characters around it).
func multilineMatches(m *regex.Matcher, buf []byte) []regex.Span {
	if m.Word {
		return m.WordsIn(buf, 0, len(buf), 0, nil)
	}
	locs := m.Re.FindAllIndex(buf, -1)
	out := make([]regex.Span, len(locs))
	for i, loc := range locs {
		out[i] = regex.Span{Start: loc[0], End: loc[1]}
	}
	return out
}
