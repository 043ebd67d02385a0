package session

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// Reader reads a session file's records leniently, as the reference does,
// by the rules of Lines: a line that is not a record is skipped and
// reported (Problems); blank lines are fine; lines may be of any length.
// Non-UTF-8 bytes are reported, and the record kept with them replaced, so
// nothing readable is lost.
type Reader struct {
	r     *bufio.Reader
	line  int
	lines Lines
}

// NewReader reads records from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 256<<10)} }

// Line is the line number of the record Next returned last.
func (r *Reader) Line() int { return r.line }

// Problems are the lines skipped or repaired so far.
func (r *Reader) Problems() []Problem { return r.lines.Problems }

// Next returns the next record (the header first, then the entries), or
// io.EOF. Bad lines become Problems; the errors are I/O errors and a first
// record that is not a session header.
func (r *Reader) Next() (Record, error) {
	for {
		line, err := readLine(r.r)
		if len(line) == 0 && err != nil {
			if err == io.EOF {
				return Record{}, io.EOF
			}
			return Record{}, err
		}
		r.line++
		torn := err == io.EOF // no newline after the last line
		if err != nil && err != io.EOF {
			return Record{}, err
		}
		l, err := r.lines.Read(bytes.TrimRight(line, "\r"), r.line, torn)
		if err != nil {
			return Record{}, fmt.Errorf("not a session file: %w", err)
		}
		if l.Kind != Skipped { // Raw is line, a slice of its own (readLine)
			return l.Record, nil
		}
	}
}

// readLine reads one \n-terminated line of any length (without the \n).
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return line, err
		}
		return line[:len(line)-1], nil
	}
}
