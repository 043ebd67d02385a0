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

// keepAfter is how many bytes of a linear stream after the newest
// compaction (of the whole stream, when it was never compacted) are held:
// the entries before them are let go of into a compact.Gone and their
// lines read again from the spool when the stream is written. The entries
// after a compaction are all in the context to be sent, and pruning may
// replace any of them, so a stream is held whole only up to here.
var keepAfter = 8 << 20 // bytes

// stream is the session stream on stdin, read once, a line at a time: the
// window held (the lines since the newest compaction's kept part, or all of
// them when the stream is short or not one chain), with its entries, and
// carried copies of the few entries let go of that the decisions still read
// (compact.Carry). Lines let go of are written to out as they came. Past
// keepAfter bytes after the newest compaction, the entries are let go of
// into gone and the stream is spooled (stdin itself when it is a file) to
// be written again once the decisions are made.
type stream struct {
	header    *session.Header
	lines     [][]byte // the lines held as read, with their line endings, from line base
	base      int      // the stream's line number (from 0) of lines[0]
	win       compact.Window
	at        []int            // the stream's line of each entry of win.Held
	offs      []int64          // the stream's byte offset of each entry of win.Held
	errorLine []byte           // an upstream {"type":"error"} record
	blocks    lineblock.Blocks // the bytes of lines
	view      session.View     // each line is decoded into it

	out   io.Writer
	after int // flushAfter, or 0: never let go of lines (--branch-summary reads them all)

	keep    int           // keepAfter, or 0: never let go of entries into gone
	gone    *compact.Gone // nil until entries are let go of
	goneAt  int           // where the entries let go of were in win.Held
	full    bool          // the decisions need the whole window: read it again (reread)
	spool   *spool
	n       int   // lines read
	off     int64 // bytes read
	written int64 // bytes written (the stream's first)
	wline   int   // lines written
	now     int64 // the prunedAt stamp of the tool results gone.Cands names
	br      *bufio.Reader
}

// readStream reads the stream, indexing its lines: the header, the
// entries, or an upstream error record. A line that is not a session
// record is bad input (exit 2; stdout then holds only the error record, or
// the lines already let go of and then the error record). after is
// flushAfter, or 0 to hold every line.
func readStream(r io.Reader, out io.Writer, after int) (*stream, error) {
	return readStreamKeep(r, out, after, 0, compact.Settings{})
}

// readStreamKeep is readStream letting go of entries keep bytes after the
// newest compaction (0: never) into a compact.Gone deciding with s.
func readStreamKeep(r io.Reader, out io.Writer, after, keep int, s compact.Settings) (*stream, error) {
	st := &stream{out: out, after: after, keep: keep}
	if keep > 0 {
		st.gone = compact.NewGone(s)
	}
	st.win.Own = true // the carried entries outlive the blocks of their lines
	br := bufio.NewReaderSize(r, 64<<10)
	st.br = br
	if keep > 0 {
		st.spool = newSpool(r)
	}
	var long []byte // a line longer than the reader's buffer
	for ; ; st.n++ {
		raw, rerr := lineblock.Next(br, &long)
		if rerr != nil && rerr != io.EOF {
			return nil, rerr
		}
		if len(raw) > 0 {
			if err := st.spoolLine(raw); err != nil {
				return nil, err
			}
			// a copy in the blocks, used again once the window lets go of it
			if err := st.add(st.blocks.Copy(raw), st.n+1); err != nil || st.errorLine != nil {
				return st, err
			}
			st.off += int64(len(raw))
			if st.full {
				return st, nil
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
	st.at = append(st.at, n-1)
	st.offs = append(st.offs, st.off)
	if st.gone != nil && st.gone.N > 0 {
		return st.afterGone(e, k)
	}
	if k > 0 && st.after > 0 {
		return st.letGo(k)
	}
	return st.letGoToGone()
}

// letGo writes out the lines before the newest compaction's kept part
// (entry k of the window, compact.Window.Add), when they are more than
// flushAfter bytes: on a linear stream nothing before it is in any context
// to come.
func (st *stream) letGo(k int) error {
	if st.offs[k]-st.written < int64(st.after) {
		return nil
	}
	cut := st.at[k] - st.base
	bufs := net.Buffers(append([][]byte(nil), st.lines[:cut]...)) // WriteTo consumes its slice
	if _, err := bufs.WriteTo(st.out); err != nil {
		return err
	}
	st.win.Cut(k)
	st.release(k)
	return nil
}

// release lets go of the lines before entry k of the window, and of the
// entries' lines and offsets before it.
func (st *stream) release(k int) {
	cut := st.at[k] - st.base
	st.written, st.wline = st.offs[k], st.at[k]
	st.lines = slices.Delete(st.lines, 0, cut)
	st.blocks.Release(st.lines[0])
	st.base += cut
	st.at = slices.Delete(st.at, 0, k)
	st.offs = slices.Delete(st.offs, 0, k)
}

// letGoToGone lets go of the entries after the newest compaction into
// gone, once they are more than twice keep bytes, down to keep bytes: the
// held window's head (the entries up to the compaction) is copied, and
// the lines before the entries still held are let go of.
func (st *stream) letGoToGone() error {
	h := st.win.AfterCompaction()
	if st.keep == 0 || st.win.Branched() || h >= len(st.at) || st.off-st.offs[h] <= 2*int64(st.keep) {
		return nil
	}
	to := h
	for st.off-st.offs[to] > int64(st.keep) {
		to++
	}
	if !st.spool.started() {
		return nil
	}
	for i := range h { // the head outlives the blocks of its lines
		v, err := session.Decode(bytes.Clone(st.win.Held[i].Raw))
		if err != nil {
			return err
		}
		st.win.Held[i] = v.Record
	}
	st.gone.Add(compact.EntriesOf(st.win.Held[h:to]), st.at[h:to])
	st.win.LetGo(h, to)
	st.goneAt = h
	cut := st.at[to] - st.base
	st.lines = slices.Delete(st.lines, 0, cut)
	st.blocks.Release(st.lines[0])
	st.base += cut
	st.at = slices.Delete(st.at, h, to)
	st.offs = slices.Delete(st.offs, h, to)
	return nil
}

// afterGone takes entry e (k from compact.Window.Add) once entries were
// let go of: a compaction whose kept part is held cuts the window there
// (the stream before it is written from the spool); a compaction keeping
// from before, or a branch, needs the whole window (full).
func (st *stream) afterGone(e session.Record, k int) error {
	switch {
	case st.win.Branched() || e.Pending:
		st.full = true
	case e.Type == "compaction" && k < st.goneAt:
		st.full = true
	case e.Type == "compaction":
		if err := st.spool.copyTo(st.out, st.written, st.offs[k]); err != nil {
			return err
		}
		st.win.CutGone(k, st.goneAt, st.gone.Carry)
		st.win.Gone += st.gone.N
		st.gone.Reset()
		st.release(k)
	default:
		return st.letGoToGone()
	}
	return nil
}

// path is the active path the decisions read: the carried entries, then
// the path BuildContext resolves over the window (for 'agent-session open'
// output, every entry), with the line of each (-1 for a carried one), and
// where the entries after those let go of start in it (0 when none were).
func (st *stream) path() ([]compact.Entry, []int, int) {
	entries := compact.EntriesOf(st.win.Held)
	at := compact.ActivePath(entries)
	if st.gone != nil && st.gone.N > 0 {
		at = make([]int, len(entries)) // one chain
		for i := range at {
			at[i] = i
		}
	}
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
	if st.gone == nil || st.gone.N == 0 {
		return path, lines, 0
	}
	h := len(st.win.Carry) + st.goneAt
	p, tail := st.gone.Path(path[:h], path[h:])
	l := append(append(slices.Clone(lines[:h]), make([]int, len(st.gone.Carry))...), lines[h:]...)
	for i := range st.gone.Carry {
		l[h+i] = -1
	}
	return p, l, tail
}

// offset is what to add to an index into path() for the index into the
// whole stream's path (agent-compact --dry-run prints the plan's indexes).
func (st *stream) offset() int { return st.win.Gone - len(st.win.Carry) }

// write writes the window's lines as they came, with repl's lines (by the
// stream's line number) in place and rec, when there is one, as a last
// line. Once entries were let go of, the lines are read again from the
// spool.
func (st *stream) write(repl map[int][]byte, rec []byte) error {
	if st.gone != nil && st.gone.N > 0 {
		prune := map[int]int{}
		for _, c := range st.gone.Cands {
			prune[c.Line] = c.Tokens
		}
		return st.spool.rewrite(st.out, st.written, st.wline, func(line int, l []byte) []byte {
			if r, ok := repl[line]; ok {
				return r
			}
			if t, ok := prune[line]; ok {
				return compact.PruneEntry(bytes.TrimSpace(l), t, st.now)
			}
			return nil
		}, rec)
	}
	out := make([][]byte, 0, len(st.lines)+2)
	for i, l := range st.lines {
		if r, ok := repl[st.base+i]; ok {
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

// reread reads the stream again from the spool, holding its window
// (compact.Window), the lines already written out not written again.
func (st *stream) reread() (*stream, error) {
	r, err := st.spool.reader(st.br, 0)
	if err != nil {
		return nil, err
	}
	return readStream(r, &skipWriter{st.out, st.written}, st.after)
}
