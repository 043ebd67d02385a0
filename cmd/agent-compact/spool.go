package main

import (
	"bufio"
	"bytes"
	"io"
	"os"

	"github.com/agentutils/agentutils/internal/lineblock"
)

// spool keeps the stream for a second reading once its entries are let go
// of (stream.keep): stdin itself when it is a regular file, else a copy in
// a temporary file, unlinked at once, begun before any line is written
// out.
type spool struct {
	in    io.Reader
	f     *os.File
	start int64         // the file's offset of the stream's first byte
	w     *bufio.Writer // the copy's writer (nil: stdin is the file)
}

func newSpool(r io.Reader) *spool {
	sp := &spool{in: r}
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if pos, err := f.Seek(0, io.SeekCurrent); err == nil {
				sp.f, sp.start = f, pos
			}
		}
	}
	return sp
}

func (sp *spool) started() bool { return sp != nil && sp.f != nil }

// spoolLine copies raw to the spool, which is begun (with the lines held,
// none written yet) when the stream reaches the smaller of after and keep
// bytes.
func (st *stream) spoolLine(raw []byte) error {
	sp := st.spool
	if sp == nil || sp.f != nil && sp.w == nil {
		return nil
	}
	if sp.f == nil {
		if st.off+int64(len(raw)) < int64(min(st.keep, max(st.after, 1))) {
			return nil
		}
		f, err := os.CreateTemp("", "agent-compact-*")
		if err != nil { // no spool: the stream is held whole, as a short one is
			st.spool, st.keep = nil, 0
			return nil
		}
		os.Remove(f.Name()) // the open file is all that is needed
		sp.f, sp.w = f, bufio.NewWriterSize(f, 256<<10)
		for _, l := range st.lines { // none written yet: the stream from its start
			sp.w.Write(l)
		}
	}
	_, err := sp.w.Write(raw)
	return err
}

// reader is the stream from byte from on, once the rest of br (what was
// not read of stdin) is in the spool.
func (sp *spool) reader(br *bufio.Reader, from int64) (io.Reader, error) {
	if sp.w != nil {
		if _, err := io.Copy(sp.w, br); err != nil {
			return nil, err
		}
		if err := sp.w.Flush(); err != nil {
			return nil, err
		}
	}
	return io.NewSectionReader(sp.f, sp.start+from, 1<<62), nil
}

// copyTo writes the stream's bytes [from, to) to out.
func (sp *spool) copyTo(out io.Writer, from, to int64) error {
	if sp.w != nil {
		if err := sp.w.Flush(); err != nil {
			return err
		}
	}
	_, err := io.Copy(out, io.NewSectionReader(sp.f, sp.start+from, to-from))
	return err
}

// rewrite writes the stream from byte from (line number line) to its
// end, each line as it came or repl's for it, when not nil, in its place
// (with the line ending it came with), and rec as a last line.
func (sp *spool) rewrite(out io.Writer, from int64, line int, repl func(line int, l []byte) []byte, rec []byte) error {
	// (the stream was read to its end: the spool has it all)
	if sp.w != nil {
		if err := sp.w.Flush(); err != nil {
			return err
		}
	}
	br := bufio.NewReaderSize(io.NewSectionReader(sp.f, sp.start+from, 1<<62), 256<<10)
	w := bufio.NewWriterSize(out, 256<<10)
	var long, last []byte
	for ; ; line++ {
		l, err := lineblock.Next(br, &long)
		if err != nil && err != io.EOF {
			return err
		}
		if r := repl(line, l); r != nil && len(l) > 0 {
			w.Write(r)
			w.Write(l[len(bytes.TrimRight(l, "\r\n")):])
		} else {
			w.Write(l)
		}
		if len(l) > 0 {
			last = append(last[:0], l[len(l)-1])
		}
		if err == io.EOF {
			break
		}
	}
	if rec != nil {
		if len(last) > 0 && last[0] != '\n' {
			w.WriteByte('\n')
		}
		w.Write(rec)
		w.WriteByte('\n')
	}
	return w.Flush()
}

// skipWriter drops the first n bytes written to it (those a first
// reading wrote out already).
type skipWriter struct {
	w io.Writer
	n int64
}

func (s *skipWriter) Write(p []byte) (int, error) {
	k := int64(len(p))
	if s.n >= k {
		s.n -= k
		return len(p), nil
	}
	q := p[s.n:]
	s.n = 0
	if _, err := s.w.Write(q); err != nil {
		return 0, err
	}
	return len(p), nil
}
