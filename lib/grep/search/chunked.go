package search

import (
	"bytes"
	"github.com/agentutils/agentutils/lib/grep/regex"
	"io/fs"
	"math"
	"slices"
)

// A large file is read and searched in pieces of whole lines rather than
// whole, and its result reaches the caller in parts (FileResult.More), so
// a search's memory does not grow with the size of a file or with how
// many of its lines match. What spans pieces is carried: line numbers and
// offsets, -B lines before a piece's first match, -A lines owed after the
// last one, the "--" separators, -m, the totals, and the binary rules
// (binary.go) as they apply to the whole file.
//
// The pieces end where rg's 64 KiB buffer (fills) would start a fill, so
// that the fill holding a NUL byte (where a walked file's search stops)
// and the fill where -m stopped (rg's bytes_searched) are found as in the
// whole file.

const (
	// DefaultChunkAbove is the size above which the command searches a
	// file in pieces (SearchOptions.ChunkAbove): a file read whole is held
	// whole, with all its output (-C1 e on 15 MB: 117 MB peak RSS and 4x
	// rg's CPU in page faults, where pieces take 20 MB and 1.2x).
	DefaultChunkAbove = 1 << 20
	// DefaultMapAbove is the size above which a file searched in pieces
	// by a literal scan is searched in a memory map (SearchOptions.MapAbove).
	DefaultMapAbove = 16 << 20
	// defaultChunkSize is the size of a piece when ChunkSize is 0: the lines
	// of a piece where every line matches take about four times its size.
	defaultChunkSize = 1 << 20
	// batchOut and batchIn bound how long the lines a search printed
	// itself (FileResult.Out) wait before they go out as a part: until
	// they are batchOut bytes, or the pieces they came from batchIn bytes.
	// Each part is a hand-over between goroutines (a thread woken, about
	// 35 µs of CPU): one per 1 MiB piece was a ninth of the time of a
	// literal search of a large file where most pieces hold a match.
	batchOut = 64 << 10
	batchIn  = 16 << 20
	// readSize bounds one read: the bytes a read brings are still in the
	// processor's cache when the NUL check goes over them (2 MiB reads,
	// as large as the cache, made it twice as slow).
	readSize = 256 << 10
)

// Chunkable reports whether a file can be searched in pieces with o: not
// -U (which reads whole, as rg) nor a decompressed file, and not a walked
// file under --mmap (whose NUL rule looks at the printed lines and drops
// the whole file).
func Chunkable(m *regex.Matcher, o SearchOptions, decompress bool) bool {
	return o.ChunkAbove > 0 && !m.Multiline && m.Bytes == nil && !decompress && !(o.Slice && o.SkipBinary && !o.Text)
}

// LiteralScan reports whether a search with o goes over a file by a
// literal scan (the prefilter's literals, or Aho-Corasick's), which
// prefetches (pair_amd64.s) and so takes a memory map's pages as fast as
// a buffer in the processor's cache, rather than line by line (no known
// literal, or -v), where bytes just read into a buffer are faster than
// the map's: the command maps a large file only for the first
// (SearchOptions.MapAbove; a literal's rows of the bench 0.87-0.91 of
// their time read, \p{Greek}, ^\s*$ and -v -c e 1.03-1.08).
func LiteralScan(m *regex.Matcher, o SearchOptions) bool {
	if _, ok := m.OneByte(); ok && o.CountOnly && o.LinesOnly {
		return true // -c, -v -c: byteLines
	}
	return (len(m.Lits) > 0 || m.AC != nil) && !o.Invert && !m.Multiline && m.Bytes == nil
}

// chunkSearch is the state carried from piece to piece.
type chunkSearch struct {
	m    *regex.Matcher
	o    SearchOptions
	r    FileResult // running totals and the binary fields
	emit func(FileResult) bool

	line      int     // lines before the piece
	printed   int     // number of the last line emitted (0: none)
	pending   int     // -A lines owed by the last match
	ring      []Line  // -B: the last lines not printed before the piece (own copies)
	left      int     // -m: matching lines still wanted (-1: no limit)
	stopped   bool    // -m or -l has what it needs: the rest is read only for the binary rules and the byte count
	maxEnd    int64   // -m: rg's bytes_searched where it stopped (-1: -m did not stop it)
	starts    []int64 // starts of rg's buffer fills in the piece (for maxEnd)
	lastStart int64   // the last fill start before the piece
	nul       int64   // buffered reads: the first NUL byte (-1: none yet)
	early     bool    // whole-file reads: a NUL in the first 64 KiB
	lateAt    int64   // whole-file reads: the first NUL in a printed line (-1: none)
	out       []byte  // printed lines not yet emitted (batchOut)
	outIn     int     // the bytes of the pieces out's lines came from
	// nl: the newlines of what was read, counted as it was read, for the
	// line numbers (nil when the output shows none: nlscan.go)
	nl *lineIndex
	// tail: the starts of the last lines before the piece, as many as
	// rg's buffer keeps for context (buffered reads with context: rolled)
	tail []int64
	mNum int // the number of -m's last match, once -m stopped the search (0: not yet)
	// invNext: -v -m stopped a whole-file read with no match after it in
	// its piece; rg stood past the next match's line (invertedStop)
	invNext bool
	// co: a piece's lines to print (with context, printed here: search),
	// storage reused from piece to piece
	co ctxOut
}

// ReadFunc reads into p, returning 0 bytes (and no error) at the end.
type ReadFunc func(p []byte) (int, error)

// SearchChunked searches the opened file (read) in pieces of about o.ChunkSize
// bytes, emitting parts with More set and then the final result (without
// lines, its counts final). buf is storage to reuse; it is returned, grown.
// emit returning false stops the search.
func SearchChunked(m *regex.Matcher, path string, read ReadFunc, o SearchOptions, buf []byte, emit func(FileResult) bool) []byte {
	return searchChunks(m, path, read, nil, nil, o, buf, emit)
}

// SearchMapped searches a file's bytes already in memory (data: a memory
// map of the whole file) as SearchChunked reads them, piece by piece, in
// place: no copy. The bytes must be writable (a private map: with rg's
// buffered rules, NUL bytes past the first become line ends). done, when
// not nil, is told as the search goes that it will not look at the bytes
// before an offset again (the caller may drop those pages).
func SearchMapped(m *regex.Matcher, path string, data []byte, o SearchOptions, done func(off int64), emit func(FileResult) bool) {
	data = data[:len(data):len(data)]
	read := func(p []byte) (int, error) { return len(p), nil } // (the bytes are there)
	searchChunks(m, path, read, data, done, o, data[:0], emit)
}

// searchChunks is SearchChunked, reading with read into buf, or (mapped
// not nil) with the bytes of mapped in place.
func searchChunks(m *regex.Matcher, path string, read ReadFunc, mapped []byte, searched func(off int64), o SearchOptions, buf []byte, emit func(FileResult) bool) []byte {
	size := o.ChunkSize
	if size <= 0 {
		size = defaultChunkSize
	}
	c := &chunkSearch{m: m, o: o, emit: emit, left: -1, maxEnd: -1, nul: -1, lateAt: -1}
	if !o.CountOnly && !o.NoLineNumbers && !(o.Slice && !o.Text && o.Before == 0 && o.After == 0) {
		// (a map's search numbers its matches as rg's searcher does,
		// counting newlines up to each: one pass over the bytes, not a
		// count as they are read then the search; its NULs matter only
		// in the matching lines: lineNUL)
		c.nl = &lineIndex{}
	}
	c.r = FileResult{Path: path, BinaryOffset: -1, BinaryFrom: -1}
	if o.MaxCount > 0 {
		c.left = o.MaxCount
	}
	target := max(size, bufferSize) // the first read holds the first 64 KiB (whole-file reads look for a NUL there)
	buf = buf[:0]
	var base int64 // the file offset of buf[0]
	fr := fillReplay{capacity: bufferSize, stdin: o.Stdin}
	eof, first := false, true
	from := int64(-1) // quit: the searched bytes end here
	for {
		for len(buf) < target && !eof {
			if cap(buf) < target && mapped == nil {
				buf = slices.Grow(buf, target-len(buf))
			}
			// reads end where rg's fills do (buf starts where one does):
			// reading on to the buffer's capacity would leave a fill
			// begun at the end, to be moved to the front for the next
			// piece (a fifth of the file, once fills had grown to 2 MiB)
			end := cap(buf)
			if w := int((int64(target) + fr.capacity - 1) / fr.capacity * fr.capacity); w <= end {
				end = w
			}
			n, err := read(buf[len(buf):min(end, len(buf)+readSize)])
			if err != nil {
				if !c.flush() {
					return buf
				}
				emit(FileResult{Path: path, Err: &fs.PathError{Op: "read", Path: path, Err: err}, BinaryOffset: -1})
				return buf
			}
			if n == 0 {
				eof = true
				break
			}
			c.read(buf[len(buf):len(buf)+n], base+int64(len(buf)))
			buf = buf[:len(buf)+n]
		}
		if first {
			first = false
			if !o.Text && o.Slice {
				if i := bytes.IndexByte(buf[:min(len(buf), bufferSize)], 0); i >= 0 {
					c.early, c.r.BinaryOffset, c.r.BinaryFrom = true, int64(i), 0
				}
			}
		}
		done := fr.advance(buf, base, eof, func(start, end, searchEnd int64) bool {
			c.starts = append(c.starts, start)
			if c.nul >= 0 && c.nul < end && c.r.BinaryOffset < 0 {
				c.r.BinaryOffset = c.nul
				if o.SkipBinary {
					from = start
					return false
				}
				c.r.BinaryFrom = start
				c.r.BinaryKeep = c.rolled(buf, base, start)
			}
			return true
		})
		cut, final := fr.start, done
		if done {
			cut = base + int64(len(buf))
		}
		if from >= 0 {
			cut, final = from, true
		}
		if cut > base {
			if !c.search(buf[:cut-base], base) {
				return buf
			}
			if len(c.starts) > 0 {
				c.lastStart = c.starts[len(c.starts)-1]
			}
			c.starts = c.starts[:0]
		}
		if final || c.stopped && c.pending == 0 && c.maxEnd >= 0 && (o.Text || o.Slice || c.r.BinaryOffset >= 0) {
			break // (-m: what rg searched is known, and where the NUL is, when a later one counts)
		}
		if c.nl != nil {
			c.nl.cut(cut, c.line)
		}
		if mapped != nil {
			buf, base = mapped[cut:base+int64(len(buf))], cut
			if searched != nil {
				searched(cut)
			}
		} else {
			n := copy(buf, buf[cut-base:])
			buf, base = buf[:n], cut
		}
		for len(buf) >= target {
			target *= 2 // a line longer than the piece
		}
	}
	r := c.r
	r.BytesSearched = base + int64(len(buf))
	switch {
	case from >= 0:
		r.BytesSearched = from
		if from == 0 {
			r.Skipped = true
		} else {
			r.BinaryQuit = true
		}
	case c.early:
		r.BytesSearched = r.BinaryOffset
	}
	if c.maxEnd >= 0 && !(c.stopped && c.pending > 0) { // (-A lines owed at the end: rg read to it)
		r.BytesSearched = c.maxEnd
	}
	if c.lateAt >= 0 {
		r.BytesSearched = min(r.BytesSearched, c.lateAt)
	}
	if c.flush() {
		emit(r)
	}
	return buf
}

// read notes the first NUL in bytes just read (p, at file offset off) for
// a buffered read; when the search goes on past it (rg's convert mode),
// NULs from there on end lines, as in binaryPrepare.
func (c *chunkSearch) read(p []byte, off int64) {
	if c.nl == nil {
		c.nuls(p, off)
		return
	}
	// the newlines counted and a NUL looked for in one pass; with a NUL,
	// the NULs are seen to first (they may become newlines), then counted
	if c.nul < 0 && !c.o.Text && !c.o.Slice && !c.nl.add(p, off, true) {
		return
	}
	c.nuls(p, off)
	c.nl.add(p, off, false)
}

// nuls notes the first NUL in p (at file offset off) for a buffered read
// and turns the NULs into line ends from there on (convert mode).
func (c *chunkSearch) nuls(p []byte, off int64) {
	if c.o.Text || c.o.Slice {
		return
	}
	i := 0
	if c.nul < 0 {
		j := indexNUL(p)
		if j < 0 {
			return
		}
		c.nul, i = off+int64(j), j
	}
	if c.o.SkipBinary {
		return
	}
	for {
		j := bytes.IndexByte(p[i:], 0)
		if j < 0 {
			return
		}
		p[i+j] = '\n'
		i += j + 1
	}
}

// pieceNUL: the piece (at file offset base) holds a NUL. The newlines'
// count looked for NULs as it went (lineIndex.nulFrom): a piece before
// the first it saw needs no pass of its own.
func (c *chunkSearch) pieceNUL(piece []byte, base int64) bool {
	if c.nl != nil && (!c.nl.sawNUL || c.nl.nulFrom >= base+int64(len(piece))) {
		return false
	}
	return bytes.IndexByte(piece, 0) >= 0
}

// search searches one piece of whole lines, at file offset base, and
// emits its lines as a part.
func (c *chunkSearch) search(piece []byte, base int64) bool {
	o := c.o
	context := o.Before > 0 || o.After > 0
	// the piece's lines: counted here only with context; else after the
	// search, from its last matching line on (the search counted the
	// lines before it)
	nlines := -1
	if context {
		nlines = c.pieceLines(piece, base)
	} else if o.CountOnly || o.NoLineNumbers {
		nlines = 0 // (no line numbers: a pass over the piece saved)
	}
	late := o.Slice && !o.Text && !c.early && c.lateAt < 0
	if c.invNext {
		c.invertedStop(piece, base)
	}
	var lines []Line
	// format: the lines with context are printed here (o.Format) once
	// complete (c.context), into scratch storage reused from piece to
	// piece, where handing them to the printer as lines was a part, a
	// Line each and the printer's work for each (6 times rg's CPU, -C1 e)
	format := false
	if !c.stopped {
		so := o
		so.Text, so.Slice = true, true // the binary rules are applied here, to the whole file
		so.MaxCount = max(c.left, 0)
		// without context, the search looks for NULs in the lines it
		// matches (lineNUL), and it is done again as below for one
		lineNUL := late && !context
		nul := late && !lineNUL && c.pieceNUL(piece, base)
		so.CountOnly = o.CountOnly && c.left < 0 && !nul
		if nul || c.r.BinaryFrom >= 0 || o.MaxCount > 0 || context {
			so.Format = nil // the printer looks at these lines (binary data, -m, context)
		}
		if format = context && o.Format != nil && !o.CountOnly && !nul && c.r.BinaryFrom < 0 && o.MaxCount == 0; format {
			so.refsOut = &c.co
			c.co.refs, c.co.subs = c.co.refs[:0], c.co.subs[:0]
		}
		so.lineBase, so.offBase, so.nl, so.piece, so.lineNUL = c.line, base, c.nl, true, lineNUL
		res := SearchBuffer(c.m, c.r.Path, piece, so)
		if res.nulLine {
			so.CountOnly, so.Format, so.lineNUL = false, nil, false // (as nul above)
			res = SearchBuffer(c.m, c.r.Path, piece, so)
		}
		c.r.MatchedLines += res.MatchedLines
		c.r.Matches += res.Matches
		lines = res.Lines
		if nlines < 0 && c.nl != nil {
			nlines = c.pieceLines(piece, base)
		}
		if nlines < 0 && len(lines) > 0 {
			last := lines[len(lines)-1]
			nlines = last.Number - 1 + CountLines(piece[last.Offset:])
		}
		if res.Out != nil {
			if nlines < 0 {
				nlines = res.lastNum - 1 + CountLines(piece[res.lastStart:])
			}
			if !o.CountOnly {
				c.line += nlines
				return c.queue(res.Out, len(piece))
			}
		}
		for i := range lines {
			lines[i].Number += c.line
			lines[i].Offset += base
		}
		if c.left > 0 {
			want := c.left
			c.left -= res.MatchedLines
			if c.left <= 0 {
				c.stopped = true
				// -m's last match (the matches in its context after it
				// print as matches but extend nothing: context.go)
				if k := nthMatch(lines, want); k >= 0 {
					l := lines[k]
					c.mNum = l.Number
					c.maxEnd = c.fillOf(l.Offset)
					if o.Slice {
						c.maxEnd = lines[lastMatch(lines)].Offset + int64(len(lines[lastMatch(lines)].Text))
					}
					if o.Slice && o.Invert {
						c.maxEnd, c.invNext = base+res.BytesSearched, res.BytesSearched == int64(len(piece))
						if c.invNext {
							c.maxEnd = -1 // (the whole file, unless a later piece has a match)
						}
					}
				}
			}
		}
		if o.FirstOnly && res.MatchedLines > 0 {
			c.stopped = true
		}
	}
	if nlines < 0 {
		nlines = c.pieceLines(piece, base) // (countLines without the newlines counted)
	}
	var head []Line // (format: the lines before the piece's own)
	switch {
	case format:
		head = c.contextRefs(piece, base, nlines)
	case context:
		lines = c.context(piece, base, nlines, lines)
	}
	if context && !o.Slice && c.r.BinaryFrom < 0 {
		c.keepTail(piece, base)
	}
	if late {
		for _, l := range lines {
			if i := bytes.IndexByte(l.Text, 0); i >= 0 {
				c.lateAt = l.Offset + int64(i)
				c.r.BinaryOffset, c.r.BinaryFrom = c.lateAt, l.Offset
				break
			}
		}
	}
	if format {
		so := o
		so.lineBase, so.offBase = c.line, base
		c.line += nlines
		if len(head) > 0 && !c.queue(o.Format.LineList(c.r.Path, head), 0) {
			return false
		}
		if len(c.co.refs) == 0 {
			return true
		}
		return c.queue(o.Format.Context(c.r.Path, piece, c.co.refs, c.co.subs, so.Invert, so.lineBase, so.offBase), len(piece))
	}
	c.line += nlines
	if o.CountOnly || len(lines) == 0 {
		return true
	}
	if !c.flush() {
		return false
	}
	part := c.r
	part.Lines, part.More = lines, true
	return c.emit(part)
}

// queue adds the lines a piece of n bytes printed to those waiting, and
// emits them once there are enough (batchOut, batchIn). The lines wait in
// a buffer of the printer's free list (outBufs), copied there: a buffer
// grown by appending would be garbage each time, and the collector
// seldom runs (cmd/agent-grep/gc.go).
func (c *chunkSearch) queue(out []byte, n int) bool {
	bufs := c.o.Format
	c.outIn += n
	if len(c.out)+len(out) > cap(c.out) {
		if !c.flush() {
			return false
		}
		if len(out) >= batchOut/2 { // enough to go alone
			c.out = out
			return c.flush()
		}
		c.out = bufs.Get(batchOut)
	}
	c.out = append(c.out, out...)
	bufs.Put(out)
	if len(c.out) >= batchOut/2 || c.outIn >= batchIn {
		return c.flush()
	}
	return true
}

// flush emits the printed lines waiting, if any.
func (c *chunkSearch) flush() bool {
	if len(c.out) == 0 {
		return true
	}
	part := c.r
	part.Out, part.More = c.out, true
	c.out, c.outIn = nil, 0
	return c.emit(part)
}

// pieceLines is countLines(piece), from the newlines counted as the
// piece was read when they were.
func (c *chunkSearch) pieceLines(piece []byte, base int64) int {
	if c.nl == nil {
		return CountLines(piece)
	}
	n := c.nl.lines(piece, base, base+int64(len(piece))) - c.line
	if len(piece) > 0 && piece[len(piece)-1] != '\n' {
		n++
	}
	return n
}

// countLines is the number of lines of piece, a last one without its
// newline included.
func CountLines(piece []byte) int {
	n := bytes.Count(piece, []byte{'\n'})
	if len(piece) > 0 && piece[len(piece)-1] != '\n' {
		n++
	}
	return n
}

// fillOf is the start of rg's buffer fill that searched the line at off.
func (c *chunkSearch) fillOf(off int64) int64 {
	s := c.lastStart
	for _, st := range c.starts {
		if st <= off {
			s = max(s, st)
		}
	}
	return s
}

// nthMatch is the index of the nth matching line (-1: none).
func nthMatch(lines []Line, n int) int {
	for k, l := range lines {
		if l.Match {
			if n--; n == 0 {
				return k
			}
		}
	}
	return -1
}

// lastMatch is the index of the last matching line (-1: none).
func lastMatch(lines []Line) int {
	for k := len(lines) - 1; k >= 0; k-- {
		if lines[k].Match {
			return k
		}
	}
	return -1
}

// context completes a piece's lines (lines: its matches with the context
// inside it) with the -B lines before the piece and the -A lines owed to
// the last piece's last match, sets the "--" gaps, and keeps what the next
// piece needs.
func (c *chunkSearch) context(piece []byte, base int64, nlines int, lines []Line) []Line {
	o := c.o
	var out []Line
	firstNum := c.line + nlines + 1 // the first line the piece prints itself
	if len(lines) > 0 {
		firstNum = lines[0].Number
		if k := slices.IndexFunc(lines, func(l Line) bool { return l.Match }); k >= 0 {
			for _, l := range c.ring {
				if l.Number >= lines[k].Number-o.Before && l.Number > c.printed {
					out = append(out, l)
				}
			}
		}
	}
	if n := len(out); c.pending > 0 {
		out = c.owed(out, piece, base, firstNum)
		if c.stopped && len(out) > n {
			l := out[len(out)-1]
			c.laterMatches(piece[:l.Offset-base+int64(len(l.Text))], base, out[n:])
			if !o.Slice && c.maxEnd >= 0 {
				c.maxEnd = max(c.maxEnd, c.fillOf(l.Offset)) // (rg reads on for them: context.go's stoppedBytes)
			}
		}
	}
	out = append(out, lines...)
	prev := c.printed
	for i := range out {
		out[i].Gap = prev > 0 && out[i].Number > prev+1
		prev = out[i].Number
	}
	c.printed = prev
	last := c.line + nlines
	if c.mNum > last-nlines {
		c.pending = max(0, c.mNum+o.After-last) // (-m stopped in this piece)
	} else if k := lastMatch(lines); k >= 0 {
		c.pending = max(0, lines[k].Number+o.After-last)
	} else {
		c.pending = max(0, c.pending-nlines)
	}
	if o.Before > 0 {
		c.keepBefore(piece, base, nlines)
	}
	return out
}

// owed appends the -A lines owed to the last piece's last match, those
// before the line firstNum.
func (c *chunkSearch) owed(out []Line, piece []byte, base int64, firstNum int) []Line {
	k := min(c.pending, firstNum-1-c.line)
	start := 0
	for i := 0; i < k && start < len(piece); i++ {
		end := bytes.IndexByte(piece[start:], '\n')
		if end < 0 {
			end = len(piece)
		} else {
			end += start + 1
		}
		out = append(out, Line{Number: c.line + i + 1, Offset: base + int64(start), Text: piece[start:end], Subs: c.ctxSubs(piece[start:end])})
		start = end
	}
	return out
}

// ctxSubs are the matches of a context line the piece search did not
// see: with -v, rg 13 prints them (colour, -r, --column, --json).
func (c *chunkSearch) ctxSubs(text []byte) []regex.Span {
	if !c.o.Invert {
		return nil
	}
	return c.m.Find(text, 0)
}

// invertedStop looks for the match that ends -v -m's search in a later
// piece: rg stood past its line.
func (c *chunkSearch) invertedStop(piece []byte, base int64) {
	if f := c.m.Find(piece, 1); len(f) > 0 {
		c.maxEnd, c.invNext = base+invertedStop(piece, f), false
	}
}

// laterMatches marks the lines owed after -m's last match (ctx, the
// lines of region, at file offset base) that match: as in the whole-file
// search (context.go), they print as matches and count.
func (c *chunkSearch) laterMatches(region []byte, base int64, ctx []Line) {
	so := c.o
	so.Text, so.Slice, so.CountOnly, so.FirstOnly = true, true, false, false
	so.Before, so.After, so.MaxCount, so.Format, so.nl = 0, 0, 0, nil, nil
	res := SearchBuffer(c.m, c.r.Path, region, so)
	i := 0
	for _, l := range res.Lines {
		for i < len(ctx) && ctx[i].Offset < base+l.Offset {
			i++
		}
		if i == len(ctx) {
			break
		}
		ctx[i].Match, ctx[i].Subs = true, l.Subs
		end := ctx[i].Offset + int64(len(ctx[i].Text))
		if c.o.Slice {
			c.maxEnd = max(c.maxEnd, end)
		}
	}
	c.r.MatchedLines += res.MatchedLines
	c.r.Matches += res.Matches
}

// contextRefs is context for a piece whose lines are printed here: its
// lines (c.co, numbered from the piece) stay as they are, but for the gap
// before the first; the -B lines before the piece and the -A lines owed
// to the last piece's last match that come before them are returned.
func (c *chunkSearch) contextRefs(piece []byte, base int64, nlines int) []Line {
	o := c.o
	refs := c.co.refs
	var head []Line
	firstNum := c.line + nlines + 1 // the first line the piece prints itself
	if len(refs) > 0 {
		firstNum = c.line + refs[0].Num
		if k := slices.IndexFunc(refs, func(r CtxRef) bool { return r.Match }); k >= 0 {
			for _, l := range c.ring {
				if l.Number >= c.line+refs[k].Num-o.Before && l.Number > c.printed {
					head = append(head, l)
				}
			}
		}
	}
	head = c.owed(head, piece, base, firstNum)
	prev := c.printed
	for i := range head {
		head[i].Gap = prev > 0 && head[i].Number > prev+1
		prev = head[i].Number
	}
	last := c.line + nlines
	if len(refs) > 0 {
		refs[0].Gap = prev > 0 && c.line+refs[0].Num > prev+1
		prev = c.line + refs[len(refs)-1].Num
	}
	c.printed = prev
	k := len(refs) - 1
	for k >= 0 && !refs[k].Match {
		k--
	}
	if k >= 0 {
		c.pending = max(0, c.line+refs[k].Num+o.After-last)
	} else {
		c.pending = max(0, c.pending-nlines)
	}
	if o.Before > 0 {
		c.keepBefore(piece, base, nlines)
	}
	return head
}

// keepBefore keeps (copies of) the last -B lines up to the piece's end
// that were not printed, for the next piece's first match.
func (c *chunkSearch) keepBefore(piece []byte, base int64, nlines int) {
	var tail []Line // the piece's last lines, last first
	end := len(piece)
	for num := c.line + nlines; num > c.printed && num > c.line && len(tail) < c.o.Before; num-- {
		start := 0
		if end > 0 {
			if j := bytes.LastIndexByte(piece[:end-1], '\n'); j >= 0 {
				start = j + 1
			}
		}
		text := bytes.Clone(piece[start:end])
		tail = append(tail, Line{Number: num, Offset: base + int64(start), Text: text, Subs: c.ctxSubs(text)})
		end = start
	}
	slices.Reverse(tail)
	var keep []Line
	for _, l := range c.ring {
		if l.Number > c.printed {
			keep = append(keep, l)
		}
	}
	keep = append(keep, tail...)
	if len(keep) > c.o.Before {
		keep = keep[len(keep)-c.o.Before:]
	}
	c.ring = keep
}

// keepTail keeps the starts of the piece's last lines (with those
// before it) that rg's buffer keeps for context.
func (c *chunkSearch) keepTail(piece []byte, base int64) {
	n := max(c.o.Before, c.o.After) + 1
	var starts []int64 // the piece's last lines, last first
	for end := len(piece); end > 0 && len(starts) < n; {
		start := bytes.LastIndexByte(piece[:end-1], '\n') + 1
		starts = append(starts, base+int64(start))
		end = start
	}
	slices.Reverse(starts)
	c.tail = append(c.tail, starts...)
	if len(c.tail) > n {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-n:]...)
	}
}

// rolled is rolled (binary.go) for the fill starting at start, buf
// holding the file from base: the lines before base are c.tail's.
func (c *chunkSearch) rolled(buf []byte, base, start int64) int64 {
	n := max(c.o.Before, c.o.After)
	if n == 0 {
		return start
	}
	in := buf[:start-base]
	if k := n + 1 - CountLines(in); k > 0 && len(c.tail) > 0 {
		return c.tail[max(0, len(c.tail)-k)] // (lines before the buffer)
	}
	return base + int64(rolled(in, n))
}

// fillReplay is fills (binary.go) run as the bytes arrive.
type fillReplay struct {
	start, end, capacity int64
	started              bool
	stdin                bool // standard input (SearchOptions.Stdin)
}

// advance replays the fills the bytes held, data at file offset base,
// allow (eof: the file ends after them). f sees each fill: its start, the
// end of what it read, and the end of the lines it searched; f returning
// false stops. advance reports whether the replay reached the file's end.
func (fr *fillReplay) advance(data []byte, base int64, eof bool, f func(start, end, searchEnd int64) bool) bool {
	total := base + int64(len(data))
	for {
		var newEnd int64
		if !fr.started {
			if !eof && total < 3 {
				return false
			}
			newEnd, fr.started = min(total, 3), true
		} else {
			if eof && fr.end >= total {
				return true
			}
			want := fr.start + fr.capacity
			if fr.stdin && fr.end < stdinBuffer {
				want = stdinBuffer // (standard input's first buffer: fills)
			} else if want <= fr.end {
				fr.capacity *= 2
				continue
			}
			if want > total {
				if !eof {
					return false
				}
				want = total
			}
			newEnd = want
		}
		// (the bytes of the last fill after fr.start hold no newline)
		from := max(fr.start, fr.end)
		fr.end = newEnd
		searchEnd := fr.start
		if eof && newEnd == total {
			searchEnd = newEnd
		} else if j := lastNewline(data[from-base : newEnd-base]); j >= 0 {
			searchEnd = from + int64(j) + 1
		}
		if !f(fr.start, newEnd, searchEnd) {
			return false
		}
		fr.start = searchEnd
		if eof && newEnd == total {
			return true
		}
	}
}

// FileOptions are o as they apply to one file: named on the command line
// or found by a walk, decompressed (-z) or not. sniff is how far into a
// file the read goes when it meets a NUL, for a binary file the search
// drops (0: read it all).
func FileOptions(o SearchOptions, named, decompressed bool) (fo SearchOptions, sniff int) {
	fo = o
	fo.SkipBinary = !named && !o.Binary
	if decompressed {
		fo.Slice = false // rg reads a decompressing process through its buffer
	}
	if !o.Text && fo.SkipBinary && !decompressed {
		sniff = math.MaxInt
		if fo.Slice {
			sniff = bufferSize // rg looks at the first 64 KiB of a slice
		}
	}
	return fo, sniff
}
