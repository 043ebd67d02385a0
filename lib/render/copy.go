package render

import (
	"bufio"
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
		line, err := br.ReadBytes('\n')
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
