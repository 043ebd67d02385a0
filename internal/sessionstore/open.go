package sessionstore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/agentutils/agentutils/lib/compact"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
)

// OpenOptions say what Open prints (agent-session open's flags).
type OpenOptions struct {
	Path string
	// All: every entry in file order; Tree: the entry tree as one JSON
	// document; Resolved: the context as the model sees it; History: the
	// whole active path (default: the context from the newest compaction on).
	All, Tree, Resolved, History bool
	// Leaf is the entry to open at, when LeafSet (else the current leaf).
	Leaf    string
	LeafSet bool
	// Blobs is the blob store; Resolve turns blob references into base64.
	Blobs   string
	Resolve bool
	// End ends the stream with {"type":"context_end"}.
	End bool
	// Filter, when set, writes each record to w in its stead (--jq); its
	// error is Open's, after the rest is written.
	Filter func(raw []byte, w io.Writer) error
	Out    io.Writer // the stream (a file takes large ranges by sendfile)
	Now    func() time.Time
	Dir    string       // the cwd of a fresh header
	Warn   func(string) // the file's problems, an index rebuilt, blobs missing
}

// Open is agent-session open: the session stream of a file (the header
// with the stream-only fields, then the entries of the active path, cut at
// the newest compaction), served from the index beside a plain file while
// it agrees with the file, else from a whole read; a missing or empty file
// gives a fresh header.
func Open(o OpenOptions) error {
	op := &opener{o: o, path: o.Path, blobs: o.Blobs, resolve: o.Resolve, leaf: o.Leaf, leafSet: o.LeafSet, history: o.History}
	w := bufio.NewWriterSize(o.Out, 64<<10)
	op.w = w
	if err := op.run(); err != nil {
		w.Flush()
		return err
	}
	if o.End {
		op.emit([]byte(`{"type":"context_end"}`))
	}
	if op.err != nil {
		return op.err
	}
	return w.Flush()
}

// ProblemWarnings are the warnings of a file's problems (session.Lines'),
// "path:line: ...", the same for every subcommand.
func ProblemWarnings(path string, ps []session.Problem) []string {
	var out []string
	for _, p := range ps {
		if p.Kept {
			out = append(out, fmt.Sprintf("%s:%d: %v", path, p.Line, p.Err))
			continue
		}
		out = append(out, fmt.Sprintf("%s:%d: skipped: %v", path, p.Line, p.Err))
	}
	return out
}

func (o *opener) warnProblems(ps []session.Problem) {
	for _, w := range ProblemWarnings(o.path, ps) {
		o.o.Warn(w)
	}
}

type opener struct {
	o       OpenOptions
	path    string
	blobs   string
	resolve bool
	leaf    string
	leafSet bool
	history bool // the whole path, not cut at a compaction
	w       *bufio.Writer
	err     error
}

func (o *opener) run() error {
	c := o.o
	if !c.Tree && !c.Resolved && !IsZst(o.path) {
		done, err := o.fast(c.All)
		if done || err != nil {
			return err
		}
	}
	l, err := Load(o.path)
	if errors.Is(err, ErrNoSession) {
		return o.fresh()
	}
	if err != nil {
		return err
	}
	o.warnProblems(l.Problems)
	leaf := l.Leaf()
	if o.leafSet {
		if _, ok := l.Find(o.leaf); !ok && o.leaf != "" {
			return exit.Errorf(exit.Usage, "%s: no entry with id %q (--leaf)", o.path, o.leaf)
		}
		leaf = o.leaf
	}
	switch {
	case c.Tree:
		b, err := json.Marshal(session.Flatten(session.Tree(l.Entries)))
		if err != nil {
			return err
		}
		o.emit(b)
		return nil
	case c.Resolved:
		return o.resolved(l, leaf)
	}
	recs := session.Path(l.Entries, leaf)
	if c.All {
		o.emitHeader(l.Header, leaf, streamCut{})
		for _, r := range l.Entries {
			o.emitEntry(r.Raw)
		}
		return nil
	}
	order := make([]int32, len(recs))
	for i := range order {
		order[i] = int32(i)
	}
	order, cut, err := o.cutPath(order, func(i int) string { return recs[i].Type },
		func(i int) ([]byte, error) { return recs[i].Raw, nil },
		func(id string) int { return slices.IndexFunc(recs, func(r session.Record) bool { return r.ID == id }) })
	if err != nil {
		return err
	}
	o.emitHeader(l.Header, leaf, cut)
	for _, i := range order {
		o.emitEntry(recs[i].Raw)
	}
	return nil
}

// streamCut is what a cut stream's header says (formats/session): the
// carried entries after it, and the path's entries left out.
type streamCut struct{ carried, omitted int }

// cutPath is the entries of a path (order: the entry of each path
// position) that the stream prints: unless --history, the carried ones,
// then the context from the newest compaction's first kept entry on
// (compact.CutPath). typ is the type of the entry at a path position, line
// its bytes, pos the position of the entry with an id (-1: not on the
// path).
func (o *opener) cutPath(order []int32, typ func(i int) string, line func(i int) ([]byte, error), pos func(id string) int) ([]int32, streamCut, error) {
	if o.history {
		return order, streamCut{}, nil
	}
	entry := func(i int) (compact.Entry, error) {
		raw, err := line(i)
		if err != nil {
			return compact.Entry{}, err
		}
		return compact.ReadHead(raw)
	}
	cut, err := compact.CutPath(len(order), typ, entry, pos)
	if err != nil || cut.From == 0 {
		return order, streamCut{}, err
	}
	out := make([]int32, 0, len(cut.Carried)+len(order)-cut.From)
	for _, i := range cut.Carried {
		out = append(out, order[i])
	}
	out = append(out, order[cut.From:]...)
	return out, streamCut{len(cut.Carried), cut.From - len(cut.Carried)}, nil
}

// fresh prints a new header for a missing or empty file; nothing is written.
func (o *opener) fresh() error {
	now := o.o.Now()
	h := session.NewHeader(NewSessionID(now), session.FormatTime(now), o.o.Dir)
	o.emitHeader(h, "", streamCut{})
	return nil
}

func (o *opener) emitHeader(h []byte, leaf string, cut streamCut) {
	obj, err := session.ParseObject(h)
	if err != nil {
		o.err = err
		return
	}
	obj.Set("file", jsonValue(o.path))
	if leaf == "" {
		obj.Set("leafId", json.RawMessage("null"))
	} else {
		obj.Set("leafId", jsonValue(leaf))
	}
	if cut != (streamCut{}) {
		obj.Set("carried", jsonValue(cut.carried))
		obj.Set("omitted", jsonValue(cut.omitted))
	}
	o.emit(obj.Bytes())
}

func (o *opener) emitEntry(raw []byte) {
	if o.resolve && bytes.Contains(raw, []byte("blob:sha256:")) {
		out, warns, err := session.ResolveBlobs(raw, o.getBlob)
		if err == nil {
			raw = out
		}
		for _, w := range warns {
			o.o.Warn(fmt.Sprintf("%s: %s", o.path, w))
		}
	}
	if !utf8.Valid(raw) { // reported when indexed; the output stays valid JSON text
		raw = bytes.ToValidUTF8(raw, []byte("\uFFFD"))
	}
	o.emit(raw)
}

func (o *opener) getBlob(hash string) ([]byte, error) {
	return os.ReadFile(o.blobs + string(os.PathSeparator) + hash)
}

// emit writes one record, through the filter when there is one.
func (o *opener) emit(raw []byte) {
	if o.o.Filter == nil {
		o.w.Write(raw)
		o.w.WriteByte('\n')
		return
	}
	if err := o.o.Filter(raw, o.w); err != nil {
		o.err = err
	}
}

// resolved prints the context the model would see: the header, one state
// record, then the messages of BuildContext (an inspection view).
func (o *opener) resolved(l *Loaded, leaf string) error {
	ctx, err := session.BuildContext(l.Entries, &leaf)
	if err != nil {
		return exit.Wrap(exit.Usage, fmt.Errorf("%s: %w", o.path, err))
	}
	o.emitHeader(l.Header, leaf, streamCut{})
	o.emit(jsonValue(struct {
		Type              string            `json:"type"`
		ThinkingLevel     string            `json:"thinkingLevel"`
		Models            map[string]string `json:"models"`
		Mode              string            `json:"mode"`
		ModeData          json.RawMessage   `json:"modeData,omitempty"`
		InjectedTtsrRules []string          `json:"injectedTtsrRules"`
	}{"state", ctx.ThinkingLevel, ctx.Models, ctx.Mode, ctx.ModeData, ctx.InjectedTtsrRules}))
	for _, m := range ctx.Messages {
		o.emit(append(append([]byte(`{"type":"message","message":`), m...), '}'))
	}
	return nil
}

// ---- the streaming path for large plain files ----

// fast serves open from an index of ids and offsets, reading the file twice
// (index, then the path's lines), never holding all entries. It declines
// (done=false) for files that need a migration.
func (o *opener) fast(all bool) (done bool, err error) {
	f, err := os.Open(o.path)
	if errors.Is(err, os.ErrNotExist) {
		return true, o.fresh()
	}
	if err != nil {
		return true, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return true, exit.Errorf(exit.Usage, "%s: is a directory, not a session file", o.path)
	}
	st, err := f.Stat()
	if err != nil {
		return true, err
	}
	// The default view (the path to the last entry) comes from the index
	// beside the file while it agrees with the file.
	indexed := !all && !o.history && !o.leafSet && o.o.Filter == nil && !HasSidecar(o.path)
	if indexed {
		if done, err := o.fromIndex(f, st); done || err != nil {
			return true, err
		}
	}
	idx, header, err := BuildLineIndex(f, o.path)
	if err == ErrMigrate {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	if header == nil {
		return true, o.fresh()
	}
	o.warnProblems(idx.Lines.Problems)
	leaf := int32(len(idx.Off)) - 1
	if o.leafSet {
		if leaf, err = idx.Find(o.leaf); err != nil {
			return true, exit.Errorf(exit.Usage, "%s: no entry with id %q (--leaf)", o.path, o.leaf)
		}
	} else if id, ok := ReadSidecar(o.path); ok {
		if j, err := idx.Find(id); err == nil {
			leaf = j
		}
	}
	leafID := ""
	if leaf >= 0 {
		if leafID, err = idx.ID(f, leaf); err != nil {
			return true, err
		}
	}
	order, cycle := idx.Order(leaf, all)
	if cycle >= 0 { // the walk came back to an entry: a parent cycle, cut here
		id, err := idx.ID(f, cycle)
		if err != nil {
			return true, err
		}
		o.o.Warn(fmt.Sprintf("%s: parent cycle through entry %q (cut where it closes)", o.path, id))
	}
	var cut streamCut
	if !all {
		if order, cut, err = o.cutIndexed(f, idx, order); err != nil {
			return true, err
		}
	}
	o.emitHeader(header, leafID, cut)
	carry, context := idx.Runs(order[:cut.carried]), idx.Runs(order[cut.carried:])
	if indexed && cycle < 0 {
		SaveIndex(o.path, st, idx, carry, context, cut.carried, cut.omitted, leafID, leaf)
	}
	if o.o.Filter != nil {
		return true, o.copyEach(f, idx, order)
	}
	if err := o.copyRuns(f, carry); err != nil {
		return true, err
	}
	return true, o.copyRuns(f, context)
}

// cutIndexed is cutPath over the path order of an index's entries.
func (o *opener) cutIndexed(f *os.File, idx *LineIndex, order []int32) ([]int32, streamCut, error) {
	return o.cutPath(order, func(i int) string { return KindType[idx.Kind[order[i]]] },
		func(i int) ([]byte, error) { return ReadAt(f, idx.Off[order[i]], idx.N[order[i]]) },
		func(id string) int {
			j, ok := idx.Lines.IDs.Get(id)
			if !ok {
				return -1
			}
			return slices.Index(order, j)
		})
}

// fromIndex prints the path from the index when it agrees with the file
// (done=false: it does not; read the whole file).
func (o *opener) fromIndex(f *os.File, st os.FileInfo) (done bool, err error) {
	x, ok, warn := ReadIndex(o.path)
	if warn != nil {
		o.o.Warn(fmt.Sprintf("%s: not a session index (%v): rebuilt from %s", IndexPath(o.path), warn, o.path))
	}
	if !ok {
		return false, nil
	}
	a, why, ok := Agrees(f, st, x)
	if why != "" {
		o.o.Warn(fmt.Sprintf("%s: the index disagrees with the file (%s): rebuilt from the file", IndexPath(o.path), why))
	}
	if !ok {
		return false, nil
	}
	e, ok, err := Extend(f, st, o.path, x, a)
	if !ok || err != nil {
		return err != nil, err
	}
	o.warnProblems(e.Problems)
	o.emitHeader(a.Header, e.LeafID, streamCut{x.Carried, x.Omitted})
	if err := o.copyRuns(f, e.Carry); err != nil {
		return true, err
	}
	return true, o.copyRuns(f, e.Context)
}

// copyEach writes the lines in order one by one (through --jq).
func (o *opener) copyEach(f *os.File, idx *LineIndex, order []int32) error {
	for _, i := range order {
		raw, err := ReadAt(f, idx.Off[i], idx.N[i])
		if err != nil {
			return err
		}
		o.emitEntry(raw)
	}
	return o.err
}

// copyRuns writes the runs: straight from the file, or through emitEntry
// for a line alone (blobs to resolve, bytes to repair).
func (o *opener) copyRuns(f *os.File, runs []session.Run) error {
	for _, r := range runs {
		if r.Alone {
			raw, err := ReadAt(f, r.Off, int32(r.Len))
			if err != nil {
				return err
			}
			o.emitEntry(raw)
			continue
		}
		if err := o.copyRange(f, r.Off, r.Len); err != nil {
			return err
		}
		o.w.WriteByte('\n')
	}
	return o.err
}

// copyRange writes f's bytes [off, off+n): by sendfile when stdout is a
// file that takes it and the range is long enough to be worth a flush,
// else through the buffer.
func (o *opener) copyRange(f *os.File, off, n int64) error {
	if out, ok := o.o.Out.(*os.File); ok && n >= 256<<10 {
		if err := o.w.Flush(); err != nil {
			return err
		}
		if sent, err := SendRange(out, f, off, n); sent || err != nil {
			return err
		}
	}
	_, err := io.Copy(o.w, io.NewSectionReader(f, off, n))
	return err
}
