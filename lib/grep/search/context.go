package search

import (
	"bytes"
	"github.com/agentutils/agentutils/lib/grep/regex"
	"sync"
)

// searchContext is SearchBuffer's search with context lines or -v (and
// --passthru): every line is looked at, the matching ones printed with
// the lines around them. It walks the lines once, keeping only the last
// -B lines not printed (a ring), and notes each line to print (ctxRef)
// in scratch space reused from file to file (ctxScratch), with the match
// spans; so a search over a tree allocates only its results: the lines
// as printed (FileResult.Out, when the printer lets the search print:
// LineFormat), or the Lines and their spans, one allocation each.
func searchContext(m *regex.Matcher, buf []byte, o SearchOptions, r FileResult) FileResult {
	sc := ctxPool.Get().(*ctxScratch)
	defer sc.release()
	sc.found = m.AppendFind(sc.found[:0], buf, 0)
	spans := regex.FixInvalidUTF8(m, buf, sc.found)
	before, after := o.Before, o.After
	if o.CountOnly {
		before, after = 0, 0 // (nothing printed: -m's later matches are not counted either)
	}
	refs, subs, ring := sc.refs[:0], sc.subs[:0], sc.ring[:0]
	// rg 13 finds the matches of -v's context lines (colour, -r, --column,
	// --json); they are kept whatever o.Spans asks, as every span of a
	// search that walks every line is (FuzzMatcher)
	keepCtx := before > 0 || after > 0
	defer func() { sc.refs, sc.subs, sc.ring = refs, subs, ring }()
	printed := 0 // the last line printed (its number)
	left := 0    // context lines still to print after the last match
	stop := false
	n, si := 0, 0
	for start := 0; start < len(buf); {
		end := bytes.IndexByte(buf[start:], '\n')
		if end < 0 {
			end = len(buf)
		} else {
			end = start + end + 1
		}
		n++
		ref := CtxRef{Num: n, Start: start, End: end, From: len(subs)}
		// (an empty match at the very end belongs to a last line without a newline)
		for si < len(spans) && (spans[si].Start < end || spans[si].Start == end && end == len(buf) && buf[end-1] != '\n') {
			if s := spans[si]; s.Start >= start {
				subs = append(subs, regex.Span{Start: s.Start - start, End: min(s.End, end) - start})
			}
			si++
		}
		hits := len(subs) - ref.From
		ref.Match = (hits > 0) != o.Invert
		if !ref.Match && !(o.Invert && keepCtx) {
			subs = subs[:ref.From] // (only a match's spans are printed; with -v a context line's too)
		} else if o.Invert && ref.Match {
			hits = 1 // (an inverted match counts one)
		}
		ref.To = len(subs)
		switch {
		case ref.Match && !stop:
			if o.Invert && o.Slice && r.BinaryFrom == 0 && r.InvStop == 0 {
				r.InvStop = invertedStop(buf, spans[si:]) // (where rg stops at the NUL: slicePos)
			}
			r.MatchedLines++
			r.Matches += hits
			if !o.CountOnly {
				// the lines before it not printed yet, a "--" before them
				// when they do not follow the last printed
				from := max(n-before, printed+1)
				gap := printed > 0 && from > printed+1
				for _, b := range ring {
					if b.Num >= from {
						b.Gap = gap && b.Num == from
						refs = append(refs, b)
					}
				}
				ring = ring[:0]
				ref.Gap = gap && n == from
				refs = append(refs, ref)
				printed, left = n, after
			}
			if o.MaxCount > 0 && r.MatchedLines >= o.MaxCount {
				stop = true
				if o.Passthru {
					left = 0 // rg: --passthru -m N ends at the Nth match
				}
				r.BytesSearched = maxCountBytes(buf, o, start, end, refs)
				if o.Invert && o.Slice {
					r.BytesSearched = invertedStop(buf, spans[si:])
				}
			}
		case left > 0:
			// a line in the context after the last match -m keeps that
			// matches too prints as a match, counts in the stats, and rg
			// has read through it, as rg 13 does (-c does not count it:
			// no context there)
			if ref.Match {
				r.MatchedLines++
				r.Matches += hits
				if o.Slice {
					r.BytesSearched = max(r.BytesSearched, int64(end))
				}
			}
			refs = append(refs, ref)
			printed = n
			left--
		case stop:
			r.BytesSearched = stoppedBytes(buf, o, refs, r.BytesSearched)
			return r.own(buf, refs, subs, o)
		default:
			if before > 0 {
				if len(ring) >= 2*before+64 { // (the last before lines moved down)
					ring = ring[:copy(ring, ring[len(ring)-before:])]
				}
				ring = append(ring, ref)
			}
		}
		start = end
	}
	if stop {
		r.BytesSearched = owedAtEnd(buf, o, refs, r.BytesSearched, left)
	}
	if o.Passthru && r.MatchedLines == 0 && !o.CountOnly {
		// rg: --passthru prints a file without a match too
		refs = refs[:0]
		for start, k := 0, 1; start < len(buf); k++ {
			end := bytes.IndexByte(buf[start:], '\n')
			if end < 0 {
				end = len(buf)
			} else {
				end = start + end + 1
			}
			refs = append(refs, CtxRef{Num: k, Start: start, End: end})
			start = end
		}
	}
	return r.own(buf, refs, subs, o)
}

// stoppedBytes is rg's bytes_searched for a file -m stopped (n, where it
// stood at the last match), once the -A lines owed after it are read too:
// through its buffer, up to the fill that read the last of them.
func stoppedBytes(buf []byte, o SearchOptions, refs []CtxRef, n int64) int64 {
	if o.Slice || len(refs) == 0 {
		return n
	}
	l := refs[len(refs)-1]
	return max(n, maxCountBytes(buf, o, l.Start, l.End, refs))
}

// owedAtEnd is stoppedBytes for a search that reached the end of buf
// after -m stopped it: with -A lines still owed there, rg read to the end
// looking for them.
func owedAtEnd(buf []byte, o SearchOptions, refs []CtxRef, n int64, owed int) int64 {
	if owed > 0 && !o.piece {
		return int64(len(buf))
	}
	return stoppedBytes(buf, o, refs, n)
}

// ctxRef is a line searchContext prints: its number, its bytes (end past
// its newline), and when it is a match (and not -v) its spans,
// ctxScratch.subs[from:to].
type CtxRef struct {
	Num, Start, End, From, To int
	Match, Gap                bool
}

// line is the Line ref prints.
func (ref CtxRef) Line(buf []byte, subs []regex.Span, invert bool) Line {
	l := Line{Number: ref.Num, Offset: int64(ref.Start), Text: buf[ref.Start:ref.End], Match: ref.Match, Gap: ref.Gap}
	if ref.Match != invert && ref.To > ref.From { // (-v: a context line's matches)
		l.Subs = subs[ref.From:ref.To:ref.To]
	}
	return l
}

// own gives r the lines to print: printed into r.Out when the search
// prints (o.Format) and no binary data needs the printer's note among
// them, else as r.Lines, one allocation for the lines and one for their
// spans.
func (r FileResult) own(buf []byte, refs []CtxRef, subs []regex.Span, o SearchOptions) FileResult {
	if o.refsOut != nil {
		o.refsOut.refs = append(o.refsOut.refs[:0], refs...)
		o.refsOut.subs = append(o.refsOut.subs[:0], subs...)
		return r
	}
	if len(refs) == 0 {
		return r
	}
	if o.Format != nil && r.BinaryFrom < 0 {
		r.Out = o.Format.Context(r.Path, buf, refs, subs, o.Invert, o.lineBase, o.offBase)
		// (the last line printed: a piece's lines are counted on from it)
		last := refs[len(refs)-1]
		r.lastNum, r.lastStart = last.Num, last.Start
		return r
	}
	n := 0
	for _, ref := range refs {
		if ref.Match != o.Invert {
			n += ref.To - ref.From
		}
	}
	own := make([]regex.Span, 0, n)
	r.Lines = make([]Line, len(refs))
	for k, ref := range refs {
		l := ref.Line(buf, subs, o.Invert)
		if len(l.Subs) > 0 {
			s := len(own)
			own = append(own, l.Subs...)
			l.Subs = own[s:len(own):len(own)]
		}
		r.Lines[k] = l
	}
	return r
}

// ctxOut is the lines a search with context prints, handed over as
// they are (SearchOptions.refsOut).
type ctxOut struct {
	refs []CtxRef
	subs []regex.Span
}

// invertedStop is rg's bytes searched when -m stops -v over a file read
// whole: rg hands the lines between two matches over when it has found
// the second, so it stood past the line of the match after the last line
// handed over (next: the matches from there), or at the end.
func invertedStop(buf []byte, next []regex.Span) int64 {
	if len(next) == 0 {
		return int64(len(buf))
	}
	at := min(next[0].Start, len(buf))
	if i := bytes.IndexByte(buf[at:], '\n'); i >= 0 {
		return int64(at + i + 1)
	}
	return int64(len(buf))
}

// ctxScratch is searchContext's storage, reused from file to file.
type ctxScratch struct {
	found []regex.Span // the matches in the buffer
	subs  []regex.Span // the spans of the lines printed, each relative to its line
	refs  []CtxRef     // the lines printed
	ring  []CtxRef     // the last lines not printed (-B)
}

// release puts the scratch back for the next file, unless a huge file
// grew it.
func (sc *ctxScratch) release() {
	if cap(sc.found) > maxScratch || cap(sc.subs) > maxScratch || cap(sc.refs) > maxScratch || cap(sc.ring) > maxScratch {
		return
	}
	ctxPool.Put(sc)
}

var ctxPool = sync.Pool{New: func() any { return new(ctxScratch) }}

// searchContextLines is searchContext for the common case (no -v, no
// --passthru, lines printed): like searchMatches it visits only the
// matching lines (lineSearch), counting the newlines between them, and
// looks at the lines around each one only as far as -B and -A reach,
// where searchContext found every match of the buffer and walked every
// line. The same lines, spans and counts.
func searchContextLines(m *regex.Matcher, buf []byte, o SearchOptions, r FileResult) FileResult {
	var ls regex.LineSearch
	ls.Reset(m)
	defer ls.Release()
	ls.Need = o.Spans
	sc := ctxPool.Get().(*ctxScratch)
	defer sc.release()
	refs, subs := sc.refs[:0], sc.subs[:0]
	if o.refsOut != nil {
		refs, subs = o.refsOut.refs[:0], o.refsOut.subs[:0] // (handed over as they are)
	}
	defer func() {
		if o.refsOut != nil {
			o.refsOut.refs, o.refsOut.subs = refs, subs
		} else {
			sc.refs, sc.subs = refs, subs
		}
	}()
	var cs ctxState
	lineNo, counted := 1, 0 // the number of the line starting at counted
	stop := false           // -m has its matches: only the -A lines owed are left
	var got []regex.Span
	for off := 0; off < len(buf) && !(stop && cs.left == 0); {
		start, end, found := ls.Next(buf, off, got[:0])
		if start < 0 {
			break
		}
		got = found
		lineNo += bytes.Count(buf[counted:start], []byte{'\n'})
		counted = start
		if stop && lineNo > cs.printed+cs.left {
			break // past the lines owed
		}
		if cs.end < start { // (lines between: the -A lines owed, the -B ones)
			refs = cs.after(buf, refs, start)
			if !stop && lineNo-1 > cs.printed {
				refs = cs.before(buf, refs, start, lineNo, o.Before)
			}
		}
		hits := len(got)
		switch o.Spans {
		case regex.SpansFirst:
			got = got[:1]
		case regex.SpansNone:
			got = got[:0]
		}
		ref := CtxRef{Num: lineNo, Start: start, End: end, From: len(subs), Match: true}
		ref.Gap = cs.printed > 0 && lineNo > cs.printed+1
		subs = append(subs, got...)
		ref.To = len(subs)
		refs = append(refs, ref)
		r.MatchedLines++
		if o.Spans == regex.SpansAll {
			r.Matches += hits
		} else {
			r.Matches += len(got)
		}
		cs.printed, cs.end = lineNo, end
		if end < len(buf) || buf[end-1] == '\n' {
			lineNo, counted = lineNo+1, end // (the newlines from the next line on)
		}
		if stop {
			// a match in the lines owed after -m's last prints as a match
			// and counts (rg 13), extending nothing
			cs.left--
			if o.Slice {
				r.BytesSearched = max(r.BytesSearched, int64(end))
			}
		} else {
			cs.left = o.After
			if o.MaxCount > 0 && r.MatchedLines >= o.MaxCount {
				stop = true
				if o.Passthru {
					cs.left = 0 // rg: --passthru -m N ends at the Nth match
				}
				r.BytesSearched = maxCountBytes(buf, o, start, end, refs)
			}
		}
		off = end
	}
	refs = cs.after(buf, refs, len(buf))
	if stop {
		r.BytesSearched = owedAtEnd(buf, o, refs, r.BytesSearched, cs.left)
	}
	if o.refsOut != nil {
		return r // (the deferred function hands them over)
	}
	return r.own(buf, refs, subs, o)
}

// ctxState is what searchContextLines knows of the lines printed so far.
type ctxState struct {
	printed int // the number of the last line printed (0: none)
	end     int // where it ends
	left    int // -A lines still owed after the last match
}

// after appends the -A lines still owed, up to the line starting at upto
// (not included).
func (cs *ctxState) after(buf []byte, refs []CtxRef, upto int) []CtxRef {
	for cs.left > 0 && cs.end < upto {
		end := bytes.IndexByte(buf[cs.end:upto], '\n')
		if end < 0 {
			end = upto
		} else {
			end += cs.end + 1
		}
		cs.printed++
		refs = append(refs, CtxRef{Num: cs.printed, Start: cs.end, End: end})
		cs.end = end
		cs.left--
	}
	return refs
}

// before appends the -B lines before the matching line n starting at
// start that were not printed, the first after a "--" when they do not
// follow the last printed line.
func (cs *ctxState) before(buf []byte, refs []CtxRef, start, n, count int) []CtxRef {
	k := min(count, n-1-cs.printed) // lines to print before the match
	if k <= 0 {
		return refs
	}
	from := start
	for range k {
		from = bytes.LastIndexByte(buf[:from-1], '\n') + 1
	}
	num := n - k
	gap := cs.printed > 0 && num > cs.printed+1
	for i := range k {
		end := bytes.IndexByte(buf[from:start], '\n') + from + 1
		refs = append(refs, CtxRef{Num: num + i, Start: from, End: end, Gap: gap && i == 0})
		from = end
	}
	cs.printed, cs.end = n-1, start
	return refs
}
