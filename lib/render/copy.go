package render

import (
	"bufio"
	"bytes"
	"io"

	"github.com/agentutils/agentutils/lib/exit"
)

// Copy renders the event stream read from in onto out, one Write per event
// that shows something (so an unbuffered out shows each event as it
// arrives), then the Finish text. A line that is not an event goes to
// skipped with its 1-based number and is left out. When the stream carried
// an error record, the error returned is a silent exit.Failure (the record
// is shown).
func (r *Renderer) Copy(out io.Writer, in io.Reader, skipped func(line int, err error)) error {
	br := bufio.NewReaderSize(in, 256<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if len(line) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return err
		}
		s, derr := r.Event(line)
		if derr != nil {
			if skipped != nil {
				skipped(n, derr)
			}
			continue
		}
		if s != "" {
			if _, err := io.WriteString(out, s); err != nil {
				return err
			}
		}
	}
	if _, err := io.WriteString(out, r.Finish()); err != nil {
		return err
	}
	if r.Failed != 0 {
		return exit.Silent(exit.Failure)
	}
	return nil
}

// readLine reads one line with its newline, as ReadBytes does, but joins
// the pieces of a long line only once it ends: a read error (a line over
// the reader's limit) returns holding no more than was read.
func readLine(br *bufio.Reader) ([]byte, error) {
	var pieces [][]byte
	n := 0
	for {
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			pieces = append(pieces, bytes.Clone(b))
			n += len(b)
			continue
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		out := make([]byte, 0, n+len(b))
		for _, p := range pieces {
			out = append(out, p...)
		}
		return append(out, b...), err
	}
}
