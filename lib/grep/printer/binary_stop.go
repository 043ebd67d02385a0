package printer

import "github.com/agentutils/agentutils/lib/grep/search"

// rg 13's standard printer (the standard and --vimgrep formats; not
// --json, nor the counts) under binary detection's convert mode (named
// files, --binary): once rg has seen the NUL byte, the first line its
// searcher hands the printer ends the file. A matching line counts and
// prints "binary file matches (found "\0" byte around offset N)" instead
// of itself; a context line ends the file silently, the note printed only
// when a match was printed before it. The "--" of a gap before that line
// is printed first (the searcher writes it before handing the line).
//
// When rg has seen the NUL depends on how it reads (binary.go): reading
// whole, at once when it lies in the first 64 KiB (BinaryFrom 0), else
// when a printed line holds it (BinaryFrom is that line's offset); through
// its buffer, at the fill that read it (BinaryFrom is where that fill's
// lines begin): from then on a match or a line after one is handed over
// as the search reaches it, a line of the context before a match with
// that match.

// binaryStopAt is the index of the line of lines that ends the file at
// binary data from offset from (len(lines): none). lastNum is the number
// of the last matching line handed over before lines (0: none), after
// the -A count; slice: the file is read whole; passthru: every line is
// handed over as the search reaches it.
func binaryStopAt(lines []search.Line, from int64, slice, passthru bool, lastNum, after int) int {
	if from < 0 {
		return len(lines)
	}
	next := -1 // the next matching line, for a line of the context before it
	for k, l := range lines {
		at := l.Offset
		if !slice && !l.Match && !passthru && !(lastNum > 0 && l.Number <= lastNum+after) {
			if next < k {
				next = k + 1
				for next < len(lines) && !lines[next].Match {
					next++
				}
			}
			if next < len(lines) {
				at = lines[next].Offset
			}
		}
		if at >= from {
			return k
		}
		if l.Match {
			lastNum = l.Number
		}
	}
	return len(lines)
}

// Prepare applies rg's binary-data rules that depend on the output to a
// result (or a part of one) before it is counted and printed: the stop
// above, in the standard and --vimgrep formats (the lines from there on
// dropped, the counts and bytes searched of the last part those rg
// reports), and maxCountBinary.
func (p *Printer) Prepare(r search.FileResult) search.FileResult {
	if p.mode != "standard" && p.mode != "vimgrep" {
		if !r.More {
			r = p.maxCountBinary(r)
		}
		return r
	}
	c := &p.cur
	if c.stopped {
		c.drop(r.Lines)
		r.Lines, r.Out = nil, nil
	} else if k := binaryStopAt(r.Lines, r.BinaryFrom, p.slice, p.passthru, c.lastNum, p.after); k < len(r.Lines) {
		l := r.Lines[k]
		c.noteLines(r.Lines[:k])
		r.Stop, r.StopGap = search.StopContext, l.Gap
		if l.Match {
			r.Stop = search.StopMatch
			c.stopBytes = p.slicePos(r, k)
		} else {
			c.drop(r.Lines[k : k+1])
			if p.multiline || p.invert && r.InvStop > 0 {
				c.stopBytes = p.slicePos(r, k) // (rg found the match after it first)
			}
		}
		c.drop(r.Lines[k+1:])
		c.stopped = true
		r.Lines = r.Lines[:k]
	} else {
		c.noteLines(r.Lines)
		c.matchSeen = c.matchSeen || len(r.Out) > 0
	}
	if r.More {
		return r
	}
	if !c.stopped {
		return p.maxCountBinary(r)
	}
	r.MatchedLines -= c.dropLines
	r.Matches -= c.dropMatches
	if p.slice {
		r.BytesSearched = c.stopBytes // (where the search stood: past the last match)
	} else {
		// what the buffer had consumed: up to the context kept for the
		// fill, or past the last line handed over
		r.BytesSearched = max(r.BinaryKeep, min(c.visited, r.BinaryFrom))
	}
	return r
}

// slicePos is where rg's search of a file read whole stood when the
// line r.Lines[k] ended it: past that match's line, never past the NUL
// byte it saw. With -U rg hands a match over (its context first) when it
// has found the next one: it stood past the match after it, or at the end.
func (p *Printer) slicePos(r search.FileResult, k int) int64 {
	l := r.Lines[k]
	pos := l.Offset + int64(len(l.Text))
	if p.slice && p.invert && r.InvStop > 0 {
		pos = r.InvStop // (rg hands inverted lines over when it has found the match after them)
	}
	if p.slice && p.multiline {
		pos = r.BytesSearched // (the whole file)
		j := k
		for j < len(r.Lines) && !r.Lines[j].Match {
			j++
		}
		for _, n := range r.Lines[min(j+1, len(r.Lines)):] {
			if n.Match {
				pos = n.Offset + int64(len(n.Text))
				if len(n.Subs) > 0 {
					pos = n.Offset + int64(n.Subs[0].End)
				}
				break
			}
		}
	}
	if p.slice && r.BinaryOffset >= 0 {
		pos = min(pos, r.BinaryOffset)
	}
	return pos
}

// noteLines notes the lines of a file handed to the printer.
func (c *part) noteLines(lines []search.Line) {
	for _, l := range lines {
		c.visited = l.Offset + int64(len(l.Text))
		if l.Match {
			c.lastNum, c.matchSeen = l.Number, true
			c.stopBytes = l.Offset + int64(len(l.Text))
		}
	}
}

// drop notes matching lines the stop leaves out of the counts.
func (c *part) drop(lines []search.Line) {
	for _, l := range lines {
		if l.Match {
			c.dropLines += search.CountLines(l.Text) // (a -U match may span lines)
			c.dropMatches += len(l.Subs)
		}
	}
}

// binaryStopped prints the end of a file's lines at binary data
// (r.stop): the "--" of a gap before the line that ended it, and the
// note when a match was handed over. In rg's parallel search a file's
// output is apart from the output before it by the file separator, a
// note alone too.
func (p *Printer) binaryStopped(out []byte, r search.FileResult) []byte {
	sep := p.ctxBreaks()
	if r.StopGap && sep {
		out = append(append(out, p.ctxSep...), '\n')
	}
	if r.Stop != search.StopMatch && !p.cur.matchSeen {
		return out
	}
	if p.parallel && !p.cur.started && len(r.Lines) == 0 && p.printed > 0 {
		switch {
		case p.heading && p.mode == "standard":
			out = append(out, '\n')
		case sep && !p.heading:
			out = append(append(out, p.ctxSep...), '\n')
		}
	}
	p.first = false
	return p.binaryMatches(out, r)
}
