package main

import (
	"bytes"
	"io"
	"net"
	"os"

	"github.com/agentutils/agentutils/internal/offheap"
	"github.com/agentutils/agentutils/lib/compact"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
)

// stream is the session stream on stdin, read once: the entries point into
// the input's bytes (nothing is copied or decoded twice) and spans says
// where each entry's line is, for writing the stream back.
type stream struct {
	header    *session.Header
	entries   []compact.Entry
	spans     [][2]int // the entry's line in the input, without its newline
	errorLine []byte   // an upstream {"type":"error"} record
}

// readAll reads stdin whole, outside the Go heap (internal/offheap), into
// room for all of it at once when its size is known.
func readAll(r io.Reader) ([]byte, error) {
	size := 0
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = int(fi.Size())
		}
	}
	buf := offheap.New(max(size+1, 1<<20)) // +1: room to see EOF without growing
	for {
		if len(buf) == cap(buf) {
			buf = offheap.Grow(buf)
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// readStream indexes the stream's lines: the header, the entries, or an
// upstream error record. A line that is not a session record is bad input
// (exit 2, nothing written).
func readStream(in []byte) (*stream, error) {
	st := &stream{entries: make([]compact.Entry, 0, bytes.Count(in, []byte("\n"))+1)}
	for n, off := 1, 0; off < len(in); n++ {
		end := bytes.IndexByte(in[off:], '\n')
		if end < 0 {
			end = len(in)
		} else {
			end += off
		}
		line := bytes.TrimRight(in[off:end], "\r")
		start := off
		off = end + 1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, err := compact.ReadEntry(line)
		if err != nil {
			return nil, exit.Errorf(exit.Usage, "stdin:%d: not a session record: %v", n, err)
		}
		switch e.Type {
		case "error":
			st.errorLine = line
			return st, nil
		case "session":
			if st.header == nil {
				h, err := session.ParseHeader(line)
				if err != nil {
					return nil, exit.Errorf(exit.Usage, "stdin:%d: %v", n, err)
				}
				st.header = &h
			}
			continue
		case "context_end": // agent-session open --end: a marker, not an entry
			continue
		case "state":
			return nil, exit.Errorf(exit.Usage, "stdin:%d: a state record: this is the resolved view ('agent-session open --resolved'), not a session stream", n)
		}
		if e.ID == "" {
			return nil, exit.Errorf(exit.Usage, "stdin:%d: a %s entry without an id: agent-compact reads the session stream of 'agent-session open'", n, e.Type)
		}
		st.entries = append(st.entries, e)
		st.spans = append(st.spans, [2]int{start, start + len(line)})
	}
	return st, nil
}

// splice replaces the input's bytes at span with line.
type splice struct {
	span [2]int
	line []byte
}

// writeStream writes the input as it came, with the splices (in input
// order) in place and rec, when there is one, as a last line.
func writeStream(w io.Writer, in []byte, repl []splice, rec []byte) error {
	var out [][]byte
	off := 0
	for _, r := range repl {
		out = append(out, in[off:r.span[0]], r.line)
		off = r.span[1]
	}
	out = append(out, in[off:])
	if rec != nil {
		if len(in) > 0 && in[len(in)-1] != '\n' {
			out = append(out, []byte("\n"))
		}
		out = append(out, rec, []byte("\n"))
	}
	bufs := net.Buffers(out)
	_, err := bufs.WriteTo(w)
	return err
}

// checkKept refuses a compaction whose kept part alone does not fit in the
// window: the compacted context would overflow again at once.
func checkKept(window int, s compact.Settings) error {
	if window > 0 && s.KeepRecentTokens >= window {
		return exit.Errorf(exit.Usage, "--keep-recent-tokens %d is not smaller than the %d-token context window: the compacted context would not fit; pass a smaller --keep-recent-tokens", s.KeepRecentTokens, window)
	}
	return nil
}
