package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/session"
)

// The session index (formats/session-index) beside a session file: open
// prints the path to the last entry from it, reading only what was
// appended since, and writes it back extended. The file stays the only
// truth: an index that is stale (the file was rewritten, or is not the one
// indexed) is rebuilt silently, one that is not an index or disagrees with
// the file is reported and rebuilt.

func indexPath(path string) string { return filepath.Join(artifactsDir(path), "index") }

func hasSidecar(path string) bool {
	_, err := os.Stat(sidecarPath(path))
	return err == nil
}

// errRescan stops reading the file's new lines: they are not a simple
// continuation of the indexed path (a branch, a possibly repeated id).
var errRescan = errors.New("the index cannot be extended")

// fromIndex prints the path from the index when it agrees with the file
// (done=false: it does not; read the whole file).
func (o *opener) fromIndex(f *os.File, st os.FileInfo) (done bool, err error) {
	b, err := os.ReadFile(indexPath(o.path))
	if err != nil {
		return false, nil
	}
	x, err := session.ParseIndex(b)
	if errors.Is(err, session.ErrIndexVersion) {
		return false, nil // stale: rebuilt silently
	}
	if err != nil {
		app.Warnf(o.c, "%s: not a session index (%v): rebuilt from %s", indexPath(o.path), err, o.path)
		return false, nil
	}
	if id := fileID(st); id == (session.FileID{}) || x.File != id || x.Size > st.Size() {
		return false, nil // another file, or rewritten since: stale
	}
	header, hdr, ok := o.agrees(f, x)
	if !ok {
		return false, nil
	}
	lines := session.ResumeLines(hdr, x.Entries)
	path, leaf := append([]session.Run(nil), x.Context...), x.LeafID
	bloom := session.Bloom(x.IDs)
	var added []string
	whole, n, err := scanLines(boundLines(io.NewSectionReader(f, x.Size, 1<<62), o.path), func(raw []byte, off int64, lineNo int, torn bool) error {
		l, err := lines.Read(raw, x.Lines+lineNo, torn)
		if err != nil || l.Kind != session.EntryLine {
			return err
		}
		if bloom.Has(l.ID) || !isEntry(&lines.IDs, l.ID, int32(lines.Entries()-1)) || l.ParentID != leaf {
			return errRescan
		}
		if l.Type == "compaction" { // the stream's cut moves: found by a whole read
			return errRescan
		}
		path = session.AddRun(path, x.Size+off, int64(len(raw)), l.Repaired || l.Blob)
		leaf, added = l.ID, append(added, l.ID)
		return nil
	})
	if err == errRescan {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	problems := make([]session.Problem, 0, len(x.Problems)+len(lines.Problems))
	for _, p := range x.Problems {
		problems = append(problems, session.Problem{Line: p.Line, Err: errors.New(p.Message), Kept: p.Kept})
	}
	warnProblems(o.c, o.path, append(problems, lines.Problems...))
	o.emitHeader(header, leaf, streamCut{x.Carried, x.Omitted})
	if whole == st.Size()-x.Size && len(added) > 0 { // new whole lines, and nothing torn after them: keep them
		for _, id := range added {
			bloom.Add(id)
		}
		x.Size += whole
		x.Lines += n
		x.Entries = lines.Entries()
		x.LeafID, x.Context = leaf, path
		x.Problems = indexProblems(problems, lines.Problems)
		o.writeIndex(f, x)
	}
	if err := o.copyRuns(f, x.Carry); err != nil {
		return true, err
	}
	return true, o.copyRuns(f, path)
}

// agrees checks x against the file: the indexed bytes end as they did
// (their hash), the header run is the header, and the carried and context
// runs are whole lines, the context's last one the leaf's. A disagreement other than a
// changed tail is reported.
func (o *opener) agrees(f *os.File, x session.Index) ([]byte, session.Header, bool) {
	tail := make([]byte, min(x.Size, session.TailBytes))
	if _, err := f.ReadAt(tail, x.Size-int64(len(tail))); err != nil || session.TailHash(tail) != x.Tail {
		return nil, session.Header{}, false // appended to by a rewrite, or cut: stale
	}
	bad := func(why string) ([]byte, session.Header, bool) {
		app.Warnf(o.c, "%s: the index disagrees with the file (%s): rebuilt from the file", indexPath(o.path), why)
		return nil, session.Header{}, false
	}
	header, err := readAt(f, x.Header.Off, int32(x.Header.Len))
	if err != nil {
		return bad("its header is not there")
	}
	hdr, err := session.ParseHeader(header)
	if err != nil || hdr.Version < 3 {
		return bad("its header is not there")
	}
	var one [1]byte
	for _, r := range append(x.Carry[:len(x.Carry):len(x.Carry)], x.Context...) {
		if r.Off > 0 {
			if _, err := f.ReadAt(one[:], r.Off-1); err != nil || one[0] != '\n' {
				return bad("a path run does not start a line")
			}
		}
		if _, err := f.ReadAt(one[:], r.Off+r.Len); err != nil || (one[0] != '\n' && one[0] != '\r') {
			return bad("a path run does not end a line")
		}
	}
	if n := len(x.Context); n > 0 {
		last := x.Context[n-1]
		raw, err := readAt(f, last.Off, int32(last.Len))
		if i := bytes.LastIndexByte(raw, '\n'); i >= 0 {
			raw = raw[i+1:]
		}
		if h, perr := session.Peek(bytes.TrimRight(raw, "\r")); err != nil || perr != nil || h.ID != x.LeafID {
			return bad("its leaf is not the path's last line")
		}
	}
	return header, hdr, true
}

// indexMin is the smallest file open writes an index for: a smaller one
// is read whole in a few milliseconds, and gets no directory beside it for
// the index alone.
const indexMin = 1 << 20

// saveIndex writes the index of a whole read of the file, when the file
// is at least indexMin bytes, ends with a newline and its leaf is the entry
// its id resolves to: the runs of the stream it printed (cut, carry and
// context).
func (o *opener) saveIndex(st os.FileInfo, idx *fastIndex, carry, context []session.Run, cut streamCut, leafID string, leaf int32) {
	if idx.whole < indexMin || idx.whole != st.Size() || fileID(st) == (session.FileID{}) {
		return
	}
	if leaf >= 0 && !isEntry(&idx.lines.IDs, leafID, leaf) {
		return
	}
	bloom := session.NewBloom(idx.lines.IDs.Len())
	idx.lines.IDs.All(bloom.AddHash)
	f, err := os.Open(o.path)
	if err != nil {
		return
	}
	defer f.Close()
	o.writeIndex(f, session.Index{Type: "session_index", Version: session.IndexVersion, File: fileID(st), Size: idx.whole,
		Lines: idx.nlines, Entries: idx.lines.Entries(), Header: idx.header, LeafID: leafID,
		Carried: cut.carried, Omitted: cut.omitted, Carry: carry, Context: context,
		Problems: indexProblems(nil, idx.lines.Problems), IDs: bloom})
}

// isEntry says whether id resolves to entry i.
func isEntry(ids *session.IDTable, id string, i int32) bool {
	j, ok := ids.Get(id)
	return ok && j == i
}

func indexProblems(kept []session.Problem, more []session.Problem) []session.IndexProblem {
	out := []session.IndexProblem{}
	for _, p := range append(kept[:len(kept):len(kept)], more...) {
		out = append(out, session.IndexProblem{Line: p.Line, Message: p.Err.Error(), Kept: p.Kept})
	}
	return out
}

// writeIndex writes x (its Tail from the file) beside the session: a
// cache, so written by a rename without a sync, and failures ignored.
func (o *opener) writeIndex(f *os.File, x session.Index) {
	tail := make([]byte, min(x.Size, session.TailBytes))
	if _, err := f.ReadAt(tail, x.Size-int64(len(tail))); err != nil {
		return
	}
	x.Tail = session.TailHash(tail)
	b, err := json.Marshal(x)
	if err != nil {
		return
	}
	p := indexPath(o.path)
	if os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".index.*.tmp")
	if err != nil {
		return
	}
	tmp.Chmod(0o644)
	_, werr := tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), p) != nil {
		os.Remove(tmp.Name())
	}
}
