package search

import (
	"bytes"
	"github.com/agentutils/agentutils/lib/grep/regex"
	"slices"
	"sync"
)

// Line is a printed line: a match or a context line.
type Line struct {
	Number int      // 1-based
	Offset int64    // byte offset of the line in the file
	Text   []byte   // with its newline, if it had one
	Subs   []regex. // match spans relative to Text (match lines)
		Span
	Match bool
	Gap   bool // a "--" separator comes before this line
}

// FileResult is the outcome of searching one file.
type FileResult struct {
	Path          string
	Lines         []Line
	MatchedLines  int
	Matches       int
	BytesSearched int64
	BinaryOffset  int64 // -1 when the file is text
	BinaryFrom    int64 // matches at or after this offset print rg's "binary file matches" note instead (-1: none)
	Skipped       bool  // a binary file found by walking: not searched (rg's quit mode)
	BinaryQuit    bool  // quit mode stopped at binary data after searching the start
	Err           error
	// Out: the matching lines as printed, when the search formatted them
	// itself (SearchOptions.Format) instead of keeping them in Lines; the
	// printer takes it over (stream.go).
	Out []byte
	// lastNum is the number of the line starting at lastStart, the last
	// line Out holds: the chunked search counts its piece's lines on from
	// there.
	lastNum, lastStart int
	// nulLine: a matching line holds a NUL (SearchOptions.lineNUL); the
	// result holds nothing else
	nulLine bool
	// More: this is a part of a large file's result (SearchOptions.ChunkAbove),
	// its lines follow the lines of the parts before it, and more parts
	// follow; the counts and the binary fields are final in the last part
	// only (More false, no lines of its own).
	More bool
	// stop: the printer's lines end here at binary data (Printer.Prepare),
	// after a gap when stopGap
	Stop    stopKind
	StopGap bool
	// invStop: -v over a file read whole with binary data: the end of
	// the line of the match after the first inverted line handed over
	// from BinaryFrom on, where rg stood when that line stopped it (0: none)
	InvStop int64
	// binaryKeep: where rg's buffer began for the fill that read the NUL
	// (the context lines it kept before BinaryFrom: rolled)
	BinaryKeep int64
}

// stopKind says how a result's lines end at binary data.
type stopKind int8

const (
	StopNone    stopKind = iota
	StopContext          // at a context line: silently
	StopMatch            // at a matching line: counted, the note
)

// Sink is the printer's side of a search that prints the lines it finds
// (SearchOptions.Format), as rg's searcher writes into its printer's sink:
// each call prints a batch of lines, numbered after lineBase lines and
// offBase bytes before buf, into a buffer from the printer's free list
// (FileResult.Out); Get and Put are that list. A Sink is shared read-only
// by the searches on every goroutine.
type Sink interface {
	// Lines prints the matching lines of buf (refs, their spans in spans);
	// nil when there are none.
	Lines(path string, buf []byte, refs []LineRef, spans []regex.Span, lineBase int, offBase int64) []byte
	// Context prints the lines a search with context or -v prints (refs,
	// their spans in subs; invert: -v).
	Context(path string, buf []byte, refs []CtxRef, subs []regex.Span, invert bool, lineBase int, offBase int64) []byte
	// LineList prints lines already made (a piece's with their context),
	// the "--" of their gaps included.
	LineList(path string, lines []Line) []byte
	// Get is an empty buffer of at least size bytes.
	Get(size int) []byte
	// Put gives a buffer back for reuse.
	Put(b []byte)
}

// SearchOptions say what to keep of a file's matches.
type SearchOptions struct {
	Invert        bool // -v
	MaxCount      int  // -m, per file (0: no limit)
	Before, After int  // -B, -A
	CountOnly     bool // -c/-l/-q need no lines
	FirstOnly     bool // -l/-q/--files-without-match: the first matching line settles a file
	// LinesOnly: with CountOnly, which lines match is enough, not how many
	// matches each holds (Matches is then not counted): -c, -l, -q
	// without --count-matches or --stats. The line DFA answers alone.
	LinesOnly  bool
	Text       bool // -a: search binary files as text
	Decompress bool // -z: search .gz, .bz2 and .zst files decompressed
	Binary     bool // --binary: files found by walking are searched as named ones are
	Passthru   bool // --passthru: a file without a match prints every line too (as context)
	// SkipBinary drops a file with a NUL byte entirely (rg's behaviour for
	// files found by walking; named files are searched up to the NUL).
	SkipBinary bool
	// Slice: rg would read the file whole (a memory map: up to ten named
	// files, or -U) rather than through its 64 KiB buffer; this changes
	// where it looks for NUL bytes (binary.go).
	Slice bool
	// Stdin: the data is standard input, which rg reads through an 8 KiB
	// buffer first (fills)
	Stdin bool
	// ChunkAbove: a regular file larger than this (bytes) is read and
	// searched in pieces of whole lines of about ChunkSize bytes (0: 1 MiB),
	// its lines emitted in parts as they are found, so memory does not grow
	// with the file (chunked.go). 0: every file is read whole. -U and -z
	// read whole always.
	ChunkAbove int64
	ChunkSize  int
	// MapAbove: a file searched in pieces that is larger than this
	// (bytes), regular and on a local file system, is searched in a memory
	// map of it rather than read (SearchMapped; 0: never). Which bytes the
	// search sees, and the binary rules (Slice), do not change.
	MapAbove int64
	// NoLineNumbers: the output shows no line numbers and needs none (no
	// context, no JSON): lines are not counted between matches, and
	// Line.Number is not the line's number.
	NoLineNumbers bool
	// Spans: which match spans of a matching line the output uses (the
	// zero value: all). With fewer than all, the regexp runs less or not
	// at all, and Matches counts what Subs holds, not the matches.
	Spans regex.SpanNeed
	// Format: the matching lines are printed as they are found, into
	// FileResult.Out (stream.go), where the search keeps them in Lines
	// only for the printer to format them (nil: in Lines). Only the common
	// search (no context, no -v, no -U) before any binary data prints so.
	Format Sink
	// lineBase, offBase: the lines and bytes of the file before the
	// searched buffer (a piece of it: chunked.go), for Format's numbers.
	lineBase int
	offBase  int64
	// piece: the buffer is a piece of the file, its end not the file's
	piece bool
	// nl: the newlines of the file before the buffer's lines, counted as
	// it was read (chunked.go; nil: counted here)
	nl *lineIndex
	// refsOut: the lines with context go here, not into the result
	// (chunked.go prints them once complete)
	refsOut *ctxOut
	// lineNUL: a NUL byte in a matching line is binary data (rg's rule
	// for a memory map past its first 64 KiB), elsewhere it is not: the
	// search stops at such a line with FileResult.nulLine, so the caller
	// needs no pass of its own over the buffer for NULs
	lineNUL bool
}

// SearchDecoded searches one whole file's contents as rg reads them: a
// UTF-8 BOM dropped, UTF-16 with a BOM transcoded (encoding.go).
func SearchDecoded(m *regex.Matcher, path string, buf []byte, o SearchOptions) FileResult {
	return SearchBuffer(m, path, DecodeBOM(buf), o)
}

// SearchBuffer searches one file's contents.
func SearchBuffer(m *regex.Matcher, path string, buf []byte, o SearchOptions) FileResult {
	if m.Bytes != nil {
		return searchLatin1(m, path, buf, o) // (?-u): bytes (latin1.go)
	}
	if o.Slice && !o.Text && lateNUL(buf) {
		return searchLateBinary(m, path, buf, o) // binary_slice.go
	}
	r := FileResult{Path: path, BytesSearched: int64(len(buf)), BinaryOffset: -1}
	if buf = binaryPrepare(buf, o, &r); r.Skipped {
		return r
	}
	if o.lineNUL && !visitsMatches(m, o) {
		o.lineNUL = false // (the lines are not visited one by one: a pass for NULs)
		if bytes.IndexByte(buf, 0) >= 0 {
			r.nulLine = true
			return r
		}
	}
	// (the searches that visit the matching lines only look at each line's
	// letters: lineSearch)
	lines := !o.Invert && !m.Multiline && (o.Before == 0 && o.After == 0 || !o.Passthru && !o.CountOnly)
	if m.Uni != nil && (!m.UniLines || !lines) && regex.HasNonASCII(buf) {
		m = m.Uni // Unicode \w \d \s, the whole buffer (unicode.go)
	}
	if m.Multiline {
		return searchMultiline(m, buf, o, r)
	}
	if len(buf) == 0 {
		return r
	}
	if b, ok := m.OneByte(); ok && o.CountOnly && o.LinesOnly && !o.FirstOnly && o.MaxCount == 0 && o.Before == 0 && o.After == 0 {
		// -c, -v -c of one byte: the lines counted in one pass
		lines, total := byteLines(buf, b, false)
		if o.Invert {
			lines = total - lines
		}
		r.MatchedLines, r.Matches = lines, lines
		return r
	}
	if m.AnyChar && hasAVX2 && o.CountOnly && o.LinesOnly && !o.FirstOnly && o.MaxCount == 0 && o.Before == 0 && o.After == 0 {
		// -c ., -v -c .: the lines holding a character, in one pass
		lines, total := dotLines(buf)
		if o.Invert {
			lines = total - lines
		}
		r.MatchedLines, r.Matches = lines, lines
		return r
	}
	if !o.Invert && o.Before == 0 && o.After == 0 && !m.Multiline {
		return searchMatches(m, buf, o, r)
	}
	if o.Invert && o.CountOnly && o.LinesOnly && o.MaxCount == 0 && o.Before == 0 && o.After == 0 {
		// -v -c/-l/-q: the lines less the matching ones
		o.Invert = false
		matching := searchMatches(m, buf, o, r).MatchedLines
		total := bytes.Count(buf, []byte{'\n'})
		if buf[len(buf)-1] != '\n' {
			total++
		}
		r.MatchedLines = total - matching
		r.Matches = r.MatchedLines
		return r
	}
	if lines {
		return searchContextLines(m, buf, o, r) // context.go
	}
	if !o.Invert && !o.Passthru && !m.HasMatch(buf) {
		return r
	}
	return searchContext(m, buf, o, r) // context.go
}

// visitsMatches reports whether SearchBuffer searches with o through
// searchMatches, which visits each matching line (m, or its Unicode form).
func visitsMatches(m *regex.Matcher, o SearchOptions) bool {
	if m.Bytes != nil || m.Multiline || o.Invert || o.Before > 0 || o.After > 0 {
		return false
	}
	if !o.CountOnly || !o.LinesOnly {
		return true
	}
	for _, m := range []*regex.Matcher{m, m.Uni} {
		if m == nil {
			continue
		}
		if _, one := m.OneByte(); one || m.AnyChar {
			return false // (counted in one pass: byteLines, dotLines)
		}
	}
	return true
}

// searchMatches is the common case (no context, no -v, no -U): it visits
// only the lines that match, counting the newlines before each to number
// it, and never looks at the rest of the file line by line. The matching
// lines are gathered in scratch space first, so that the result's lines
// and spans are each one allocation of the exact size.
func searchMatches(m *regex.Matcher, buf []byte, o SearchOptions, r FileResult) FileResult {
	var ls regex.LineSearch
	ls.Reset(m)
	defer ls.Release()
	ls.Exist = o.CountOnly && o.LinesOnly
	ls.Count = o.CountOnly && !o.LinesOnly
	ls.Need = o.Spans
	sc := scratchPool.Get().(*matchScratch)
	defer scratchPool.Put(sc)
	sc.lines, sc.spans = sc.lines[:0], sc.spans[:0]
	lineNo, counted := 1, 0
	var subs []regex.Span
	for off := 0; off < len(buf); {
		start, end, got := ls.Next(buf, off, subs[:0])
		if start < 0 {
			break
		}
		subs = got
		if o.lineNUL && bytes.IndexByte(buf[start:end], 0) >= 0 {
			return FileResult{Path: r.Path, BinaryOffset: -1, nulLine: true}
		}
		r.MatchedLines++
		switch o.Spans {
		case regex.SpansFirst:
			got = got[:1]
		case regex.SpansNone:
			got = nil
		}
		if o.Spans == regex.SpansAll || o.CountOnly {
			r.Matches += len(subs)
		} else {
			r.Matches += len(got)
		}
		if o.FirstOnly {
			break
		}
		if !o.CountOnly {
			if !o.NoLineNumbers {
				if o.nl != nil {
					// from the checkpoint (nlscan.go) past the last line numbered, if any
					if cp, nls, ok := o.nl.at(o.offBase+int64(start), o.offBase+int64(counted)); ok {
						lineNo, counted = nls-o.lineBase+1, int(cp-o.offBase)
					}
				}
				lineNo += bytes.Count(buf[counted:start], []byte{'\n'})
				counted = start
			}
			sc.spans = append(sc.spans, got...)
			sc.lines = append(sc.lines, LineRef{Num: lineNo, Start: start, End: end, Spans: len(sc.spans)})
		}
		if o.MaxCount > 0 && r.MatchedLines >= o.MaxCount {
			r.BytesSearched = maxCountBytes(buf, o, start, end, nil) // rg's count where -m stopped it (binary.go)
			break
		}
		off = end
	}
	if o.Format != nil && r.BinaryFrom < 0 { // (past binary data the printer stops with a note: Lines)
		r.Out = o.Format.Lines(r.Path, buf, sc.lines, sc.spans, o.lineBase, o.offBase)
		r.lastNum, r.lastStart = lineNo, counted
	} else if len(sc.lines) > 0 {
		spans := slices.Clone(sc.spans)
		r.Lines = make([]Line, len(sc.lines))
		from := 0
		for k, l := range sc.lines {
			r.Lines[k] = Line{Number: l.Num, Offset: int64(l.Start), Text: buf[l.Start:l.End], Match: true}
			if l.Spans > from {
				r.Lines[k].Subs = spans[from:l.Spans:l.Spans]
			}
			from = l.Spans
		}
	}
	if cap(sc.lines) > maxScratch || cap(sc.spans) > maxScratch {
		sc.lines, sc.spans = nil, nil // a huge file's: not kept for the next
	}
	return r
}

// matchScratch is searchMatches' storage, reused from file to file.
type matchScratch struct {
	lines []LineRef
	spans []regex.Span
}

// lineRef is a matching line: its number, its bytes, and the end of its
// spans in matchScratch.spans.
type LineRef struct{ Num, Start, End, Spans int }

// maxScratch bounds the scratch space kept for reuse (entries).
const maxScratch = 1 << 16

var scratchPool = sync.Pool{New: func() any { return new(matchScratch) }}
