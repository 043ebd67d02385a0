package sessionstore

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/agentutils/agentutils/internal/lineblock"
	"github.com/agentutils/agentutils/lib/compact"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
)

// LineIndex holds what open needs of every entry without keeping the
// entries: where each line is, and which line is its parent. Lines reads
// them by the rules every reader of a session file applies
// (session.Lines); its IDs map is the index's.
type LineIndex struct {
	Lines   session.Lines
	Header  session.Run // the header's line
	Whole   int64       // bytes up to the last newline, and the lines before it
	NLines  int
	Off     []int64 // each entry's line: where it starts
	N       []int32 // and its length
	Parent  []int32 // -1: root or missing parent
	HasBlob []bool
	Kind    []uint8 // what the stream's cut asks of an entry's type (KindOf)
}

// The kinds of entry compact.CutPath tells apart.
const (
	KindOther uint8 = iota
	KindMessage
	KindCompaction
	KindState // compact.FoldsState
)

// KindOf is the kind of an entry type.
func KindOf(typ string) uint8 {
	switch {
	case typ == "message":
		return KindMessage
	case typ == "compaction":
		return KindCompaction
	case compact.FoldsState(typ):
		return KindState
	}
	return KindOther
}

// KindType is a type of the kind (for compact.CutPath, which asks no more
// of a type than its kind).
var KindType = [...]string{KindOther: "", KindMessage: "message", KindCompaction: "compaction", KindState: "model_change"}

// BuildLineIndex reads the file's lines (path names it) into an index: the header's bytes (nil for
// a file with no record) and where each entry is. ErrMigrate: the file is
// older than version 3.
func BuildLineIndex(f *os.File, path string) (*LineIndex, []byte, error) {
	return buildLineIndex(f, path, 1<<20)
}

// buildLineIndex is BuildLineIndex decoding the lines in batches of about
// batch bytes in parallel (scanDecoded).
func buildLineIndex(f *os.File, path string, batch int) (*LineIndex, []byte, error) {
	idx := &LineIndex{}
	if st, err := f.Stat(); err == nil && st.Size() > 1<<20 { // about an entry a KiB: room, fewer rehashes and copies
		n := int(st.Size() / 1024)
		idx.Lines.IDs = session.NewIDTable(n)
		idx.Off, idx.N, idx.Parent, idx.HasBlob = make([]int64, 0, n), make([]int32, 0, n), make([]int32, 0, n), make([]bool, 0, n)
		idx.Kind = make([]uint8, 0, n)
	}
	var header []byte
	var pending map[int32]string // children whose parent line comes later
	prevID := ""                 // the last entry's id when ids resolve to it
	var err error
	idx.Whole, idx.NLines, err = scanDecoded(BoundLines(f, path), batch, idx.Lines.IDs.Warm, func(raw []byte, d session.Decoded, off int64, lineNo int, torn bool) error {
		l, err := idx.Lines.Classify(d, lineNo, torn)
		switch {
		case err != nil:
			return exit.Errorf(exit.Usage, "%s:%d: not a session file: %v", path, lineNo, err)
		case l.Kind == session.HeaderLine && idx.Lines.Header.Version < 3:
			return ErrMigrate
		case l.Kind == session.HeaderLine:
			header = append([]byte(nil), l.Raw...)
			idx.Header = session.Run{Off: off, Len: int64(len(raw))}
		case l.Kind == session.EntryLine:
			i := int32(len(idx.Off))
			par := int32(-1)
			switch {
			case l.ParentID == "":
			case l.ParentID == prevID: // the common case: the entry before, found without a lookup
				par = i - 1
			default:
				if j, ok := idx.Lines.IDs.Get(l.ParentID); ok {
					par = j
				} else {
					if pending == nil {
						pending = map[int32]string{}
					}
					pending[i] = l.ParentID
				}
			}
			idx.Off = append(idx.Off, off)
			idx.N = append(idx.N, int32(len(raw)))
			idx.Parent = append(idx.Parent, par)
			// hasBlob marks the lines copied one by one through emitEntry (blobs to
			// resolve, bytes to repair) rather than in runs straight from the file.
			idx.HasBlob = append(idx.HasBlob, l.Repaired || l.Blob)
			idx.Kind = append(idx.Kind, KindOf(l.Type))
			prevID = l.ID
			if l.Dup {
				prevID = ""
			}
		}
		return nil
	})
	for i, pid := range pending {
		if j, ok := idx.Lines.IDs.Get(pid); ok {
			idx.Parent[i] = j
		}
	}
	return idx, header, err
}

// Find is the index of the entry with id (-1 for "": before the root).
func (idx *LineIndex) Find(id string) (int32, error) {
	if id == "" {
		return -1, nil
	}
	j, ok := idx.Lines.IDs.Get(id)
	if !ok {
		return 0, os.ErrNotExist
	}
	return j, nil
}

// ID reads entry i's id back from the file.
func (idx *LineIndex) ID(f *os.File, i int32) (string, error) {
	raw, err := ReadAt(f, idx.Off[i], idx.N[i])
	if err != nil {
		return "", err
	}
	p, _ := session.Peek(raw)
	return p.ID, nil
}

// Order is the entries to print: every entry with all, else the path from
// the root to leaf; cycle is the entry where a parent cycle closed (-1).
func (idx *LineIndex) Order(leaf int32, all bool) (order []int32, cycle int32) {
	if all {
		order = make([]int32, len(idx.Off))
		for i := range order {
			order[i] = int32(i)
		}
		return order, -1
	}
	seen := make([]bool, len(idx.Off))
	i := leaf
	for ; i >= 0 && !seen[i]; i = idx.Parent[i] {
		seen[i] = true
		order = append(order, i)
	}
	for a, b := 0, len(order)-1; a < b; a, b = a+1, b-1 {
		order[a], order[b] = order[b], order[a]
	}
	return order, i
}

// ErrMigrate is BuildLineIndex's error for a file older than version 3.
var ErrMigrate = errors.New("needs migration")

// Runs are the lines in order as runs of adjacent lines.
func (idx *LineIndex) Runs(order []int32) []session.Run {
	runs := []session.Run{} // [], not null, in an index
	for _, i := range order {
		runs = session.AddRun(runs, idx.Off[i], int64(idx.N[i]), idx.HasBlob[i])
	}
	return runs
}

// ReadAt reads n bytes of f at off.
func ReadAt(f *os.File, off int64, n int32) ([]byte, error) {
	b := make([]byte, n)
	_, err := f.ReadAt(b, off)
	return b, err
}

// ScanLines calls fn for every non-blank line with its byte offset and
// 1-based number, and whether it is a torn last line (no newline); lines
// may be of any length. A trailing "\r" is not part of the line. The slice
// passed to fn is valid only during the call. It returns where the last
// newline-terminated line ends: bytes, and lines.
func ScanLines(r io.Reader, fn func(line []byte, off int64, lineNo int, torn bool) error) (whole int64, lines int, err error) {
	br := bufio.NewReaderSize(r, 1<<20) // fewer reads of a long file
	var off int64
	var long []byte
	for n := 1; ; n++ {
		line, err := lineblock.Next(br, &long)
		if err != nil && err != io.EOF {
			return whole, lines, err
		}
		size := len(line)
		ended := bytes.HasSuffix(line, []byte{'\n'})
		content := bytes.TrimSuffix(line, []byte{'\n'})
		content = bytes.TrimSuffix(content, []byte{'\r'})
		if len(bytes.TrimSpace(content)) > 0 {
			if ferr := fn(content, off, n, !ended); ferr != nil {
				return whole, lines, ferr
			}
		}
		off += int64(size)
		if ended {
			whole, lines = off, n
		}
		if err == io.EOF {
			return whole, lines, nil
		}
	}
}
