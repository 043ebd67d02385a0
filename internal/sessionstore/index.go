package sessionstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agentutils/agentutils/lib/session"
)

// The session index (formats/session-index) beside a session file: open
// prints the path to the last entry from it, reading only what was
// appended since, and writes it back extended. The file stays the only
// truth: an index that is stale (the file was rewritten, or is not the one
// indexed) is rebuilt silently, one that is not an index or disagrees with
// the file is reported and rebuilt.

// IndexPath is where the index of the session file path is kept.
func IndexPath(path string) string { return filepath.Join(ArtifactsDir(path), "index") }

// ReadIndex reads the index beside path. ok is false when there is none
// to use; warn then says why when the file there is not an index (a stale
// one, of another version, is no warning).
func ReadIndex(path string) (x session.Index, ok bool, warn error) {
	b, err := os.ReadFile(IndexPath(path))
	if err != nil {
		return x, false, nil
	}
	x, err = session.ParseIndex(b)
	if errors.Is(err, session.ErrIndexVersion) {
		return x, false, nil // stale: rebuilt silently
	}
	if err != nil {
		return x, false, err
	}
	return x, true, nil
}

// Agreed is what an index that agrees with its file vouches for.
type Agreed struct {
	Header []byte         // the header line
	Hdr    session.Header // read
	Sum    uint32         // session.RunsSum of the index's runs
}

// Agrees checks x against the open file f of info st: the same file, not
// shorter than indexed, the indexed bytes end as they did (their hash), the
// header run is the header, the carried and context runs are whole lines,
// the context's last one the leaf's, the counts are ones the runs and the
// file support, and the runs hold the bytes the index was made from (its
// Sum, checked with one read of them). ok is false when the index cannot
// be used; why names a disagreement other than a stale index (a rewrite,
// a changed tail), which the caller reports.
func Agrees(f *os.File, st os.FileInfo, x session.Index) (a Agreed, why string, ok bool) {
	if id := FileID(st); id == (session.FileID{}) || x.File != id || x.Size > st.Size() {
		return a, "", false // another file, or rewritten since: stale
	}
	tail := make([]byte, min(x.Size, session.TailBytes))
	if _, err := f.ReadAt(tail, x.Size-int64(len(tail))); err != nil || session.TailHash(tail) != x.Tail {
		return a, "", false // appended to by a rewrite, or cut: stale
	}
	header, err := ReadAt(f, x.Header.Off, int32(x.Header.Len))
	if err != nil {
		return a, "its header is not there", false
	}
	hdr, err := session.ParseHeader(header)
	if err != nil || hdr.Version < 3 {
		return a, "its header is not there", false
	}
	var one [1]byte
	for _, r := range append(x.Carry[:len(x.Carry):len(x.Carry)], x.Context...) {
		if r.Off > 0 {
			if _, err := f.ReadAt(one[:], r.Off-1); err != nil || one[0] != '\n' {
				return a, "a path run does not start a line", false
			}
		}
		if _, err := f.ReadAt(one[:], r.Off+r.Len); err != nil || (one[0] != '\n' && one[0] != '\r') {
			return a, "a path run does not end a line", false
		}
	}
	if n := len(x.Context); n > 0 {
		last := x.Context[n-1]
		raw, err := ReadAt(f, last.Off, int32(last.Len))
		if i := bytes.LastIndexByte(raw, '\n'); i >= 0 {
			raw = raw[i+1:]
		}
		if h, perr := session.Peek(bytes.TrimRight(raw, "\r")); err != nil || perr != nil || h.ID != x.LeafID {
			return a, "its leaf is not the path's last line", false
		}
	}
	sum, carried, context, err := runsSum(f, x)
	switch {
	case err != nil:
		return a, "", false
	case carried != x.Carried:
		return a, fmt.Sprintf(`"carried" is %d, its runs hold %d lines`, x.Carried, carried), false
	case x.Carried+x.Omitted+context > x.Entries:
		return a, fmt.Sprintf(`"carried" %d, "omitted" %d and the context's %d lines are more than the file's %d entries`, x.Carried, x.Omitted, context, x.Entries), false
	case session.IndexSum(x, sum) != x.Sum:
		return a, "", false // the runs' bytes, or the index, changed since: stale
	}
	return Agreed{header, hdr, sum}, "", true
}

// runsSum reads the runs x relies on (header, carried, context) once:
// their session.RunsSum, and how many lines the carried runs and the
// context runs hold.
func runsSum(f *os.File, x session.Index) (sum uint32, carried, context int, err error) {
	buf := make([]byte, min(1<<20, x.Size))
	read := func(rs []session.Run) (lines int, err error) {
		for _, r := range rs {
			lines++
			for off, end := r.Off, r.Off+r.Len; off < end; {
				b := buf[:min(int64(len(buf)), end-off)]
				if _, err := f.ReadAt(b, off); err != nil {
					return 0, err
				}
				sum = session.RunsSum(sum, b)
				lines += bytes.Count(b, []byte{'\n'})
				off += int64(len(b))
			}
		}
		return lines, nil
	}
	if _, err = read([]session.Run{x.Header}); err != nil {
		return
	}
	if carried, err = read(x.Carry); err != nil {
		return
	}
	context, err = read(x.Context)
	return
}

// errRescan stops reading the file's new lines: they are not a simple
// continuation of the indexed path (a branch, a possibly repeated id).
var errRescan = errors.New("the index cannot be extended")

// Extended is what an index and the lines appended after it say of the
// file: the path's carried runs and context runs to the leaf, and every
// problem of the file's lines.
type Extended struct {
	Carry, Context []session.Run
	LeafID         string
	Problems       []session.Problem
}

// Extend reads what was appended to f after the indexed bytes of x (which
// Agrees accepted, hdr its header). ok is false when the new lines are not
// a simple continuation of the indexed path (a branch, a repeated id, a
// compaction: a whole read finds the path). The index is written back
// extended by the new whole lines, if any.
func Extend(f *os.File, st os.FileInfo, path string, x session.Index, a Agreed) (e Extended, ok bool, err error) {
	lines := session.ResumeLines(a.Hdr, x.Entries)
	sum := a.Sum
	runs, leaf := append([]session.Run(nil), x.Context...), x.LeafID
	bloom := session.Bloom(x.IDs)
	var added []string
	whole, n, err := ScanLines(BoundLines(io.NewSectionReader(f, x.Size, 1<<62), path), func(raw []byte, off int64, lineNo int, torn bool) error {
		l, err := lines.Read(raw, x.Lines+lineNo, torn)
		if err != nil || l.Kind != session.EntryLine {
			return err
		}
		if bloom.Has(l.ID) || !IsEntry(&lines.IDs, l.ID, int32(lines.Entries()-1)) || l.ParentID != leaf {
			return errRescan
		}
		if l.Type == "compaction" { // the stream's cut moves: found by a whole read
			return errRescan
		}
		n := len(runs)
		runs = session.AddRun(runs, x.Size+off, int64(len(raw)), l.Repaired || l.Blob)
		if len(runs) == n { // joined to the last run, one newline after it
			sum = session.RunsSum(sum, []byte{'\n'})
		}
		sum = session.RunsSum(sum, raw)
		leaf, added = l.ID, append(added, l.ID)
		return nil
	})
	if err == errRescan {
		return e, false, nil
	}
	if err != nil {
		return e, false, err
	}
	problems := make([]session.Problem, 0, len(x.Problems)+len(lines.Problems))
	for _, p := range x.Problems {
		problems = append(problems, session.Problem{Line: p.Line, Err: errors.New(p.Message), Kept: p.Kept})
	}
	problems = append(problems, lines.Problems...)
	if whole == st.Size()-x.Size && len(added) > 0 { // new whole lines, and nothing torn after them: keep them
		for _, id := range added {
			bloom.Add(id)
		}
		x.Size += whole
		x.Lines += n
		x.Entries = lines.Entries()
		x.LeafID, x.Context = leaf, runs
		x.Problems = IndexProblems(problems, nil)
		WriteIndex(path, f, x, sum)
	}
	return Extended{Carry: x.Carry, Context: runs, LeafID: leaf, Problems: problems}, true, nil
}

// IndexMin is the smallest file open writes an index for: a smaller one
// is read whole in a few milliseconds, and gets no directory beside it for
// the index alone.
const IndexMin = 1 << 20

// SaveIndex writes the index of a whole read of the file at path (st its
// info when read, idx its lines), when the file is at least IndexMin
// bytes, ends with a newline and its leaf is the entry its id resolves
// to: the runs of the stream it printed (carry and context, carried and
// omitted counting its cut).
func SaveIndex(path string, st os.FileInfo, idx *LineIndex, carry, context []session.Run, carried, omitted int, leafID string, leaf int32) {
	if idx.Whole < IndexMin || idx.Whole != st.Size() || FileID(st) == (session.FileID{}) {
		return
	}
	if leaf >= 0 && !IsEntry(&idx.Lines.IDs, leafID, leaf) {
		return
	}
	bloom := session.NewBloom(idx.Lines.IDs.Len())
	idx.Lines.IDs.All(bloom.AddHash)
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	x := session.Index{Type: "session_index", Version: session.IndexVersion, File: FileID(st), Size: idx.Whole,
		Lines: idx.NLines, Entries: idx.Lines.Entries(), Header: idx.Header, LeafID: leafID,
		Carried: carried, Omitted: omitted, Carry: carry, Context: context,
		Problems: IndexProblems(nil, idx.Lines.Problems), IDs: bloom}
	if sum, _, _, err := runsSum(f, x); err == nil {
		WriteIndex(path, f, x, sum)
	}
}

// IsEntry says whether id resolves to entry i.
func IsEntry(ids *session.IDTable, id string, i int32) bool {
	j, ok := ids.Get(id)
	return ok && j == i
}

// IndexProblems is problems as an index keeps them.
func IndexProblems(kept []session.Problem, more []session.Problem) []session.IndexProblem {
	out := []session.IndexProblem{}
	for _, p := range append(kept[:len(kept):len(kept)], more...) {
		out = append(out, session.IndexProblem{Line: p.Line, Message: p.Err.Error(), Kept: p.Kept})
	}
	return out
}

// WriteIndex writes x (its Tail from f, the session file at path, its Sum
// from runs, the RunsSum of its runs) beside the session: a cache, so
// written by a rename without a sync, and failures ignored.
func WriteIndex(path string, f *os.File, x session.Index, runs uint32) {
	tail := make([]byte, min(x.Size, session.TailBytes))
	if _, err := f.ReadAt(tail, x.Size-int64(len(tail))); err != nil {
		return
	}
	x.Tail = session.TailHash(tail)
	x.Sum = session.IndexSum(x, runs)
	b, err := json.Marshal(x)
	if err != nil {
		return
	}
	p := IndexPath(path)
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
