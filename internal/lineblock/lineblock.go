// Package lineblock holds the lines a streaming stage reads (agent-chat,
// agent-compact reading a session stream), copied into blocks of 1 MiB or
// more: one allocation per block rather than per line, and blocks that
// only lines let go of are in are filled again, so a long stream neither
// churns the garbage collector nor faults in fresh pages for every line.
// A stage lets go of lines in the order it read them (a window over the
// stream); what it keeps longer it copies.
package lineblock

import (
	"bufio"
	"bytes"
	"io"
	"unsafe"
)

const size = 1 << 20

// Blocks is the lines read so far. The zero value is empty.
type Blocks struct {
	cur  []byte
	full [][]byte // filled before cur, in order
	free [][]byte
}

// Copy is line copied into the blocks. It stays unchanged until Release
// is told of a line read after it.
func (b *Blocks) Copy(line []byte) []byte {
	if cap(b.cur)-len(b.cur) < len(line) {
		if cap(b.cur) > 0 {
			b.full = append(b.full, b.cur)
		}
		b.cur = nil
		if n := len(b.free); n > 0 && cap(b.free[n-1]) >= len(line) {
			b.cur, b.free = b.free[n-1][:0], b.free[:n-1]
		} else {
			b.cur = make([]byte, 0, max(size, len(line)))
		}
	}
	b.cur = append(b.cur, line...)
	return b.cur[len(b.cur)-len(line) : len(b.cur) : len(b.cur)]
}

// Release lets go of the lines read before first (a line Copy returned,
// the oldest still held): the blocks holding only such lines are filled
// again.
func (b *Blocks) Release(first []byte) {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(first)))
	k := len(b.full) // first in cur: every full block is free
	for i, blk := range b.full {
		if start := uintptr(unsafe.Pointer(unsafe.SliceData(blk))); p >= start && p < start+uintptr(cap(blk)) {
			k = i
			break
		}
	}
	b.free = append(b.free, b.full[:k]...)
	b.full = append(b.full[:0], b.full[k:]...)
}

// Next is the next line of br with its "\n" (none at the end of the
// input), of any length: a slice of br's buffer, or of *long for a line
// longer than the buffer, valid until the next call. The error is br's
// (io.EOF with or without a last line). A long line is gathered in
// pieces and joined into *long once it ends, so one that fails (a reader
// that bounds lines) holds no more than was read, not the garbage of a
// buffer grown by copying.
func Next(br *bufio.Reader, long *[]byte) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	pieces := [][]byte{bytes.Clone(line)}
	n := len(line)
	for err == bufio.ErrBufferFull {
		if line, err = br.ReadSlice('\n'); err == bufio.ErrBufferFull {
			pieces = append(pieces, bytes.Clone(line))
			n += len(line)
		}
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if cap(*long) < n+len(line) {
		*long = nil // the old buffer is garbage before the new one is made
		*long = make([]byte, 0, n+len(line))
	}
	*long = (*long)[:0]
	for _, p := range pieces {
		*long = append(*long, p...)
	}
	*long = append(*long, line...)
	return *long, err
}
