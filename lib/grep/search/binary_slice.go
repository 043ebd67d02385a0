package search

import (
	"bytes"
	"github.com/agentutils/agentutils/lib/grep/regex"
)

// A file rg reads whole (Slice) is checked for NUL bytes in its first 64
// KiB before the search, and after that only in the lines it prints
// (matches and context): searchLateBinary handles files whose first NUL
// lies beyond the first 64 KiB. A matched line holding a NUL makes rg
// note the binary data (convert: the standard printer stops there with
// "binary file matches"); bytes_searched then ends at the NUL.
func searchLateBinary(m *regex.Matcher, path string, buf []byte, o SearchOptions) FileResult {
	so := o
	so.Text, so.CountOnly = true, false
	so.Format = nil // the printed lines are looked at for a NUL
	r := SearchBuffer(m, path, buf, so)
	for k, l := range r.Lines {
		if i := bytes.IndexByte(l.Text, 0); i >= 0 {
			r.BinaryOffset = l.Offset + int64(i)
			r.BytesSearched = min(r.BytesSearched, r.BinaryOffset)
			if !o.SkipBinary {
				r.BinaryFrom = l.Offset
				if o.Invert && l.Match {
					end := int(l.Offset) + len(l.Text)
					r.InvStop = int64(end) + invertedStop(buf[end:], m.Find(buf[end:], 1))
				}
				break
			}
			// quit: what came before is kept, with rg's warning (after
			// the "--" rg writes before a context line it then rejects)
			r.StopGap = l.Gap && !l.Match
			r.Lines, r.BinaryQuit = r.Lines[:k], true
			r.MatchedLines, r.Matches = 0, 0
			for _, kept := range r.Lines {
				if kept.Match {
					r.MatchedLines += CountLines(kept.Text) // (a -U match may span lines)
					r.Matches += len(kept.Subs)
				}
			}
			if r.MatchedLines == 0 {
				r.Lines, r.BinaryQuit, r.Skipped = nil, false, true
			} else if !l.Match && !m.Multiline {
				// rejected with the match after it: rg stood past the last
				// match's line
				r.BytesSearched = min(r.BytesSearched, lastMatchEnd(r.Lines))
			}
			break
		}
	}
	if o.CountOnly {
		r.Lines = nil
	}
	return r
}

// lateNUL reports a first NUL past the first 64 KiB.
func lateNUL(buf []byte) bool {
	return len(buf) > bufferSize && bytes.IndexByte(buf[:bufferSize], 0) < 0 && bytes.IndexByte(buf[bufferSize:], 0) >= 0
}

// lastMatchEnd is where the last matching line of lines ends.
func lastMatchEnd(lines []Line) int64 {
	for k := len(lines) - 1; k >= 0; k-- {
		if l := lines[k]; l.Match {
			return l.Offset + int64(len(l.Text))
		}
	}
	return 0
}
