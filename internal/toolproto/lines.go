package toolproto

import (
	"bufio"
	"bytes"
	"io"
)

// MaxLine is the longest protocol line a tool process reads; a longer one
// is skipped with a log record, as the protocol says of a line it cannot
// use, instead of ending the process.
const MaxLine = 64 << 20

// LineReader reads lines like bufio.Scanner with ScanLines, but skips a
// line longer than max (calling skip with its number and size) and goes on.
type LineReader struct {
	br   *bufio.Reader
	max  int
	skip func(lineNo, size int)
	n    int
	line []byte
	err  error
}

// NewLineReader reads r.
func NewLineReader(r io.Reader, max int, skip func(lineNo, size int)) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, 64<<10), max: max, skip: skip}
}

// Scan reads the next line; false at EOF or on a read error (Err).
func (l *LineReader) Scan() bool {
	for {
		l.line = l.line[:0]
		size, long := 0, false
		var err error
		for {
			var chunk []byte
			chunk, err = l.br.ReadSlice('\n')
			size += len(chunk)
			if !long {
				if size > l.max+1 { // +1: the newline does not count
					long, l.line = true, l.line[:0]
				} else {
					l.line = append(l.line, chunk...)
				}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			l.err = err
			return false
		}
		if size == 0 {
			return false // EOF
		}
		l.n++
		if long {
			l.skip(l.n, size)
			if err == io.EOF {
				return false
			}
			continue
		}
		l.line = bytes.TrimSuffix(l.line, []byte{'\n'})
		l.line = bytes.TrimSuffix(l.line, []byte{'\r'})
		return true
	}
}

// Bytes is the line read, without its newline; Line its number.
func (l *LineReader) Bytes() []byte { return l.line }
func (l *LineReader) Line() int     { return l.n }
func (l *LineReader) Err() error    { return l.err }
