package session

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"unicode/utf8"
)

// Reader reads session records leniently, as the reference does: a line
// that is not a record is skipped and reported (Problems); blank lines are
// fine; lines may be of any length. Non-UTF-8 bytes are reported, and the
// record kept with them replaced, so nothing readable is lost.
type Reader struct {
	r        *bufio.Reader
	line     int
	problems []Problem
}

// NewReader reads records from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 256<<10)} }

// Line is the line number of the record Next returned last.
func (r *Reader) Line() int { return r.line }

// Problems are the lines skipped or repaired so far.
func (r *Reader) Problems() []Problem { return r.problems }

// Next returns the next record, or io.EOF. Only I/O errors are returned as
// errors; bad lines become Problems.
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
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !utf8.Valid(line) {
			r.problems = append(r.problems, Problem{r.line, errors.New("invalid UTF-8 replaced with U+FFFD")})
			line = bytes.ToValidUTF8(line, []byte("\uFFFD"))
		}
		rec, perr := ParseRecord(line)
		if perr != nil {
			if torn {
				perr = errors.New("torn last line (no newline; an interrupted write?) skipped: " + perr.Error())
			}
			r.problems = append(r.problems, Problem{r.line, perr})
			continue
		}
		return rec, nil
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
