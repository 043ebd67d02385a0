package llm

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// SSE is one server-sent event: the event name (empty when the stream has
// no "event:" lines, as Chat Completions) and the data lines joined by \n.
type SSE struct {
	Event string
	Data  []byte
}

// ErrUnexpectedEOF is the error of a stream that ends without its terminal
// event; the retry classifier treats it as retryable.
var ErrUnexpectedEOF = errors.New("stream ended unexpectedly")

// SSEReader splits a byte stream into events. Lines may be of any length
// (encrypted reasoning items pass 1 MB), end in \n, \r\n or \r, and comment
// lines (": keep-alive") are skipped.
type SSEReader struct {
	r     *bufio.Reader
	event []byte
	data  []byte
	has   bool
}

// NewSSEReader reads events from r.
func NewSSEReader(r io.Reader) *SSEReader {
	return &SSEReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next event, or io.EOF after the last complete one. As
// the SSE spec says, an event is complete at its blank line: an event the
// stream cut before that is dropped, so a cut stream shows as one that
// ended without its terminal event.
func (s *SSEReader) Next() (SSE, error) {
	for {
		line, err := s.readLine()
		if err == io.EOF {
			// A line without its terminator, or an event without its
			// blank line: incomplete, dropped.
			s.event, s.data, s.has = s.event[:0], nil, false
			return SSE{}, io.EOF
		}
		if err != nil {
			return SSE{}, err
		}
		if len(line) == 0 {
			if s.has {
				return s.flush(), nil
			}
			continue
		}
		s.field(line)
	}
}

func (s *SSEReader) field(line []byte) {
	if line[0] == ':' {
		return
	}
	name, value, found := bytes.Cut(line, []byte(":"))
	if found && len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	switch string(name) {
	case "event":
		s.event = append(s.event[:0], value...)
		s.has = true
	case "data":
		if s.has && s.data != nil {
			s.data = append(s.data, '\n')
		}
		if s.data == nil {
			s.data = []byte{}
		}
		s.data = append(s.data, value...)
		s.has = true
	}
}

func (s *SSEReader) flush() SSE {
	ev := SSE{Event: string(s.event), Data: s.data}
	s.event, s.data, s.has = s.event[:0], nil, false
	if ev.Data == nil {
		ev.Data = []byte{}
	}
	return ev
}

// readLine reads one line without its terminator, of any length.
func (s *SSEReader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if i := bytes.IndexByte(line, '\r'); i >= 0 && i < len(line)-1 && line[i+1] != '\n' {
			// A lone \r ends a line: keep the rest for the next call.
			rest := append([]byte(nil), line[i+1:]...)
			s.r = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(rest), s.r), 64<<10)
			return line[:i], nil
		}
		crEnd := len(line) > 0 && line[len(line)-1] == '\r'
		line = bytes.TrimRight(line, "\r\n")
		if err == io.EOF && crEnd {
			return line, nil // a line ended by a lone \r at the end of the stream
		}
		return line, err
	}
}
