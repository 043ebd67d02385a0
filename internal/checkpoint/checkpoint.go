// Package checkpoint is the file system side of lib/checkpoint: it walks
// a workspace (never into .git, nor the agent's own data), hashes what
// changed since the session's last scan, keeps the content in the blob
// store, saves the session's manifest, and writes files back for a
// rewind. The interactive agent's agent-chat --checkpoint takes one before
// each prompt; agent-session rewind takes one and restores.
package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentutils/agentutils/internal/atomicfile"
	cp "github.com/agentutils/agentutils/lib/checkpoint"
	"github.com/agentutils/agentutils/lib/dirs"
)

// MaxFile is the default size limit: a larger file is followed by its
// size and times, its content not kept (a rewind names it).
const MaxFile = 8 << 20

// Store is where a session's checkpoints live.
type Store struct {
	Blobs     string   // the blob store (content by sha256)
	Manifests string   // one manifest per session file
	Exclude   []string // absolute directories the walk leaves out (the agent's own data)
	MaxFile   int64
}

// NewStore is the store of the agentutils directories d.
func NewStore(d dirs.Dirs) Store {
	return Store{Blobs: d.Blobs(), Manifests: filepath.Join(d.Data, "checkpoints"),
		Exclude: []string{d.Data, d.Cache, d.Config}, MaxFile: MaxFile}
}

// manifestPath is the manifest of the session file at path (absolute):
// by its path, as the stream names it, for a new session's id is not yet
// the file's when agent-chat takes its first checkpoint.
func (s Store) manifestPath(path string) string {
	h := sha256.Sum256([]byte(path))
	return filepath.Join(s.Manifests, hex.EncodeToString(h[:12])+".manifest")
}

// Load reads the manifest of session file sid; ok is false when there is none (or it
// is damaged, or of another root): the next scan is a baseline.
func (s Store) Load(sid, root string) (m cp.Manifest, ok bool) {
	data, err := os.ReadFile(s.manifestPath(sid))
	if err != nil {
		return m, false
	}
	m, err = cp.DecodeManifest(data)
	if err != nil || m.Root != root {
		return cp.Manifest{}, false
	}
	return m, true
}

// Save replaces session sid's manifest (a cache of the last scan: temp
// and rename, no fsync; a lost one makes the next scan a baseline).
func (s Store) Save(sid string, m cp.Manifest) error {
	if err := os.MkdirAll(s.Manifests, 0o755); err != nil {
		return err
	}
	p := s.manifestPath(sid)
	tmp := fmt.Sprintf("%s.%d.tmp", p, os.Getpid())
	if err := os.WriteFile(tmp, cp.EncodeManifest(m), 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, p)
}

// Scan is one scan: the manifest it makes, the one before and what to say.
type Scan struct {
	Old, New cp.Manifest
	Base     bool     // no manifest before
	Warnings []string // directories or files that could not be read
}

// Entry is the scan's checkpoint entry.
func (sc Scan) Entry() cp.Entry {
	return cp.NewEntry(sc.New.Root, sc.Base, sc.Old.Files, sc.New.Files)
}

// Take scans root for session sid against its manifest, keeps the content
// of what changed in the blob store (all of it for a baseline) and saves
// the new manifest; began is the scan's start on the file times' clock.
func (s Store) Take(sid, root string, began int64) (Scan, error) {
	sc, err := s.Scan(sid, root, began, true)
	if err != nil {
		return sc, err
	}
	return sc, s.Save(sid, sc.New)
}

// Scan walks root against session sid's manifest and hashes what
// changed; with keep their content goes to the blob store. The manifest
// is not saved (Take saves it; a rewind saves it after its entry).
func (s Store) Scan(sid, root string, began int64, keep bool) (Scan, error) {
	var sc Scan
	old, ok := s.Load(sid, root)
	sc.Old, sc.Base = old, !ok
	w := walker{root: root, exclude: s.Exclude, files: make([]cp.File, 0, len(old.Files)+len(old.Files)/8+16)}
	if err := w.dir(""); err != nil {
		return sc, err
	}
	sc.Warnings = w.warn
	files := w.files
	var added []string
	for _, i := range cp.Reuse(old, files) {
		f := &files[i]
		if f.Size > s.MaxFile {
			continue
		}
		h, err := s.hashFile(filepath.Join(root, filepath.FromSlash(f.Path)), keep, &added)
		if err != nil {
			sc.Warnings = append(sc.Warnings, fmt.Sprintf("%s: %v", f.Path, err))
			continue
		}
		f.Hash, f.Kept = h, true
	}
	sc.New = cp.Manifest{Root: root, Began: began, Files: files}
	syncBlobs(s.Blobs, added)
	return sc, nil
}

// hashFile hashes a file and, with keep, puts it in the blob store when
// it is not there yet.
func (s Store) hashFile(path string, keep bool, added *[]string) ([32]byte, error) {
	var h [32]byte
	data, err := os.ReadFile(path)
	if err != nil {
		return h, err
	}
	h = sha256.Sum256(data)
	if !keep {
		return h, nil
	}
	blob := filepath.Join(s.Blobs, fmt.Sprintf("%x", h))
	if _, err := os.Stat(blob); err == nil {
		return h, nil
	}
	// A temporary file renamed: a reader never sees half a blob. The
	// scan syncs the file system once at its end, not each blob.
	if err := os.MkdirAll(s.Blobs, 0o755); err != nil {
		return h, err
	}
	tmp := fmt.Sprintf("%s.%d.tmp", blob, os.Getpid())
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		os.Remove(tmp)
		return h, err
	}
	*added = append(*added, blob)
	return h, os.Rename(tmp, blob)
}

// syncBlobs makes the blobs a scan added durable: an fsync each when they
// are few (a turn's), one sync of their file system when they are many
// (a session's first scan).
func syncBlobs(dir string, added []string) {
	if len(added) > 64 {
		syncFS(dir)
		return
	}
	for _, p := range added {
		if f, err := os.Open(p); err == nil {
			f.Sync()
			f.Close()
		}
	}
	if len(added) > 0 {
		if d, err := os.Open(dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
}

// Blob reads a kept content.
func (s Store) Blob(hash string) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(s.Blobs, hash))
	if err == nil && fmt.Sprintf("%x", sha256.Sum256(data)) != hash {
		return nil, fmt.Errorf("blob %s is damaged", hash)
	}
	return data, err
}

// Failure is a path a rewind could not write back, and why.
type Failure struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Check reads every blob the actions need before anything is written: an
// action whose blob is missing gets its Lost reason.
func (s Store) Check(acts []cp.Action) (map[string][]byte, []cp.Action) {
	data := map[string][]byte{}
	for k, a := range acts {
		if a.Lost != "" || a.Want == nil || a.Want.Blob == "" {
			continue
		}
		b, err := s.Blob(a.Want.Blob)
		if err != nil {
			acts[k].Lost = fmt.Sprintf("its content is not in the blob store (%v)", errors.Unwrap(err))
			if errors.Unwrap(err) == nil {
				acts[k].Lost = "its content is not in the blob store: " + err.Error()
			}
			continue
		}
		data[a.Want.Blob] = b
	}
	return data, acts
}

// Lost are the actions that cannot be taken, as failures.
func Lost(acts []cp.Action) []Failure {
	out := []Failure{}
	for _, a := range acts {
		if a.Lost != "" {
			out = append(out, Failure{a.Path, a.Lost})
		}
	}
	return out
}

// Restore takes the actions under root (through an os.Root: no link
// leads out of it): writes each file whole (a temporary file renamed over
// it) with its mode, or removes it. Lost actions and failed ones are
// returned, none skipped.
func Restore(root string, acts []cp.Action, blobs map[string][]byte) []Failure {
	fails := []Failure{}
	r, err := os.OpenRoot(root)
	if err != nil {
		for _, a := range acts {
			fails = append(fails, Failure{a.Path, err.Error()})
		}
		return fails
	}
	defer r.Close()
	// Removals first, deepest first, then writes in order: a file that
	// replaced a directory (or the other way) is out of the way in time.
	order := make([]cp.Action, 0, len(acts))
	for i := len(acts) - 1; i >= 0; i-- {
		if acts[i].Want == nil {
			order = append(order, acts[i])
		}
	}
	for _, a := range acts {
		if a.Want != nil {
			order = append(order, a)
		}
	}
	for _, a := range order {
		if a.Lost != "" {
			fails = append(fails, Failure{a.Path, a.Lost})
			continue
		}
		if err := restoreOne(r, a, blobs); err != nil {
			fails = append(fails, Failure{a.Path, err.Error()})
		}
	}
	return fails
}

func restoreOne(r *os.Root, a cp.Action, blobs map[string][]byte) error {
	name := filepath.FromSlash(a.Path)
	if a.Want == nil {
		err := r.Remove(name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if st, err := r.Lstat(name); err == nil && st.IsDir() {
		// Only an empty one goes: what a directory holds now is the
		// rewind's to bring back or remove, path by path (a .git in it
		// never).
		if err := r.Remove(name); err != nil {
			return fmt.Errorf("a directory stands there now: %v", err)
		}
	}
	if err := r.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	if a.Want.Mode&cp.ModeLink != 0 {
		r.Remove(name)
		return r.Symlink(a.Want.Link, name)
	}
	perm := fs.FileMode(a.Want.Mode & 0o777)
	if err := atomicfile.WriteFS(r, name, blobs[a.Want.Blob], perm); err != nil {
		return err
	}
	return r.Chmod(name, perm)
}

// After is the manifest of files once the actions were taken: the files
// restored as they are now on disk, with the content they were given;
// those removed gone; those that failed as they were.
func After(m cp.Manifest, acts []cp.Action, fails []Failure) cp.Manifest {
	failed := map[string]bool{}
	for _, f := range fails {
		failed[f.Path] = true
	}
	done := map[string]*cp.State{}
	for _, a := range acts {
		if !failed[a.Path] {
			done[a.Path] = a.Want
		}
	}
	kept, restored := make([]cp.File, 0, len(m.Files)), []cp.File(nil)
	for _, f := range m.Files {
		if _, ok := done[f.Path]; !ok {
			kept = append(kept, f)
		}
	}
	for p, want := range done {
		if want == nil {
			continue
		}
		d, err := os.Open(filepath.Join(m.Root, filepath.Dir(filepath.FromSlash(p))))
		if err != nil {
			continue
		}
		f, _, ok := stat(d, filepath.Base(p))
		d.Close()
		if !ok {
			continue
		}
		f.Path, f.Link = p, want.Link
		if want.Blob != "" {
			f.Kept = true
			hex.Decode(f.Hash[:], []byte(want.Blob))
		}
		restored = append(restored, f)
	}
	slices.SortFunc(restored, func(a, b cp.File) int { return cp.Compare(a.Path, b.Path) })
	out := cp.Manifest{Root: m.Root, Began: m.Began, Files: make([]cp.File, 0, len(kept)+len(restored))}
	for len(kept) > 0 || len(restored) > 0 { // merge: both in Less order
		if len(restored) == 0 || (len(kept) > 0 && cp.Compare(kept[0].Path, restored[0].Path) < 0) {
			out.Files, kept = append(out.Files, kept[0]), kept[1:]
		} else {
			out.Files, restored = append(out.Files, restored[0]), restored[1:]
		}
	}
	return out
}

// walker lists a tree's files in cp.Less order.
type walker struct {
	root    string
	exclude []string
	files   []cp.File
	warn    []string
}

func (w *walker) excluded(abs string) bool {
	for _, x := range w.exclude {
		if abs == x {
			return true
		}
	}
	return false
}

// dir walks the directory rel ("" the root).
func (w *walker) dir(rel string) error {
	abs := w.root
	if rel != "" {
		abs = filepath.Join(w.root, filepath.FromSlash(rel))
	}
	d, err := os.Open(abs)
	if err != nil {
		if rel == "" {
			return err
		}
		w.warn = append(w.warn, fmt.Sprintf("%s: %v", rel, err))
		return nil
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil && !errors.Is(err, io.EOF) {
		w.warn = append(w.warn, fmt.Sprintf("%s: %v", rel, err))
	}
	slices.Sort(names) // no name holds a '/': cp.Less order within a directory
	for _, name := range names {
		if name == ".git" {
			continue
		}
		p := name
		if rel != "" {
			p = rel + "/" + name
		}
		f, isDir, ok := stat(d, name)
		if !ok {
			continue // gone since listed, or not a file nor a link nor a directory
		}
		if isDir {
			if !w.excluded(filepath.Join(abs, name)) {
				if err := w.dir(p); err != nil {
					return err
				}
			}
			continue
		}
		f.Path = p
		if f.Mode&cp.ModeLink != 0 {
			l, err := os.Readlink(filepath.Join(abs, name))
			if err != nil {
				w.warn = append(w.warn, fmt.Sprintf("%s: %v", p, err))
				continue
			}
			f.Link = l
		}
		w.files = append(w.files, f)
	}
	return nil
}
