package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"unicode/utf8"

	"github.com/itchyny/gojq"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/compact"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
)

func openCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "open",
		Usage:     "print the session stream: the header, then the context's entries of the active path",
		ArgsUsage: "FILE",
		Description: `Prints the header (plus the stream-only fields "file" and "leafId") and the entries
of the active path, root to leaf, exactly as stored: the session stream that agent-compact and
agent-chat read. On a path with a compaction the stream is the context: the entries from the newest
compaction's first kept entry on, after the few entries before it whose state the context still
folds (model and thinking-level changes, injected rules, mode; the newest assistant message naming
its model and the newest with a usage); the header's "carried" and "omitted" count those and the
entries left out (formats/session). --history prints the whole path. A missing or empty FILE gives a fresh header and writes nothing (append creates the
file). Older files (v1, v2) are migrated in memory. Blob references are resolved to inline base64
unless --blobs ref. Lines that are not records, torn, or repeat an id are reported on stderr
(file:line) and skipped or read as the rules of formats/session say, the same for every
subcommand.

The path to the last entry is printed from an index beside the file (S/index for S.jsonl,
formats/session-index), written after a whole read of a file of 1 MiB or more and extended by
later opens with what was appended; the file stays the only truth: a rewrite (in place too: the
index holds a checksum of the bytes it prints), a branch or a torn line means a whole read, and an
index that disagrees with the file is reported and rebuilt. Deleting it is harmless.

Examples:
   agent-session open s.jsonl | agent-chat "go on" | agent-session append s.jsonl
   agent-session open --history s.jsonl              # the whole active path, not cut at a compaction
   agent-session open --all s.jsonl                  # every entry, file order
   agent-session open --resolved s.jsonl             # the model's view: state + messages
   agent-session open --jq 'select(.type=="message") | .message.role' s.jsonl`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "every entry in file order, not just the active path"},
			&cli.BoolFlag{Name: "history", Usage: "the whole active path, root to leaf, not only the context from the newest compaction on"},
			&cli.BoolFlag{Name: "resolved", Usage: "the context as the model sees it: a state record, then message records (not a pipeline stream)"},
			&cli.BoolFlag{Name: "tree", Usage: "the entry tree as one JSON document [{entry, label?, children}]"},
			&cli.StringFlag{Name: "leaf", Usage: "open at entry `ID` instead of the current leaf"},
			&cli.StringFlag{Name: "jq", Usage: "apply the jq `FILTER` to every record and print the results"},
			&cli.StringFlag{Name: "blobs", Value: "inline", Usage: "`inline` resolves blob:sha256: references to base64, ref keeps them"},
			&cli.BoolFlag{Name: "end", Usage: `end the stream with {"type":"context_end"}`},
		},
		Action: func(c *cli.Context) error {
			env.ErrorRecord = true
			path, err := needPath(c, env, "FILE")
			if err != nil {
				return err
			}
			o := opener{env: env, c: c, path: path, blobs: dirs.Resolve(env.Getenv).Blobs(), history: c.Bool("history")}
			switch c.String("blobs") {
			case "inline":
				o.resolve = true
			case "ref":
			default:
				return exit.Errorf(exit.Usage, "--blobs takes inline or ref, not %q", c.String("blobs"))
			}
			if c.IsSet("leaf") {
				o.leaf, o.leafSet = c.String("leaf"), true
			}
			if q := c.String("jq"); q != "" {
				code, err := compileJQ(q)
				if err != nil {
					return err
				}
				o.jq = code
			}
			w := bufio.NewWriterSize(env.Stdout, 64<<10)
			o.w = w
			if err := o.run(); err != nil {
				w.Flush()
				return err
			}
			if c.Bool("end") {
				o.emit([]byte(`{"type":"context_end"}`))
			}
			if o.err != nil {
				return o.err
			}
			return w.Flush()
		},
	}
}

type opener struct {
	env     *app.Env
	c       *cli.Context
	path    string
	blobs   string
	resolve bool
	leaf    string
	leafSet bool
	history bool // --history: the whole path, not cut at a compaction
	jq      *gojq.Code
	w       *bufio.Writer
	err     error
}

func (o *opener) run() error {
	c := o.c
	if !c.Bool("tree") && !c.Bool("resolved") && !sessionstore.IsZst(o.path) {
		done, err := o.fast(c.Bool("all"))
		if done || err != nil {
			return err
		}
	}
	l, err := sessionstore.Load(o.path)
	if errors.Is(err, sessionstore.ErrNoSession) {
		return o.fresh()
	}
	if err != nil {
		return err
	}
	warnProblems(c, o.path, l.Problems)
	leaf := l.Leaf()
	if o.leafSet {
		if _, ok := l.Find(o.leaf); !ok && o.leaf != "" {
			return exit.Errorf(exit.Usage, "%s: no entry with id %q (--leaf)", o.path, o.leaf)
		}
		leaf = o.leaf
	}
	switch {
	case c.Bool("tree"):
		b, err := json.Marshal(session.Tree(l.Entries))
		if err != nil {
			return err
		}
		o.emit(b)
		return nil
	case c.Bool("resolved"):
		return o.resolved(l, leaf)
	}
	recs := session.Path(l.Entries, leaf)
	if c.Bool("all") {
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
	now := o.env.Now()
	h := session.NewHeader(newSessionID(o.env), session.FormatTime(now), o.env.Dir)
	o.emitHeader(h, "", streamCut{})
	return nil
}

func (o *opener) emitHeader(h []byte, leaf string, cut streamCut) {
	obj, err := session.ParseObject(h)
	if err != nil {
		o.err = err
		return
	}
	obj.Set("file", mustJSON(o.path))
	if leaf == "" {
		obj.Set("leafId", json.RawMessage("null"))
	} else {
		obj.Set("leafId", mustJSON(leaf))
	}
	if cut != (streamCut{}) {
		obj.Set("carried", mustJSON(cut.carried))
		obj.Set("omitted", mustJSON(cut.omitted))
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
			app.Warnf(o.c, "%s: %s", o.path, w)
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

// emit writes one record, through the jq filter when there is one.
func (o *opener) emit(raw []byte) {
	if o.jq == nil {
		o.w.Write(raw)
		o.w.WriteByte('\n')
		return
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		o.err = err
		return
	}
	iter := o.jq.Run(v)
	for {
		x, ok := iter.Next()
		if !ok {
			return
		}
		if err, ok := x.(error); ok {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return
			}
			o.err = exit.Errorf(exit.Failure, "--jq: %v", err)
			return
		}
		b, err := gojq.Marshal(x)
		if err != nil {
			o.err = err
			return
		}
		o.w.Write(b)
		o.w.WriteByte('\n')
	}
}

func compileJQ(q string) (*gojq.Code, error) {
	p, err := gojq.Parse(q)
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "--jq %q: %v", q, err)
	}
	code, err := gojq.Compile(p)
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "--jq %q: %v", q, err)
	}
	return code, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only strings and plain values are passed
	}
	return b
}

// resolved prints the context the model would see: the header, one state
// record, then the messages of BuildContext (an inspection view).
func (o *opener) resolved(l *sessionstore.Loaded, leaf string) error {
	ctx, err := session.BuildContext(l.Entries, &leaf)
	if err != nil {
		return exit.Wrap(exit.Usage, fmt.Errorf("%s: %w", o.path, err))
	}
	o.emitHeader(l.Header, leaf, streamCut{})
	o.emit(mustJSON(struct {
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
	indexed := !all && !o.history && !o.leafSet && o.jq == nil && !sessionstore.HasSidecar(o.path)
	if indexed {
		if done, err := o.fromIndex(f, st); done || err != nil {
			return true, err
		}
	}
	idx, header, err := sessionstore.BuildLineIndex(f, o.path)
	if err == sessionstore.ErrMigrate {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	if header == nil {
		return true, o.fresh()
	}
	warnProblems(o.c, o.path, idx.Lines.Problems)
	leaf := int32(len(idx.Off)) - 1
	if o.leafSet {
		if leaf, err = idx.Find(o.leaf); err != nil {
			return true, exit.Errorf(exit.Usage, "%s: no entry with id %q (--leaf)", o.path, o.leaf)
		}
	} else if id, ok := sessionstore.ReadSidecar(o.path); ok {
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
		app.Warnf(o.c, "%s: parent cycle through entry %q (cut where it closes)", o.path, id)
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
		sessionstore.SaveIndex(o.path, st, idx, carry, context, cut.carried, cut.omitted, leafID, leaf)
	}
	if o.jq != nil {
		return true, o.copyEach(f, idx, order)
	}
	if err := o.copyRuns(f, carry); err != nil {
		return true, err
	}
	return true, o.copyRuns(f, context)
}

// cutIndexed is cutPath over the path order of an index's entries.
func (o *opener) cutIndexed(f *os.File, idx *sessionstore.LineIndex, order []int32) ([]int32, streamCut, error) {
	return o.cutPath(order, func(i int) string { return sessionstore.KindType[idx.Kind[order[i]]] },
		func(i int) ([]byte, error) { return sessionstore.ReadAt(f, idx.Off[order[i]], idx.N[order[i]]) },
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
	x, ok, warn := sessionstore.ReadIndex(o.path)
	if warn != nil {
		app.Warnf(o.c, "%s: not a session index (%v): rebuilt from %s", sessionstore.IndexPath(o.path), warn, o.path)
	}
	if !ok {
		return false, nil
	}
	a, why, ok := sessionstore.Agrees(f, st, x)
	if why != "" {
		app.Warnf(o.c, "%s: the index disagrees with the file (%s): rebuilt from the file", sessionstore.IndexPath(o.path), why)
	}
	if !ok {
		return false, nil
	}
	e, ok, err := sessionstore.Extend(f, st, o.path, x, a)
	if !ok || err != nil {
		return err != nil, err
	}
	warnProblems(o.c, o.path, e.Problems)
	o.emitHeader(a.Header, e.LeafID, streamCut{x.Carried, x.Omitted})
	if err := o.copyRuns(f, e.Carry); err != nil {
		return true, err
	}
	return true, o.copyRuns(f, e.Context)
}

// copyEach writes the lines in order one by one (through --jq).
func (o *opener) copyEach(f *os.File, idx *sessionstore.LineIndex, order []int32) error {
	for _, i := range order {
		raw, err := sessionstore.ReadAt(f, idx.Off[i], idx.N[i])
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
			raw, err := sessionstore.ReadAt(f, r.Off, int32(r.Len))
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
	if out, ok := o.env.Stdout.(*os.File); ok && n >= 256<<10 {
		if err := o.w.Flush(); err != nil {
			return err
		}
		if sent, err := sessionstore.SendRange(out, f, off, n); sent || err != nil {
			return err
		}
	}
	_, err := io.Copy(o.w, io.NewSectionReader(f, off, n))
	return err
}
