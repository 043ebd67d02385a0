package printer

import (
	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
	"math/bits"
	"slices"
	"strconv"
	"sync"
)

// A search prints its matching lines itself as it finds them, as rg's
// searcher writes into its printer's sink: each line with its number
// straight into one buffer (FileResult.Out), with no Line kept per line
// and no copy of its text to hand over. The printer then writes the
// buffer as it is, in the files' order. The format is the printer's
// (format, print.go), shared read-only by the searches on every
// goroutine; the printer keeps what depends on the files before (the
// heading, rg's binary-data notes) and writes it around the buffer.

// LineFormat is how a search prints its matching lines
// (SearchOptions.Format): the printer's Sink.
type LineFormat struct {
	f *format
	// plain: a line prints as its path, its number and its text, nothing
	// else (lines prints it without the printer's per-line steps)
	plain bool
	bufs  *outBufs // the printer's (Printer.outBufs)
	// sep: the line printed between groups of context lines within a
	// file (nil: none); the printer prints the one before a file's first
	sep []byte
}

// LineFormat is the format for SearchOptions.Format when the search can
// print the matching lines itself: the standard and --vimgrep formats
// without what looks at the lines of a file together (--passthru, -m,
// the agent budgets, --crlf's spans); nil otherwise. Call it after
// SetSearch.
func (p *Printer) LineFormat() search.Sink {
	if (p.mode != "standard" && p.mode != "vimgrep") || p.passthru || p.maxCount > 0 ||
		p.maxTotal > 0 || p.maxBytes > 0 || p.agent != nil || p.crlf {
		return nil
	}
	f := p.format
	plain := f.mode == "standard" && !f.color && f.replace == nil && !f.only && !f.trim && f.maxCols <= 0 && !f.column && !f.byteOffset
	if p.outBufs == nil {
		p.outBufs = new(outBufs)
	}
	lf := &LineFormat{f: f, plain: plain, bufs: p.outBufs}
	if p.ctxBreaks() {
		lf.sep = p.ctxSep
	}
	return lf
}

// Context prints the lines a search with context or -v prints (refs:
// context.go) as the printer would (Printer.lines), numbered after
// lineBase lines and offBase bytes before buf.
func (lf *LineFormat) Context(path string, buf []byte, refs []search.CtxRef, subs []regex.Span, invert bool, lineBase int, offBase int64) []byte {
	f := lf.f
	pre := f.linePath(path)
	// room for the lines and their prefixes (numbers of up to 8 digits),
	// a separator before each group, colour's escapes around each match
	size := 0
	for _, ref := range refs {
		size += ref.End - ref.Start + len(pre) + len(f.matchSep) + 8 + (ref.To-ref.From)*24
		if ref.Gap {
			size += len(lf.sep) + 1
		}
	}
	if f.color {
		size += len(refs) * 16
	}
	out := lf.bufs.get(size)
	if lf.plain && !f.null {
		return lf.plainContext(out, pre, buf, refs, lineBase)
	}
	for _, ref := range refs {
		if ref.Gap && lf.sep != nil {
			out = append(append(out, lf.sep...), '\n')
		}
		l := ref.Line(buf, subs, invert)
		l.Number += lineBase
		l.Offset += offBase
		out = f.line(out, pre, l)
	}
	return out
}

// LineList prints lines (a piece's with their context: chunked.go) as
// the printer would, the "--" of their gaps included.
func (lf *LineFormat) LineList(path string, lines []search.Line) []byte {
	f := lf.f
	pre := f.linePath(path)
	size := 0
	for _, l := range lines {
		size += len(l.Text) + len(pre) + len(f.matchSep) + 12 + len(l.Subs)*24 + len(lf.sep)
	}
	out := lf.bufs.get(size)
	plain := lf.plain && !f.null
	pm, pc := lf.plainPrefixes(pre)
	for _, l := range lines {
		if l.Gap && lf.sep != nil {
			out = append(append(out, lf.sep...), '\n')
		}
		if plain {
			out = lf.plainLine(out, pm, pc, l.Match, l.Number, l.Text)
		} else {
			out = f.line(out, pre, l)
		}
	}
	return out
}

// plainContext is context's loop for plain lines (LineFormat.plain):
// the path, the number and the line as they are, as lines does.
func (lf *LineFormat) plainContext(out, path, buf []byte, refs []search.CtxRef, lineBase int) []byte {
	pm, pc := lf.plainPrefixes(path)
	for _, ref := range refs {
		if ref.Gap && lf.sep != nil {
			out = append(append(out, lf.sep...), '\n')
		}
		out = lf.plainLine(out, pm, pc, ref.Match, lineBase+ref.Num, buf[ref.Start:ref.End])
	}
	return out
}

// plainPrefixes are a plain matching line's and a context line's
// prefixes: the path and its separator (none without a path).
func (lf *LineFormat) plainPrefixes(path []byte) (match, ctx []byte) {
	if path == nil {
		return nil, nil
	}
	match = append(path[:len(path):len(path)], lf.f.matchSep...)
	ctx = append(path[:len(path):len(path)], lf.f.ctxField...)
	return match, ctx
}

// plainLine appends a plain line (a match or a context line): its prefix
// (plainPrefixes), its number and its text as they are.
func (lf *LineFormat) plainLine(out, pm, pc []byte, match bool, num int, text []byte) []byte {
	f := lf.f
	pre, sep := pm, f.matchSep
	if !match {
		pre, sep = pc, f.ctxField
	}
	out = append(out, pre...)
	if f.lineNums {
		out = appendDecimal(out, num)
		if len(sep) == 1 {
			out = append(out, sep[0])
		} else {
			out = append(out, sep...)
		}
	}
	out = append(out, text...)
	if len(text) == 0 || text[len(text)-1] != '\n' {
		out = append(out, '\n')
	}
	return out
}

// Lines prints the matching lines of buf (refs, their spans in spans) as
// the printer would, numbered after lineBase lines and offBase bytes
// before buf; nil when there are none.
func (lf *LineFormat) Lines(path string, buf []byte, refs []search.LineRef, spans []regex.Span, lineBase int, offBase int64) []byte {
	if len(refs) == 0 {
		return nil
	}
	f := lf.f
	pre := f.linePath(path) // and its separator when plain
	if f.withPath && !f.heading {
		if lf.plain { // (format.prefix's)
			sep := f.matchSep
			if f.null {
				sep = "\x00"
			}
			pre = append(pre[:len(pre):len(pre)], sep...)
		}
	}
	// what the lines take, their numbers as long as the last's: one
	// buffer of that size, filled without growing (plain lines take no
	// more; other formats, about as much)
	size := 0
	for _, r := range refs {
		size += r.End - r.Start
	}
	digits := len(strconv.Itoa(lineBase + refs[len(refs)-1].Num))
	size += len(refs) * (len(pre) + len(f.matchSep) + 2 + digits)
	if !lf.plain {
		// -o prints a line for each match, colour wraps each in its
		// escapes: room for that too (the buffer grown is garbage)
		size += len(spans) * (len(pre) + 2*len(f.matchSep) + digits + 24)
	}
	out := lf.bufs.get(size)
	if lf.plain {
		for _, r := range refs {
			out = append(out, pre...)
			if f.lineNums {
				out = appendDecimal(out, lineBase+r.Num)
				if len(f.matchSep) == 1 {
					out = append(out, f.matchSep[0])
				} else {
					out = append(out, f.matchSep...)
				}
			}
			out = append(out, buf[r.Start:r.End]...)
			if r.End == r.Start || buf[r.End-1] != '\n' {
				out = append(out, '\n')
			}
		}
		return out
	}
	from := 0
	for _, r := range refs {
		l := search.Line{Number: lineBase + r.Num, Offset: offBase + int64(r.Start), Text: buf[r.Start:r.End], Match: true}
		if r.Spans > from {
			l.Subs = spans[from:r.Spans:r.Spans]
		}
		from = r.Spans
		out = f.line(out, pre, l)
	}
	return out
}

// Get is an empty buffer of at least size bytes from the printer's free
// list.
func (lf *LineFormat) Get(size int) []byte { return lf.bufs.get(size) }

// Put gives b back to the printer's free list.
func (lf *LineFormat) Put(b []byte) { lf.bufs.put(b) }

// appendDecimal appends n (>= 0) in decimal, two digits at a time, in
// place: strconv.AppendInt formats into a buffer of its own and copies
// it over, a tenth of the time of -n with many matching lines.
func appendDecimal(b []byte, n int) []byte {
	d := 1
	for x := n; x >= 10; x /= 10 {
		d++
	}
	l := len(b)
	b = slices.Grow(b, d)[:l+d]
	i := l + d
	for n >= 100 {
		q := n / 100
		k := (n - q*100) * 2
		i -= 2
		b[i], b[i+1] = digitPairs[k], digitPairs[k+1]
		n = q
	}
	if n >= 10 {
		b[i-2], b[i-1] = digitPairs[2*n], digitPairs[2*n+1]
	} else {
		b[i-1] = byte('0' + n)
	}
	return b
}

const digitPairs = "00010203040506070809" + "10111213141516171819" + "20212223242526272829" + "30313233343536373839" +
	"40414243444546474849" + "50515253545556575859" + "60616263646566676869" + "70717273747576777879" +
	"80818283848586878889" + "90919293949596979899"

// outBufs is a free list of the buffers of FileResult.Out, one list per
// size class (powers of two): the printer gives a buffer back when it has
// written it, and the next search that prints as much takes it. A search
// printing many lines (-n e on a tree: as many bytes of output as of
// input) then allocates its output buffers once, not once per file; and
// since a result waits only behind the few files before it, the buffers
// in use at a time, and so the memory, are those of the output in flight.
type outBufs struct {
	mu   sync.Mutex
	free [outClasses][][]byte
	kept int // bytes on the lists
}

const (
	minOutClass = 10 // 1 KiB: the smallest buffer made
	outClasses  = 24 // up to 8 MiB (maxOut) kept
	// maxOut bounds a buffer kept for reuse (bytes); larger ones (a file
	// whose output is larger) are made for it alone.
	maxOut = 1 << (outClasses - 1)
	// maxKept bounds the bytes the lists hold.
	maxKept = 32 << 20
)

// get is an empty buffer of at least size bytes: a reused one when one
// of the size class of size, or of one of the next two, is free.
func (ob *outBufs) get(size int) []byte {
	c := max(bits.Len(uint(size-1)), minOutClass) // 1<<c >= size
	if ob == nil || c >= outClasses {
		return make([]byte, 0, max(size, 1<<minOutClass))
	}
	ob.mu.Lock()
	for k := c; k < min(c+3, outClasses); k++ {
		if l := ob.free[k]; len(l) > 0 {
			b := l[len(l)-1]
			l[len(l)-1] = nil
			ob.free[k] = l[:len(l)-1]
			ob.kept -= cap(b)
			ob.mu.Unlock()
			return b[:0]
		}
	}
	ob.mu.Unlock()
	return make([]byte, 0, 1<<c)
}

// put gives b back for reuse, on the list of the class its capacity
// fills (a buffer a format grew past its class goes on a lower list).
func (ob *outBufs) put(b []byte) {
	c := bits.Len(uint(cap(b))) - 1 // 1<<c <= cap(b)
	if ob == nil || c < minOutClass || c >= outClasses {
		return
	}
	ob.mu.Lock()
	if ob.kept+cap(b) <= maxKept {
		ob.free[c] = append(ob.free[c], b)
		ob.kept += cap(b)
	}
	ob.mu.Unlock()
}

// printOut writes the lines a search printed (FileResult.Out) after what
// the printer has made for them so far (out), and takes the buffer back
// for reuse.
func (p *Printer) printOut(out, b []byte) bool {
	if len(out) > 0 && !p.emit(out) {
		return false
	}
	ok := p.emit(b)
	p.outBufs.put(b)
	return ok
}
