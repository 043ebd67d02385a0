package sessionstore

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
)

// AppendOptions say what Append writes where (agent-session append's
// flags and environment).
type AppendOptions struct {
	Path string    // the session file (created when missing)
	In   io.Reader // the records and events to persist
	// Tee, when set, gets every input line once its group is durable.
	Tee io.Writer
	// Blobs is the blob store large images go to ("": written inline).
	Blobs string
	// Parent is the entry new entries go under, when ParentSet (else the
	// current leaf).
	Parent    string
	ParentSet bool
	Now       func() time.Time
	Dir       string // the cwd of a new file's header
}

// Append is agent-session append, the single writer of a session file:
// it reads In, checks each group of records before writing any of it,
// holds the file's lock for the whole run, appends with O_APPEND and
// fsyncs before it acknowledges (Tee), replaces entries whose id exists
// (one atomic rewrite per run of replacements), migrates an old file
// first, and rolls a failed write back. Bad input is an exit.Usage error
// naming the line; nothing of its group is written.
func Append(ctx context.Context, o AppendOptions) error {
	a := &appender{ctx: ctx, o: o, path: o.Path, blobs: o.Blobs, parent: o.Parent, parentSet: o.ParentSet}
	return a.run()
}

// jsonValue is v as JSON (only strings and plain values are passed).
func jsonValue(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// PrepareEntry is v as a new entry of a file, as Append writes one: type,
// id, parentId and timestamp first, the persistence transforms applied,
// large images moved to the blob store blobs ("": kept inline).
func PrepareEntry(v *session.View, id, parent, ts, blobs string) ([]byte, error) {
	a := &appender{blobs: blobs}
	return a.prepare(withBase(v, id, parent, ts), 1)
}

type appender struct {
	ctx       context.Context
	o         AppendOptions
	path      string
	blobs     string // the blob store; "" writes images inline
	parent    string
	parentSet bool

	lf      *File
	leaf    string          // current leaf id ("" = none/root)
	ids     map[string]bool // ids in the file, Loaded only when needed
	added   map[string]bool // ids appended by this run
	created bool
	sidecar bool // a sidecar leaf is in force until the first append
	line    int
}

// bigFile is the size above which append avoids reading the file's ids for
// a collision check and gives new entries 16-hex ids (unique by construction).
const bigFile = 8 << 20

func (a *appender) run() error {
	in := bufio.NewReaderSize(a.o.In, 1<<20)
	var g group
	for {
		raw, err := ReadLine(in)
		if len(raw) > 0 || err == nil {
			a.line++
			if cerr := a.accept(&g, raw, a.line); cerr != nil {
				a.closeFile()
				return cerr
			}
		}
		if err != nil && err != io.EOF {
			return err
		}
		// Commit when the input is drained: group commit keeps fsyncs few
		// while a live stream is still persisted as it arrives. A group that
		// ends in replacements waits for the next record or the end of the
		// input, so a run of replacements costs one rewrite however the pipe
		// cuts it into reads.
		if err == io.EOF || in.Buffered() == 0 {
			hold, herr := a.endsInReplacement(&g, err == io.EOF)
			if herr != nil {
				a.closeFile()
				return herr
			}
			if !hold {
				if cerr := a.commit(&g); cerr != nil {
					a.closeFile()
					return cerr
				}
				g = group{raws: g.raws[:0], recs: g.recs[:0], recLines: g.recLines[:0]}
			}
		}
		if err == io.EOF {
			return a.closeFile()
		}
	}
}

// group is the input accepted since the last commit: every line (for
// --tee), the records to write and the header, all already checked.
type group struct {
	raws     [][]byte
	header   []byte
	recs     []session.View
	recLines []int
}

// endsInReplacement reports whether the group's last record replaces an
// entry of the file (its commit is then held until more input or EOF).
func (a *appender) endsInReplacement(g *group, eof bool) (bool, error) {
	if eof || len(g.recs) == 0 {
		return false, nil
	}
	id := g.recs[len(g.recs)-1].ID
	if id == "" || a.added[id] {
		return false, nil
	}
	if err := a.open(g.header); err != nil {
		return false, err
	}
	return a.exists(id)
}

func (a *appender) closeFile() error {
	if a.lf == nil {
		return nil
	}
	err := a.lf.Sync()
	if cerr := a.lf.Close(); err == nil {
		err = cerr
	}
	a.lf = nil
	return err
}

// ReadLine reads one line of any length without its newline (and "\r").
func ReadLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadBytes('\n')
	line = bytes.TrimSuffix(line, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	return line, err
}

// op is one planned change: an append of a new line or the replacement of an
// existing entry.
type op struct {
	raw     []byte
	id      string // the entry's id
	replace bool   // it replaces the entry with that id
}

// accept checks one input line and adds it to the group; an invalid line
// fails the whole group, nothing of which has been written.
func (a *appender) accept(g *group, raw []byte, lineNo int) error {
	g.raws = append(g.raws, raw)
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	v, err := session.Decode(raw)
	if err != nil {
		return exit.Errorf(exit.Usage, "stdin:%d: %v (nothing of this group was written)", lineNo, err)
	}
	if v.Type == "session" {
		if err := session.CheckView(&v); err != nil {
			return exit.Errorf(exit.Usage, "stdin:%d: invalid session header: %v (nothing of this group was written)", lineNo, err)
		}
		if g.header == nil {
			g.header = raw
		}
		return nil
	}
	entry, ok, err := session.FromView(&v)
	if err != nil {
		return exit.Errorf(exit.Usage, "stdin:%d: %v (nothing of this group was written)", lineNo, err)
	}
	if !ok {
		return nil
	}
	if err := session.CheckView(&entry); err != nil {
		return exit.Errorf(exit.Usage, "stdin:%d: invalid record: %v (nothing of this group was written)", lineNo, err)
	}
	g.recs = append(g.recs, entry)
	g.recLines = append(g.recLines, lineNo)
	return nil
}

// commit writes a checked group and fsyncs it, then tees it.
func (a *appender) commit(g *group) error {
	// A group of events only (a stream's deltas) writes nothing: no fsync
	// stands between them and --tee.
	wrote := len(g.recs) > 0 || (g.header != nil && a.lf == nil)
	if wrote {
		if err := a.open(g.header); err != nil {
			return err
		}
	}
	if len(g.recs) > 0 {
		ops, err := a.plan(g.recs, g.recLines)
		if err != nil {
			return err
		}
		if err := a.apply(ops); err != nil {
			return err
		}
	}
	if a.lf != nil && wrote {
		if err := a.lf.Sync(); err != nil {
			return err
		}
	}
	if a.o.Tee != nil {
		for _, raw := range g.raws {
			a.o.Tee.Write(raw)
			a.o.Tee.Write([]byte{'\n'})
		}
		if f, ok := a.o.Tee.(interface{ Flush() error }); ok {
			f.Flush()
		}
	}
	return nil
}

// open locks the file (creating it with a header when new), migrates an old
// file and finds the starting leaf, once per run.
func (a *appender) open(header []byte) error {
	if a.lf != nil {
		return nil
	}
	lf, err := Lock(a.ctx, a.path, true)
	if err != nil {
		return err
	}
	a.lf = lf
	size, err := lf.Size()
	if err != nil {
		return err
	}
	if size == 0 {
		h, err := a.newHeader(header)
		if err != nil {
			return err
		}
		if err := lf.AppendLines(append(h, '\n')); err != nil {
			return err
		}
		a.created = true
		a.ids = map[string]bool{}
	} else if err := a.migrateIfOld(); err != nil {
		return err
	}
	return a.startLeaf()
}

func (a *appender) newHeader(in []byte) ([]byte, error) {
	if in == nil {
		return session.NewHeader(NewSessionID(a.o.Now()), session.FormatTime(a.o.Now()), a.o.Dir), nil
	}
	if _, err := session.ParseHeader(in); err != nil {
		return nil, exit.Errorf(exit.Usage, "stdin: session header: %v", err)
	}
	return session.StripStreamFields(in), nil
}

// migrateIfOld rewrites a v1/v2 file as v3 under the lock before the first write.
func (a *appender) migrateIfOld() error {
	first, err := a.lf.FirstLine()
	if err != nil {
		return err
	}
	h, err := session.ParseHeader(first)
	if err != nil {
		return exit.Errorf(exit.Usage, "%s:1: not a session file: %v", a.path, err)
	}
	if h.Version >= 3 {
		return nil
	}
	data, err := a.lf.ReadAll()
	if err != nil {
		return err
	}
	l, err := Parse(a.path, data)
	if err != nil {
		return err
	}
	return a.lf.Rewrite(l.Bytes())
}

// startLeaf: --parent, else the sidecar, else the last entry of the file.
func (a *appender) startLeaf() error {
	if a.parentSet {
		if err := a.loadIDs(); err != nil {
			return err
		}
		if a.parent != "" && !a.ids[a.parent] {
			return exit.Errorf(exit.Usage, "%s: no entry with id %q (--parent)", a.path, a.parent)
		}
		a.leaf = a.parent
		return nil
	}
	if id, ok := ReadSidecar(a.path); ok {
		if id == "" {
			a.leaf, a.sidecar = "", true
			return nil
		}
		if err := a.loadIDs(); err != nil {
			return err
		}
		if a.ids[id] {
			a.leaf, a.sidecar = id, true
			return nil
		}
	}
	last, err := a.lf.LastEntryID()
	if err != nil {
		return err
	}
	a.leaf = last
	return nil
}

// loadIDs reads the ids of every entry in the file (once per run).
func (a *appender) loadIDs() error {
	if a.ids != nil {
		return nil
	}
	ids, err := a.lf.EntryIDs()
	a.ids = ids
	return err
}

// exists reports whether id names an entry of the file or of this run.
func (a *appender) exists(id string) (bool, error) {
	if a.added[id] {
		return true, nil
	}
	if err := a.loadIDs(); err != nil {
		return false, err
	}
	return a.ids[id], nil
}

// plan assigns ids, parents and timestamps and applies the persistence
// transforms; nothing is written yet.
func (a *appender) plan(recs []session.View, lines []int) ([]op, error) {
	if a.added == nil {
		a.added = map[string]bool{}
	}
	var ops []op
	leaf := a.leaf
	for k := range recs {
		v := &recs[k]
		id := v.ID
		if id != "" {
			ok, err := a.exists(id)
			if err != nil {
				return nil, err
			}
			if ok && !a.added[id] {
				out, err := a.prepare(append(append([]byte{'{'}, v.AppendMembers(nil, "pending")...), '}'), lines[k])
				if err != nil {
					return nil, err
				}
				ops = append(ops, op{raw: out, id: id, replace: true})
				continue
			}
			if ok { // an id appended earlier in this run: a new entry needs its own
				id = ""
			}
		}
		if id == "" {
			var err error
			if id, err = a.freshID(); err != nil {
				return nil, err
			}
		}
		parent := leaf
		if p := v.ParentID; p != "" && p != leaf && p != id {
			if ok, err := a.exists(p); err != nil {
				return nil, err
			} else if ok {
				parent = p
			}
		}
		ts := v.Timestamp
		if ts == "" {
			ts = session.FormatTime(a.o.Now())
		}
		out, err := a.prepare(withBase(v, id, parent, ts), lines[k])
		if err != nil {
			return nil, err
		}
		ops = append(ops, op{raw: out, id: id})
		a.added[id] = true
		leaf = id
	}
	return ops, nil
}

func (a *appender) freshID() (string, error) {
	size, _ := a.lf.Size()
	if a.ids == nil && size > bigFile {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		return session.NewSessionID(a.o.Now().UnixMilli(), uint32(b[0])|uint32(b[1])<<8|uint32(b[2])<<16|uint32(b[3])<<24), nil
	}
	if err := a.loadIDs(); err != nil {
		return "", err
	}
	return NewEntryID(func(id string) bool { return a.ids[id] || a.added[id] }), nil
}

// prepare applies the persistence transforms and checks the result is a valid entry.
func (a *appender) prepare(raw []byte, line int) ([]byte, error) {
	put := a.putBlob
	if a.blobs == "" {
		put = nil
	}
	out, err := session.PrepareForWrite(raw, put)
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "stdin:%d: %v", line, err)
	}
	return out, nil
}

// putBlob stores decoded image bytes content-addressed, once.
func (a *appender) putBlob(data []byte) (string, error) {
	hash := session.BlobHash(data)
	p := filepath.Join(a.blobs, hash)
	if _, err := os.Stat(p); err == nil {
		return hash, nil
	}
	if err := WriteFileAtomic(p, data); err != nil {
		return "", fmt.Errorf("blob store: %w", err)
	}
	return hash, nil
}

// apply writes the planned ops: appends go out in one write per run of
// appends; replacements rewrite the file atomically.
func (a *appender) apply(ops []op) error {
	var buf []byte
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		err := a.lf.AppendLines(buf)
		buf = buf[:0]
		return err
	}
	for k := 0; k < len(ops); k++ {
		o := ops[k]
		if !o.replace {
			buf = append(append(buf, o.raw...), '\n')
			a.leaf = o.id
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		repl := map[string][]byte{o.id: o.raw}
		for k+1 < len(ops) && ops[k+1].replace {
			k++
			repl[ops[k].id] = ops[k].raw
		}
		if err := a.lf.ReplaceEntries(repl); err != nil {
			return err
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if a.sidecar {
		RemoveSidecar(a.path)
		a.sidecar = false
	}
	return nil
}

// withBase puts type, id, parentId and timestamp first, as the reference
// writes them, and keeps every other member as it came.
func withBase(v *session.View, id, parent, ts string) []byte {
	typ, _ := v.Get("type")
	b := make([]byte, 0, len(v.Raw)+64)
	b = append(b, `{"type":`...)
	b = append(b, typ...)
	b = append(b, `,"id":`...)
	b = append(b, jsonValue(id)...)
	b = append(b, `,"parentId":`...)
	if parent == "" {
		b = append(b, "null"...)
	} else {
		b = append(b, jsonValue(parent)...)
	}
	b = append(b, `,"timestamp":`...)
	b = append(b, jsonValue(ts)...)
	n := len(b)
	b = v.AppendMembers(append(b, ','), "type", "id", "parentId", "timestamp", "pending")
	if len(b) == n+1 { // no other member
		b = b[:n]
	}
	return append(b, '}')
}
