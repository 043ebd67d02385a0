package grep

import (
	"bytes"
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
// (SearchOptions.Format).
type LineFormat struct {
	f *format
	// plain: a line prints as its path, its number and its text, nothing
	// else (lines prints it without the printer's per-line steps)
	plain bool
}

// LineFormat is the format for SearchOptions.Format when the search can
// print the matching lines itself: the standard and --vimgrep formats
// without what looks at the lines of a file together (context lines,
// --passthru, -m, the agent budgets, --crlf's spans); nil otherwise.
// Call it after SetSearch.
func (p *Printer) LineFormat() *LineFormat {
	if (p.mode != "standard" && p.mode != "vimgrep") || p.context || p.passthru || p.maxCount > 0 ||
		p.maxTotal > 0 || p.maxBytes > 0 || p.agent != nil || p.crlf {
		return nil
	}
	f := p.format
	plain := f.mode == "standard" && !f.color && f.replace == nil && !f.only && !f.trim && f.maxCols <= 0 && !f.column && !f.byteOffset
	return &LineFormat{f: f, plain: plain}
}

// lines prints the matching lines of buf (refs, their spans in spans) as
// the printer would, numbered after lineBase lines and offBase bytes
// before buf; nil when there are none.
func (lf *LineFormat) lines(path string, buf []byte, refs []lineRef, spans []Span, lineBase int, offBase int64) []byte {
	if len(refs) == 0 {
		return nil
	}
	f := lf.f
	var pre []byte // the path and its separator
	if f.withPath && !f.heading {
		pre = f.pathBytes(path)
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
		size += r.end - r.start
	}
	size += len(refs) * (len(pre) + len(f.matchSep) + 2 + len(strconv.Itoa(lineBase+refs[len(refs)-1].num)))
	out := getOut(size)
	if lf.plain {
		for _, r := range refs {
			out = append(out, pre...)
			if f.lineNums {
				out = strconv.AppendInt(out, int64(lineBase+r.num), 10)
				out = append(out, f.matchSep...)
			}
			out = append(out, buf[r.start:r.end]...)
			if r.end == r.start || buf[r.end-1] != '\n' {
				out = append(out, '\n')
			}
		}
		return out
	}
	b := bytes.NewBuffer(out)
	from := 0
	for _, r := range refs {
		l := Line{Number: lineBase + r.num, Offset: offBase + int64(r.start), Text: buf[r.start:r.end], Match: true}
		if r.spans > from {
			l.Subs = spans[from:r.spans:r.spans]
		}
		from = r.spans
		f.line(b, pre, l)
	}
	return b.Bytes()
}

// outPool holds the buffers of FileResult.Out for reuse: the printer
// puts one back when it has written it.
var outPool = sync.Pool{New: func() any { return new([]byte) }}

// maxOut bounds the buffers kept for reuse (bytes).
const maxOut = 8 << 20

// getOut is an empty buffer for about size bytes: a reused one when one
// fits, and not much larger (a result waits for the files before it to
// print, so the memory of the waiting results is that of their output).
func getOut(size int) []byte {
	bp := outPool.Get().(*[]byte)
	if b := *bp; cap(b) >= size && (cap(b) <= 4*size || cap(b) <= 64<<10) {
		return b[:0]
	}
	outPool.Put(bp)
	return make([]byte, 0, size)
}

func putOut(b []byte) {
	if cap(b) <= maxOut {
		outPool.Put(&b)
	}
}

// printOut writes the lines a search printed (FileResult.Out) after what
// the printer has made for them so far (p.out), and takes the buffer back
// for reuse.
func (p *Printer) printOut(b []byte) bool {
	if p.out.Len() > 0 && !p.emit(p.out.Bytes()) {
		return false
	}
	p.out.Reset()
	ok := p.emit(b)
	putOut(b)
	return ok
}
