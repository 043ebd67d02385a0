// Package checkpoint is what a session records of its workspace's files
// so that a turn can be undone: the manifest of a scan (each file's size,
// times, mode and content hash), the changes between two scans (a
// session's checkpoint entry) and the plan that brings files back to a
// checkpoint. It is values only: internal/checkpoint walks, hashes,
// stores and writes.
//
// A session's checkpoint entries, in file order, are the log of every
// change its scans saw: each names, per changed path, the state before
// (the previous scan's) and after. The files as they were at checkpoint
// k are, for every path a later entry names, the "before" of the first
// such entry; a path no later entry names has not changed since.
package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
)

// EntryType is the session entry's type.
const EntryType = "checkpoint"

// File is one file of the workspace as a scan saw it.
type File struct {
	Path  string // slash-separated, relative to the root
	Size  int64
	Mtime int64 // nanoseconds
	Ctime int64 // nanoseconds
	Mode  uint32
	Kept  bool     // the content is in the blob store under Hash
	Hash  [32]byte // sha256 of the content, when Kept
	Link  string   // a symbolic link's target (Mode has ModeLink)
}

// ModeLink marks a symbolic link in File.Mode and State.Mode (the
// permission bits are the low nine).
const ModeLink = 1 << 31

// Manifest is a scan: its root, when it began, its files in Less order.
type Manifest struct {
	Root  string
	Began int64  // nanoseconds, the clock of the file times
	Watch string // the watcher's token the scan is current to ("": none)
	Count int    // the files of the whole tree
	// Tops, when not nil, are the paths a watcher saw change: Files are
	// then only those at and below them (a partial scan; Patch puts them
	// in place).
	Tops  []string
	Over  *Index // the manifest file a partial one was read from
	Files []File
}

// Less orders paths as a depth-first walk of sorted directories visits
// them: a directory's files come right after its name ("a/b" before "a.txt").
func Less(a, b string) bool { return Compare(a, b) < 0 }

// Compare is Less as -1, 0, +1: bytes compared with '/' lowest.
func Compare(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x == '/' {
			return -1
		}
		if y == '/' {
			return 1
		}
		if x < y {
			return -1
		}
		return 1
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

// Racy is how close to a scan's start a file time must be for the file to
// be hashed again at the next scan: a write in the same tick of the
// kernel's coarse clock leaves the time unchanged.
const Racy = int64(20e6)

// Reuse carries the hashes of the old manifest over to the files of a new
// walk (both in Less order) whose size, times and mode are unchanged and
// were not racy; it returns the indexes of cur that must be hashed.
func Reuse(old Manifest, cur []File) (rehash []int) {
	j := 0
	for i := range cur {
		for j < len(old.Files) && Compare(old.Files[j].Path, cur[i].Path) < 0 {
			j++
		}
		if j < len(old.Files) && old.Files[j].Path == cur[i].Path {
			o := old.Files[j]
			c := &cur[i]
			if o.Size == c.Size && o.Mtime == c.Mtime && o.Ctime == c.Ctime && o.Mode == c.Mode &&
				o.Mtime < old.Began-Racy && o.Ctime < old.Began-Racy {
				c.Kept, c.Hash, c.Link = o.Kept, o.Hash, o.Link
				continue
			}
		}
		if cur[i].Mode&ModeLink == 0 {
			rehash = append(rehash, i)
		}
	}
	return rehash
}

// State is a path's state in a change: nil (in JSON null) when there is
// no file.
type State struct {
	Blob string `json:"blob,omitempty"` // sha256 hex of the content in the blob store; absent: not kept
	Size int64  `json:"size"`
	Mode uint32 `json:"mode"`           // permission bits, ModeLink for a link
	Link string `json:"link,omitempty"` // a link's target
}

// Change is one path's states before and after.
type Change struct {
	Path   string `json:"path"`
	Before *State `json:"before"`
	After  *State `json:"after"`
}

// Entry is a session's checkpoint entry (formats/session).
type Entry struct {
	Type      string   `json:"type"`
	ID        string   `json:"id,omitempty"`
	ParentID  *string  `json:"parentId"`
	Timestamp string   `json:"timestamp,omitempty"`
	Root      string   `json:"root"`
	Base      bool     `json:"base,omitempty"`   // the first scan: what changed before it is not known
	Rewind    string   `json:"rewind,omitempty"` // written by a rewind to this checkpoint id
	Files     int      `json:"files"`            // files in the workspace
	Changes   []Change `json:"changes"`
	Unkept    []string `json:"unkept,omitempty"` // changed files whose content was not kept (over the size limit, unreadable)
}

func stateOf(f File) *State {
	s := &State{Size: f.Size, Mode: f.Mode, Link: f.Link}
	if f.Kept {
		s.Blob = fmt.Sprintf("%x", f.Hash)
	}
	return s
}

func sameContent(a, b File) bool {
	if a.Mode != b.Mode || a.Link != b.Link || a.Size != b.Size {
		return false
	}
	if a.Mode&ModeLink != 0 {
		return true
	}
	// Content not kept on either side: equal only as far as size and
	// times tell.
	if !a.Kept || !b.Kept {
		return a.Kept == b.Kept && a.Mtime == b.Mtime
	}
	return a.Hash == b.Hash
}

// Diff is the changes from old to cur (both in Less order), in that order.
func Diff(old, cur []File) []Change {
	out := []Change{}
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		switch {
		case j == len(cur) || (i < len(old) && Compare(old[i].Path, cur[j].Path) < 0):
			out = append(out, Change{Path: old[i].Path, Before: stateOf(old[i])})
			i++
		case i == len(old) || Compare(old[i].Path, cur[j].Path) > 0:
			out = append(out, Change{Path: cur[j].Path, After: stateOf(cur[j])})
			j++
		default:
			if !sameContent(old[i], cur[j]) {
				out = append(out, Change{Path: cur[j].Path, Before: stateOf(old[i]), After: stateOf(cur[j])})
			}
			i++
			j++
		}
	}
	return out
}

// NewEntry is the entry of a scan: the changes from the previous manifest
// (base: there was none) and the changed files whose content was not kept.
func NewEntry(root string, base bool, old, cur []File) Entry {
	e := Entry{Type: EntryType, Root: root, Base: base, Files: len(cur), Changes: []Change{}}
	if !base {
		e.Changes = Diff(old, cur)
	}
	for _, c := range e.Changes {
		if c.After != nil && c.After.Blob == "" && c.After.Mode&ModeLink == 0 {
			e.Unkept = append(e.Unkept, c.Path)
		}
	}
	return e
}

// ParseEntry reads and checks a checkpoint entry: every path relative,
// clean, slash-separated and outside .git; every blob a sha256.
func ParseEntry(raw []byte) (Entry, error) {
	var e Entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return e, err
	}
	if e.Type != EntryType {
		return e, fmt.Errorf("type %q is not %q", e.Type, EntryType)
	}
	if e.Root == "" || !strings.HasPrefix(e.Root, "/") {
		return e, errors.New(`"root" must be an absolute path`)
	}
	var rawCh struct {
		Changes json.RawMessage `json:"changes"`
	}
	json.Unmarshal(raw, &rawCh)
	if len(rawCh.Changes) == 0 || rawCh.Changes[0] != '[' {
		return e, errors.New(`"changes" must be an array`)
	}
	for k, c := range e.Changes {
		if err := CheckPath(c.Path); err != nil {
			return e, fmt.Errorf("changes[%d]: %v", k, err)
		}
		for _, s := range []*State{c.Before, c.After} {
			if s != nil && s.Blob != "" && !isHash(s.Blob) {
				return e, fmt.Errorf("changes[%d]: blob %q is not a sha256 in hex", k, s.Blob)
			}
		}
	}
	return e, nil
}

// CheckPath accepts a workspace path a checkpoint may name.
func CheckPath(p string) error {
	switch {
	case p == "" || strings.HasPrefix(p, "/") || path.Clean(p) != p || p == "." || strings.Contains(p, "\\"):
		return fmt.Errorf("path %q is not a clean relative path", p)
	case p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("path %q leaves the workspace", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".git" {
			return fmt.Errorf("path %q is inside .git", p)
		}
	}
	return nil
}

func isHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// Action is one step of a rewind: write the file (Want non-nil) or remove
// it (Want nil). Lost says why it cannot be done (its content was not
// kept); the step is then not taken, and named.
type Action struct {
	Path string
	Want *State
	Lost string
}

// Plan is what brings the files back to checkpoint log[k]: log is the
// session's checkpoint entries in file order, the last the scan just made;
// cur the files now (the scan's). An entry after k that is a base, or
// scanned another root, breaks the log: the files cannot be brought back.
func Plan(log []Entry, k int, cur []File) ([]Action, error) {
	if k < 0 || k >= len(log) {
		return nil, fmt.Errorf("no checkpoint %d", k)
	}
	root := log[k].Root
	want := map[string]*State{}
	var order []string
	for _, e := range log[k+1:] {
		if e.Base || e.Root != root {
			return nil, fmt.Errorf("the files were not followed between checkpoint %s and %s (a new baseline, or another directory): they cannot be brought back", log[k].ID, e.ID)
		}
		for _, c := range e.Changes {
			if _, seen := want[c.Path]; !seen {
				want[c.Path] = c.Before
				order = append(order, c.Path)
			}
		}
	}
	sort.Slice(order, func(a, b int) bool { return Less(order[a], order[b]) })
	var acts []Action
	for _, p := range order {
		w := want[p]
		f, exists := find(cur, p)
		if w == nil {
			if exists {
				acts = append(acts, Action{Path: p})
			}
			continue
		}
		if exists && matches(f, w) {
			continue
		}
		a := Action{Path: p, Want: w}
		if w.Blob == "" && w.Mode&ModeLink == 0 {
			a.Lost = fmt.Sprintf("its content (%d bytes) was not kept", w.Size)
		}
		acts = append(acts, a)
	}
	return acts, nil
}

// Named is every path the entries of log after k name: what Plan needs
// to know the state of now.
func Named(log []Entry, k int) []string {
	var out []string
	for _, e := range log[min(k+1, len(log)):] {
		for _, c := range e.Changes {
			out = append(out, c.Path)
		}
	}
	return out
}

// find is the file at path p of files (in Less order).
func find(files []File, p string) (File, bool) {
	i := sort.Search(len(files), func(i int) bool { return Compare(files[i].Path, p) >= 0 })
	if i < len(files) && files[i].Path == p {
		return files[i], true
	}
	return File{}, false
}

func matches(f File, w *State) bool {
	if f.Mode != w.Mode || f.Size != w.Size || f.Link != w.Link {
		return false
	}
	if w.Mode&ModeLink != 0 {
		return true
	}
	return f.Kept && w.Blob != "" && fmt.Sprintf("%x", f.Hash) == w.Blob
}
