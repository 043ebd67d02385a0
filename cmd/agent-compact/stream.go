package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"slices"

	"github.com/agentutils/agentutils/internal/lineblock"
	"github.com/agentutils/agentutils/lib/compact"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
)

// flushAfter is how many bytes of a linear stream, before the newest
// compaction's kept part, are held before they are written out: a stream
// shorter than that is written only once it was read whole (a bad line late
// in it leaves stdout holding only the error record), a longer one is
// streamed, holding about the context it sends.
const flushAfter = 4 << 20 // bytes

// stream is the session stream on stdin, read once, a line at a time: the
// window held (the lines since the newest compaction's kept part, or all of
// them when the stream is short or not one chain), with its entries, and
// carried copies of the few entries let go of that the decisions still read
// (compact.Carry). Lines let go of are written to out as they came.
type stream struct {
	header    *session.Header
	lines     [][]byte // the window's lines as read, with their line endings
	win       compact.Window
	at        []int            // the line in lines of each entry of win
	errorLine []byte           // an upstream {"type":"error"} record
	blocks    lineblock.Blocks // the bytes of lines
	view      session.View     // each line is decoded into it

	out   io.Writer
	after int // flushAfter, or 0: never let go of lines (--branch-summary reads them all)
}

// readStream reads the stream, indexing its lines: the header, the
// entries, or an upstream error record. A line that is not a session
// record is bad input (exit 2; stdout then holds only the error record, or
// the lines already let go of and then the error record). after is
// flushAfter, or 0 to hold every line.
func readStream(r io.Reader, out io.Writer, after int) (*stream, error) {
	st := &stream{out: out, after: after}
	st.win.Own = true // the carried entries outlive the blocks of their lines
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte // a line longer than the reader's buffer
	for n := 1; ; n++ {
		raw, rerr := lineblock.Next(br, &long)
		if rerr != nil && rerr != io.EOF {
			return nil, rerr
		}
		if len(raw) > 0 {
			// a copy in the blocks, used again once the window lets go of it
			if err := st.add(st.blocks.Copy(raw), n); err != nil || st.errorLine != nil {
				return st, err
			}
		}
		if rerr == io.EOF {
			return st, nil
		}
	}
}

// add reads line n (raw, with its line ending).
func (st *stream) add(raw []byte, n int) error {
	line := bytes.TrimSuffix(bytes.TrimSuffix(raw, []byte("\n")), []byte("\r"))
	st.lines = append(st.lines, raw)
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	err := session.DecodeInto(&st.view, line) // Raw is line, not a copy; the message is read if it is kept (path)
	e := st.view.Record
	if err != nil {
		return exit.Errorf(exit.Usage, "stdin:%d: not a session record: %v", n, err)
	}
	switch e.Type {
	case "error":
		st.errorLine = line
		return nil
	case "session":
		if st.header == nil {
			h, err := session.ParseStreamHeader(line)
			if err != nil {
				return exit.Errorf(exit.Usage, "stdin:%d: %v", n, err)
			}
			st.header = &h
			st.win.Start(h)
		}
		return nil
	case "context_end": // agent-session open --end: a marker, not an entry
		return nil
	case "state":
		return exit.Errorf(exit.Usage, "stdin:%d: a state record: this is the resolved view ('agent-session open --resolved'), not a session stream", n)
	}
	if e.ID == "" {
		return exit.Errorf(exit.Usage, "stdin:%d: a %s entry without an id: agent-compact reads the session stream of 'agent-session open'", n, e.Type)
	}
	carried := st.win.Carrying()
	k, err := st.win.Add(e)
	if err != nil {
		return exit.Errorf(exit.Usage, "stdin:%d: %v", n, err)
	}
	if carried { // in win.Carry: its line is passed on, never replaced
		return nil
	}
	st.at = append(st.at, len(st.lines)-1)
	if k > 0 && st.after > 0 {
		return st.letGo(k)
	}
	return nil
}

// letGo writes out the lines before the newest compaction's kept part
// (entry k of the window, compact.Window.Add), when they are more than
// flushAfter bytes: on a linear stream nothing before it is in any context
// to come.
func (st *stream) letGo(k int) error {
	cut, size := st.at[k], 0
	for _, l := range st.lines[:cut] {
		size += len(l)
	}
	if size < st.after {
		return nil
	}
	bufs := net.Buffers(append([][]byte(nil), st.lines[:cut]...)) // WriteTo consumes its slice
	if _, err := bufs.WriteTo(st.out); err != nil {
		return err
	}
	st.win.Cut(k)
	st.lines = slices.Delete(st.lines, 0, cut)
	st.blocks.Release(st.lines[0])
	st.at = slices.Delete(st.at, 0, k)
	for i := range st.at {
		st.at[i] -= cut
	}
	return nil
}

// path is the active path the decisions read: the carried entries, then
// the path BuildContext resolves over the window (for 'agent-session open'
// output, every entry), with the line of each (-1 for a carried one).
func (st *stream) path() ([]compact.Entry, []int) {
	entries := compact.EntriesOf(st.win.Held)
	at := compact.ActivePath(entries)
	path := make([]compact.Entry, 0, len(st.win.Carry)+len(at))
	lines := make([]int, 0, cap(path))
	for _, e := range st.win.Carry {
		path = append(path, e)
		lines = append(lines, -1)
	}
	for _, i := range at {
		path = append(path, entries[i])
		lines = append(lines, st.at[i])
	}
	return path, lines
}

// offset is what to add to an index into path() for the index into the
// whole stream's path (agent-compact --dry-run prints the plan's indexes).
func (st *stream) offset() int { return st.win.Gone - len(st.win.Carry) }

// write writes the window's lines as they came, with repl's lines (by line
// index) in place and rec, when there is one, as a last line.
func (st *stream) write(repl map[int][]byte, rec []byte) error {
	out := make([][]byte, 0, len(st.lines)+2)
	for i, l := range st.lines {
		if r, ok := repl[i]; ok {
			end := l[len(bytes.TrimRight(l, "\r\n")):] // the line ending it came with
			out = append(out, r, end)
			continue
		}
		out = append(out, l)
	}
	if rec != nil {
		if n := len(st.lines); n > 0 && !bytes.HasSuffix(st.lines[n-1], []byte("\n")) {
			out = append(out, []byte("\n"))
		}
		out = append(out, rec, []byte("\n"))
	}
	bufs := net.Buffers(out)
	_, err := bufs.WriteTo(st.out)
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
