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
	"strings"

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

// open reads the manifest of session file sid and its journal; ok is
// false when there is none (or it is damaged, or of another root): the
// next scan is a baseline.
func (s Store) open(sid, root string) (x *cp.Index, ok bool) {
	data, err := os.ReadFile(s.manifestPath(sid))
	if err != nil {
		return nil, false
	}
	x, err = cp.OpenManifest(data)
	if err != nil || x.Root != root {
		return nil, false
	}
	if j, err := os.ReadFile(s.manifestPath(sid) + ".log"); err == nil {
		x.Apply(j)
	}
	return x, true
}

// Save records session sid's manifest (a cache of the last scan: temp
// and rename, or a record appended to its journal, no fsync; a lost one
// makes the next scan a baseline). A partial one (Tops) is a journal
// record, unless the journal grew past a quarter of the manifest file or
// maxRecords (or did not read): then the whole is written again.
func (s Store) Save(sid string, m cp.Manifest) error {
	if err := os.MkdirAll(s.Manifests, 0o755); err != nil {
		return err
	}
	p := s.manifestPath(sid)
	if m.Tops != nil {
		x := m.Over
		r := cp.Record{Began: m.Began, Watch: m.Watch, Count: m.Count, Spans: spans(m)}
		base, _ := os.Stat(p)
		j, jerr := os.Stat(p + ".log")
		if !(x.Torn && jerr == nil) && x.Records() < maxRecords && !(base != nil && j != nil && j.Size() > base.Size()/4) {
			var b []byte
			if jerr != nil {
				b = x.JournalHead()
			}
			f, err := os.OpenFile(p+".log", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			if err != nil {
				return err
			}
			_, err = f.Write(cp.AppendRecord(b, r))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		}
		files, ok := x.Files()
		if !ok {
			return fmt.Errorf("the manifest %s does not decode", p)
		}
		m = cp.Manifest{Root: m.Root, Began: m.Began, Watch: m.Watch, Count: m.Count, Files: cp.Patch(files, r.Spans)}
	}
	tmp := fmt.Sprintf("%s.%d.tmp", p, os.Getpid())
	if err := os.WriteFile(tmp, cp.EncodeManifest(m), 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		return err
	}
	// The journal was the old file's (its head says so: were it left, it
	// would not be applied).
	if err := os.Remove(p + ".log"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// maxRecords bounds the journal: reading the manifest whole applies each
// record to all the files.
const maxRecords = 64

// spans are a partial manifest's files grouped by the tops they are at
// or below (both in Less order, the tops disjoint).
func spans(m cp.Manifest) []cp.Span {
	out := make([]cp.Span, len(m.Tops))
	i := 0
	for k, t := range m.Tops {
		out[k].Path = t
		j := i
		for j < len(m.Files) && (m.Files[j].Path == t || cp.Under(m.Files[j].Path, t)) {
			j++
		}
		out[k].Files = m.Files[i:j:j]
		i = j
	}
	return out
}

// Scan is one scan: the manifest it makes, the one before and what to say.
type Scan struct {
	Old, New cp.Manifest // whole, or partial (Tops) when a watcher vouched for the rest
	Base     bool        // no manifest before
	Warnings []string    // directories or files that could not be read
}

// Entry is the scan's checkpoint entry.
func (sc Scan) Entry() cp.Entry {
	e := cp.NewEntry(sc.New.Root, sc.Base, sc.Old.Files, sc.New.Files)
	e.Files = sc.New.Count
	return e
}

// Take scans root for session sid against its manifest, keeps the content
// of what changed in the blob store (all of it for a baseline) and saves
// the new manifest; began is the scan's start on the file times' clock.
func (s Store) Take(sid, root string, began int64) (Scan, error) {
	sc, err := s.Scan(sid, root, began, true, nil)
	if err != nil {
		return sc, err
	}
	return sc, s.Save(sid, sc.New)
}

// Scan walks root against session sid's manifest and hashes what
// changed; with keep their content goes to the blob store. The manifest
// is not saved (Take saves it; a rewind saves it after its entry). When
// root's watcher (agent-session watch) vouches for what did not change,
// only what it saw change is looked at, and the paths also (a rewind's):
// Old and New are then partial (Tops), else whole.
func (s Store) Scan(sid, root string, began int64, keep bool, also []string) (Scan, error) {
	var sc Scan
	x, ok := s.open(sid, root)
	sc.Base = !ok
	w := walker{root: root, exclude: s.Exclude}
	since := ""
	if ok {
		since = x.Watch
	}
	r, asked := s.askWatcher(root, since)
	if asked && !r.Fresh && ok {
		var err error
		if sc.Old, sc.New, err = partial(x, &w, append(r.Paths, also...)); err != nil {
			return sc, err
		}
	} else {
		if ok {
			var whole bool
			sc.Old = cp.Manifest{Root: root, Began: x.Began}
			if sc.Old.Files, whole = x.Files(); !whole {
				sc.Old, sc.Base = cp.Manifest{}, true
			}
		}
		w.files = make([]cp.File, 0, len(sc.Old.Files)+len(sc.Old.Files)/8+16)
		if err := w.dir(""); err != nil {
			return sc, err
		}
		sc.New = cp.Manifest{Root: root, Count: len(w.files), Files: w.files}
	}
	sc.New.Began, sc.New.Watch = began, r.Token
	sc.Warnings = w.warn
	files := sc.New.Files
	var added []string
	for _, i := range cp.Reuse(sc.Old, files) {
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
	syncBlobs(s.Blobs, added)
	return sc, nil
}

// partial is the old and new files at and below paths: the manifest's,
// and what is there now.
func partial(x *cp.Index, w *walker, paths []string) (old, cur cp.Manifest, err error) {
	tops := cp.Tops(paths)
	old = cp.Manifest{Root: x.Root, Began: x.Began, Watch: x.Watch, Count: x.Count, Tops: tops, Over: x}
	for _, p := range tops {
		files, ok := x.Sub(p)
		if !ok {
			return old, cur, errors.New("the checkpoint manifest is damaged")
		}
		old.Files = append(old.Files, files...)
		if err := w.subtree(p); err != nil {
			return old, cur, err
		}
	}
	cur = cp.Manifest{Root: x.Root, Count: x.Count - len(old.Files) + len(w.files), Tops: tops, Over: x, Files: w.files}
	return old, cur, nil
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
	out := cp.Manifest{Root: m.Root, Began: m.Began, Watch: m.Watch, Tops: m.Tops, Over: m.Over, Files: make([]cp.File, 0, len(kept)+len(restored))}
	for len(kept) > 0 || len(restored) > 0 { // merge: both in Less order
		if len(restored) == 0 || (len(kept) > 0 && cp.Compare(kept[0].Path, restored[0].Path) < 0) {
			out.Files, kept = append(out.Files, kept[0]), kept[1:]
		} else {
			out.Files, restored = append(out.Files, restored[0]), restored[1:]
		}
	}
	out.Count = m.Count - len(m.Files) + len(out.Files)
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

// subtree lists what is at rel now (a file, or a directory's files), as
// the whole walk would: nothing inside .git or the excluded directories,
// nothing through a link.
func (w *walker) subtree(rel string) error {
	if rel == "" {
		return w.dir("")
	}
	for _, part := range strings.Split(rel, "/") {
		if part == ".git" {
			return nil
		}
	}
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	for _, x := range w.exclude {
		if abs == x || strings.HasPrefix(abs, x+string(filepath.Separator)) {
			return nil
		}
	}
	d, err := os.Open(filepath.Dir(abs))
	if err != nil {
		return nil // its directory is gone: so is it
	}
	f, isDir, ok := stat(d, filepath.Base(abs))
	d.Close()
	switch {
	case !ok:
		return nil
	case isDir:
		return w.dir(rel)
	}
	f.Path = rel
	if f.Mode&cp.ModeLink != 0 {
		l, err := os.Readlink(abs)
		if err != nil {
			w.warn = append(w.warn, fmt.Sprintf("%s: %v", rel, err))
			return nil
		}
		f.Link = l
	}
	w.files = append(w.files, f)
	return nil
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
