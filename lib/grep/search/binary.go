package search

import "bytes"

// rg's binary-file handling. rg reads a file either whole (memory-mapped:
// explicitly named files when there are few, and every -U search) or
// through a 64 KiB line buffer, and looks for a NUL byte in the whole
// file or in each buffer fill:
//   - quit (files found by walking): the file is dropped silently from the
//     fill with the NUL on; what earlier fills held was searched (rg then
//     prints its matches with a warning, but no count);
//   - convert (named files, --binary): the search goes on (a buffered read
//     turns each NUL into a line end), and the first match after the NUL
//     prints "binary file matches (found "\0" byte around offset N)".
//
// -a (Text) turns all of it off.

// bufferSize is grep-searcher's DEFAULT_BUFFER_CAPACITY; stdinBuffer the
// buffer of Rust's standard input.
const (
	bufferSize  = 64 << 10
	stdinBuffer = 8 << 10
)

// binaryPrepare applies the binary rules to buf before it is searched. It
// returns the bytes to search, and sets r.BinaryOffset, r.BinaryFrom
// (matches from this offset on are not printed) and r.Skipped.
func binaryPrepare(buf []byte, o SearchOptions, r *FileResult) []byte {
	r.BinaryFrom = -1
	if o.Text {
		return buf
	}
	quit := o.SkipBinary
	if o.Slice {
		// the first 64 KiB up front (later NULs: binary_slice.go)
		i := bytes.IndexByte(buf[:min(len(buf), bufferSize)], 0)
		if i < 0 {
			return buf
		}
		r.BinaryOffset = int64(i)
		if quit {
			r.Skipped = true
			r.BytesSearched = 0
			return nil
		}
		r.BinaryFrom = 0
		r.BytesSearched = int64(i)
		return buf
	}
	nul, from := bufferedNUL(buf, o.Stdin)
	if nul < 0 {
		return buf
	}
	r.BinaryOffset = int64(nul)
	if quit {
		// only the fills before the one with the NUL were searched
		r.BytesSearched = int64(from)
		if from == 0 {
			r.Skipped = true
			return nil
		}
		r.BinaryQuit = true
		return buf[:from]
	}
	r.BinaryFrom = int64(from)
	r.BinaryKeep = int64(rolled(buf[:from], max(o.Before, o.After)))
	out := make([]byte, len(buf))
	copy(out, buf)
	for i := nul; i < len(out); i++ {
		if out[i] == 0 {
			out[i] = '\n'
		}
	}
	return out
}

// fills replays rg's line buffer over buf: f sees each fill, with the
// bytes newly read, buf[read:end], and the complete lines searched in it,
// buf[start:searchEnd]. The first fill holds only 3 bytes (rg's reader
// sniffs for a byte-order mark first); later ones fill the 64 KiB buffer,
// keeping the unfinished last line, and the buffer doubles when one line
// does not fit. Standard input (stdin) is read through an 8 KiB buffer:
// the sniff's read filled it, so the second fill ends at 8 KiB. fills
// stops when f returns false.
func fills(buf []byte, stdin bool, f func(start, read, end, searchEnd int) bool) {
	fillsRolled(buf, stdin, nil, f)
}

// fillsRolled is fills where rg's buffer keeps bytes at each roll (with
// context): the next fill's buffer begins at roll(start, searchEnd), not
// at searchEnd, and reads up to its capacity from there.
func fillsRolled(buf []byte, stdin bool, roll func(start, searchEnd int) int, f func(start, read, end, searchEnd int) bool) {
	capacity := bufferSize
	start, end := 0, 0
	first := true
	for end < len(buf) || first {
		var newEnd int
		if first {
			newEnd = min(len(buf), 3)
			first = false
		} else if stdin && end < stdinBuffer {
			newEnd = min(len(buf), stdinBuffer)
		} else {
			newEnd = min(len(buf), start+capacity)
			if newEnd <= end {
				capacity *= 2
				continue
			}
		}
		read := end
		end = newEnd
		searchEnd := start
		if end == len(buf) {
			searchEnd = end
		} else if j := lastNewline(buf[start:end]); j >= 0 {
			searchEnd = start + j + 1
		}
		if !f(start, read, end, searchEnd) {
			return
		}
		if roll != nil {
			searchEnd = max(roll(start, searchEnd), start)
		}
		start = searchEnd
		if end == len(buf) {
			return
		}
	}
}

// bufferedNUL finds the first NUL as rg's line buffer meets it, and where
// the data not yet searched started when it did (the bytes before that
// were searched in earlier fills). -1 when there is no NUL.
func bufferedNUL(buf []byte, stdin bool) (nul, from int) {
	nul = indexNUL(buf)
	if nul < 0 {
		return -1, 0
	}
	from = 0
	fills(buf, stdin, func(start, read, end, _ int) bool {
		if nul < end {
			from = start
			return false
		}
		return true
	})
	return nul, from
}

// maxCountBytes is rg's bytes_searched for a file whose search -m stopped
// at the line buf[start:end]: through that line when rg reads the file
// whole, else what its buffer had consumed when it got there.
func maxCountBytes(buf []byte, o SearchOptions, start, end int, printed []CtxRef) int64 {
	if o.Slice {
		return int64(end)
	}
	consumed := 0
	fillsRolled(buf, o.Stdin, contextRoll(buf, o, printed), func(s, _, _, searchEnd int) bool {
		consumed = s
		return end > searchEnd && !(end == len(buf) && searchEnd == len(buf))
	})
	return int64(consumed)
}

// contextRoll is where rg's buffer begins after a roll with context
// (nil without): it keeps the lines before the last one searched that the
// context may need, or up to the last line it handed over in that fill
// when that is later (printed: the lines printed so far, in order; a
// line of the context before a match is handed over with that match).
func contextRoll(buf []byte, o SearchOptions, printed []CtxRef) func(start, searchEnd int) int {
	ctx := max(o.Before, o.After)
	if ctx == 0 || o.CountOnly {
		return nil
	}
	visit := make([]int, len(printed)) // where the search stood when it handed each line over
	next, lastMatch := -1, 0
	for k := len(printed) - 1; k >= 0; k-- {
		if printed[k].Match {
			next = printed[k].End
		}
		visit[k] = next
	}
	for k, r := range printed {
		if r.Match || lastMatch > 0 && r.Num-lastMatch <= o.After || visit[k] < 0 {
			visit[k] = r.End // (a match, or the context after one: in its own fill)
		}
		if r.Match {
			lastMatch = r.Num
		}
	}
	return func(start, searchEnd int) int {
		at := start + rolled(buf[start:searchEnd], ctx)
		for k, r := range printed {
			if r.End > start && visit[k] <= searchEnd {
				at = max(at, r.End)
			}
		}
		return at
	}
}

// rolled is where rg's line buffer begins after it has searched the
// lines of buf (its buffer's complete lines up to a fill) and rolled for
// the next fill: past all of them, or with context at the start of the
// ctx lines before the last one, kept for the next fill's context (rg's
// bytes_searched when the next fill's search stops at once).
func rolled(buf []byte, ctx int) int {
	p := len(buf)
	if ctx == 0 {
		return p
	}
	for i := 0; i <= ctx && p > 0; i++ {
		p = bytes.LastIndexByte(buf[:p-1], '\n') + 1
	}
	return p
}
