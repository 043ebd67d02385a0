package search

import (
	"bytes"
	"github.com/agentutils/agentutils/lib/grep/regex"
	"unicode/utf8"
)

// A large file's bytes are looked at once as they are read, while they
// are still in the processor's cache: its newlines are counted (for the
// line numbers: lineIndex) and its NUL bytes found (the binary rules) in
// one pass (nlScan), where they were two passes, the count a third over
// the whole file after the search.

// lineStep is the distance between two checkpoints of a lineIndex.
const lineStep = 4 << 10

// nlScan is the number of newlines in p, and whether p holds a NUL.
func nlScan(p []byte) (n int, nul bool) {
	done := 0
	if hasAVX2 {
		for ; len(p)-done >= 64; done += min(len(p)-done, 255*64) &^ 63 {
			k, z := nlScanBlocks(p[done : done+min(len(p)-done, 255*64)&^63])
			n, nul = n+k, nul || z
		}
	}
	if rest := p[done:]; len(rest) > 0 {
		n += bytes.Count(rest, []byte{'\n'})
		nul = nul || bytes.IndexByte(rest, 0) >= 0
	}
	return n, nul
}

// lineIndex numbers the lines of a file read in pieces without counting
// its newlines again: checkpoints, every lineStep bytes of what was read,
// of the newlines before them.
type lineIndex struct {
	offs []int64 // the checkpoints' file offsets, increasing
	nls  []int   // the newlines of the file before each
	cur  int     // the checkpoint the last look-up found
	read int     // newlines in the bytes read so far
	// nulFrom: the offset of the first stretch added holding a NUL
	// (valid with sawNUL): pieces before it hold none (pieceNUL)
	nulFrom int64
	sawNUL  bool
}

// add counts the newlines of p, read at file offset off (right after the
// bytes added before it), with a checkpoint every lineStep bytes. With
// nulStop, it stops at the first stretch holding a NUL and reports it,
// having added nothing of p.
func (x *lineIndex) add(p []byte, off int64, nulStop bool) (nul bool) {
	k, read := len(x.offs), x.read
	for i := 0; i < len(p); i += lineStep {
		n, z := nlScan(p[i:min(len(p), i+lineStep)])
		if z && nulStop {
			x.offs, x.nls, x.read = x.offs[:k], x.nls[:k], read
			return true
		}
		if z && !x.sawNUL {
			x.nulFrom, x.sawNUL = off+int64(i), true
		}
		x.offs = append(x.offs, off+int64(i))
		x.nls = append(x.nls, x.read)
		x.read += n
	}
	return false
}

// at is the last checkpoint at or before pos and after from (file
// offsets, from <= pos), with the newlines before it; ok false when
// there is none (counting from from is then no longer). Look-ups go
// forward: pos does not decrease from one to the next until cut.
func (x *lineIndex) at(pos, from int64) (cp int64, nls int, ok bool) {
	for x.cur+1 < len(x.offs) && x.offs[x.cur+1] <= pos {
		x.cur++
	}
	if x.cur >= len(x.offs) || x.offs[x.cur] > pos || x.offs[x.cur] <= from {
		return 0, 0, false
	}
	return x.offs[x.cur], x.nls[x.cur], true
}

// lines is the number of newlines before pos, with buf the file's bytes
// from base on (base <= pos; the checkpoints from base on are kept).
func (x *lineIndex) lines(buf []byte, base, pos int64) int {
	x.cur = 0
	cp, n, ok := x.at(pos, -1)
	if !ok || cp < base {
		panic("grep: lineIndex: no checkpoint before the position")
	}
	return n + bytes.Count(buf[cp-base:pos-base], []byte{'\n'})
}

// cut drops the checkpoints before pos, the file's bytes before it no
// longer held, with one at pos (nls newlines before it) in their place.
func (x *lineIndex) cut(pos int64, nls int) {
	k := 0
	for k < len(x.offs) && x.offs[k] <= pos {
		k++
	}
	if k == 0 {
		x.offs = append([]int64{pos}, x.offs...)
		x.nls = append([]int{nls}, x.nls...)
	} else {
		x.offs[k-1], x.nls[k-1] = pos, nls
		x.offs = x.offs[:copy(x.offs, x.offs[k-1:])]
		x.nls = x.nls[:copy(x.nls, x.nls[k-1:])]
	}
	x.cur = 0
}

// indexNUL is bytes.IndexByte(p, 0), twice as fast where there is none
// (the usual case: text) with AVX2.
func indexNUL(p []byte) int {
	if hasAVX2 && len(p) >= 128 && !nulBlocks(p[:len(p)&^127]) {
		if i := bytes.IndexByte(p[len(p)&^127:], 0); i >= 0 {
			return len(p)&^127 + i
		}
		return -1
	}
	return bytes.IndexByte(p, 0)
}

// byteLines is the number of lines of p that hold the byte b (not: a
// byte other than b; a newline is neither), and the number of its lines (a last one without its
// newline included): -c and -v -c of a one-byte pattern, and the
// non-empty lines of -c ., in one pass (byteLinesBlocks) rather than a
// look-up of the byte and one of its line's end per line.
func byteLines(p []byte, b byte, not bool) (lines, total int) {
	var carry uint64 // such a byte in the line open
	done := 0
	if hasAVX2 {
		done = len(p) &^ 63
		lines, total, carry = byteLinesBlocks(p[:done], b, not, 0)
	}
	for _, c := range p[done:] {
		if c != '\n' && (c == b) != not {
			carry = 1
		}
		if c == '\n' {
			lines += int(carry)
			total++
			carry = 0
		}
	}
	if len(p) > 0 && p[len(p)-1] != '\n' {
		lines += int(carry)
		total++
	}
	return lines, total
}

// dotLines is the number of lines of p that `.` matches, and of all its
// lines: the lines holding a byte other than '\n', less those made of
// invalid UTF-8 alone (a `.` is a character, as rg's).
func dotLines(p []byte) (lines, total int) {
	lines, total = byteLines(p, '\n', true)
	for off := 0; off < len(p); {
		i := regex.IndexNonASCII(p[off:])
		if i < 0 {
			break
		}
		i += off
		start := off + bytes.LastIndexByte(p[off:i], '\n') + 1
		end := len(p)
		if j := bytes.IndexByte(p[i:], '\n'); j >= 0 {
			end = i + j
		}
		if !holdsChar(p[start:end]) {
			lines--
		}
		off = end + 1
	}
	return lines, total
}

// holdsChar reports whether line (no newline in it) holds a character:
// an ASCII byte, or valid UTF-8.
func holdsChar(line []byte) bool {
	for len(line) > 0 {
		r, n := utf8.DecodeRune(line)
		if r != utf8.RuneError || n > 1 {
			return true
		}
		line = line[1:]
	}
	return false
}

// lastNewline is bytes.LastIndexByte(b, '\n') at about the speed of
// bytes.IndexByte on a long line, which the former reads a byte at a time
// (a 10 MB line's fills scanned it back to its start): blocks from the end,
// each looked at by IndexByte first, growing to 64 KiB.
func lastNewline(b []byte) int {
	block := 256
	for end := len(b); end > 0; block = min(2*block, 64<<10) {
		start := max(0, end-block)
		if bytes.IndexByte(b[start:end], '\n') >= 0 {
			return start + bytes.LastIndexByte(b[start:end], '\n')
		}
		end = start
	}
	return -1
}
