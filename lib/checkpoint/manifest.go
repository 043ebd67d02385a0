package checkpoint

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"sort"
	"unsafe"
)

// The manifest file: a magic line, the root, the scan's start, the
// watcher's token (version 2; "" when no watcher vouched), the count,
// then per file its path, size, times, mode, a flag byte (1: content
// kept), the hash when kept and the link target when a link; varints
// throughout, and a CRC-32C of all of it last. A manifest that does not
// decode is no manifest (the next scan is a new baseline).
const (
	magic  = "agentutils checkpoint manifest 2\n"
	magic1 = "agentutils checkpoint manifest 1\n" // no token: read as ""
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// EncodeManifest is the manifest file's bytes (version 2: after the
// files, the offset of each, so that OpenManifest finds one without
// decoding the others).
func EncodeManifest(m Manifest) []byte {
	b := make([]byte, 0, len(magic)+len(m.Root)+32+len(m.Files)*68)
	b = append(b, magic...)
	b = appendString(b, m.Root)
	b = binary.AppendVarint(b, m.Began)
	b = appendString(b, m.Watch)
	b = binary.AppendUvarint(b, uint64(len(m.Files)))
	offs := make([]uint32, len(m.Files))
	for i, f := range m.Files {
		offs[i] = uint32(len(b))
		b = appendFile(b, f)
	}
	for _, o := range offs {
		b = binary.LittleEndian.AppendUint32(b, o)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

func appendFile(b []byte, f File) []byte {
	b = appendString(b, f.Path)
	b = binary.AppendUvarint(b, uint64(f.Size))
	b = binary.AppendVarint(b, f.Mtime)
	b = binary.AppendVarint(b, f.Ctime)
	b = binary.AppendUvarint(b, uint64(f.Mode))
	if f.Kept {
		b = append(b, 1)
		b = append(b, f.Hash[:]...)
	} else {
		b = append(b, 0)
	}
	if f.Mode&ModeLink != 0 {
		b = appendString(b, f.Link)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

var errManifest = errors.New("not a checkpoint manifest, or a damaged one")

// Index is a manifest file opened without decoding its files, and the
// journal records applied over it: a file is decoded when asked for
// (Sub), all of them only by Files.
type Index struct {
	Root  string
	Began int64  // of the newest record
	Watch string // of the newest record
	Count int    // files in the tree, after the newest record
	Torn  bool   // the journal did not read to its end (or was another base's)
	d     decoder
	n     int    // the manifest file's files
	first int    // where the files begin
	table int    // where their offsets begin
	v1    []File // a version 1 manifest (no offsets): decoded whole
	crc   uint32
	log   []Record
}

// OpenManifest checks a manifest file and reads its head; the Index
// reads data in place: data must not change afterwards.
func OpenManifest(data []byte) (*Index, error) {
	if len(data) < len(magic)+4 || (string(data[:len(magic)]) != magic && string(data[:len(magic)]) != magic1) {
		return nil, errManifest
	}
	body := data[:len(data)-4]
	x := &Index{crc: binary.LittleEndian.Uint32(data[len(data)-4:])}
	if crc32.Checksum(body, castagnoli) != x.crc {
		return nil, errManifest
	}
	v2 := string(data[:len(magic)]) == magic
	// The decoder reads data in place (no copy: a manifest file is
	// megabytes); the caller leaves it alone.
	x.d = decoder{s: unsafe.String(&body[0], len(body)), i: len(magic)}
	d := &x.d
	x.Root = d.str()
	x.Began = d.varint()
	if v2 {
		x.Watch = d.str()
	}
	n := d.uvarint()
	if d.bad || n > uint64(len(d.s)) {
		return nil, errManifest
	}
	x.Count, x.n, x.first = int(n), int(n), d.i
	if !v2 {
		files := make([]File, n)
		for k := range files {
			if files[k] = d.file(); d.bad {
				return nil, errManifest
			}
		}
		if d.i != len(d.s) {
			return nil, errManifest
		}
		x.v1 = files
		return x, nil
	}
	x.table = len(d.s) - 4*x.n
	if x.table < x.first {
		return nil, errManifest
	}
	return x, nil
}

// base is every file of the manifest file (nil: it does not decode).
func (x *Index) base() []File {
	if x.v1 != nil || x.n == 0 {
		return x.v1
	}
	d := decoder{s: x.d.s[:x.table], i: x.first}
	files := make([]File, x.n)
	for k := range files {
		if files[k] = d.file(); d.bad {
			return nil
		}
	}
	if d.i != len(d.s) {
		return nil
	}
	return files
}

// at decodes the manifest file's file i (by its offset).
func (x *Index) at(i int) (File, bool) {
	if x.v1 != nil {
		return x.v1[i], true
	}
	o := int(binary.LittleEndian.Uint32([]byte(x.d.s[x.table+4*i : x.table+4*i+4])))
	if o < x.first || o >= x.table {
		return File{}, false
	}
	d := decoder{s: x.d.s[:x.table], i: o}
	f := d.file()
	return f, !d.bad
}

// Files is every file, the journal applied; ok is false when the
// manifest file does not decode.
func (x *Index) Files() (files []File, ok bool) {
	files = x.base()
	if files == nil && x.n > 0 {
		return nil, false
	}
	for _, r := range x.log {
		files = Patch(files, r.Spans)
	}
	return files, true
}

// Sub is the files at and below path p ("" all), the journal applied;
// ok is false when the manifest file does not decode there.
func (x *Index) Sub(p string) (files []File, ok bool) {
	lo := sort.Search(x.n, func(i int) bool {
		f, _ := x.at(i)
		return Compare(f.Path, p) >= 0
	})
	for i := lo; i < x.n; i++ {
		f, ok := x.at(i)
		if !ok {
			return nil, false
		}
		if f.Path != p && !Under(f.Path, p) {
			break
		}
		files = append(files, f)
	}
	for _, r := range x.log {
		for _, s := range r.Spans {
			switch {
			case s.Path == p || Under(s.Path, p):
				files = Patch(files, []Span{s})
			case Under(p, s.Path):
				files = files[:0:0]
				for _, f := range s.Files {
					if f.Path == p || Under(f.Path, p) {
						files = append(files, f)
					}
				}
			}
		}
	}
	return files, true
}

// Records is the number of journal records applied.
func (x *Index) Records() int { return len(x.log) }

// Record is what a checkpoint that looked only where a watcher saw
// changes appends to the manifest's journal: the subtrees it scanned
// again, as they are now.
type Record struct {
	Began int64
	Watch string
	Count int
	Spans []Span
}

// JournalHead is how a journal of the manifest file x begins (the file's
// checksum: a journal of an older manifest file is not applied).
func (x *Index) JournalHead() []byte { return binary.LittleEndian.AppendUint32(nil, x.crc) }

// AppendRecord is b with r appended as a journal record (its length, its
// body and the body's checksum).
func AppendRecord(b []byte, r Record) []byte {
	body := binary.AppendVarint(nil, r.Began)
	body = appendString(body, r.Watch)
	body = binary.AppendUvarint(body, uint64(r.Count))
	body = binary.AppendUvarint(body, uint64(len(r.Spans)))
	for _, s := range r.Spans {
		body = appendString(body, s.Path)
		body = binary.AppendUvarint(body, uint64(len(s.Files)))
		for _, f := range s.Files {
			body = appendFile(body, f)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(body)))
	b = append(b, body...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(body, castagnoli))
}

// Apply reads a journal over the manifest file: its records, in order,
// up to the first that does not read (then Torn).
func (x *Index) Apply(journal []byte) {
	head := x.JournalHead()
	if len(journal) < len(head) || string(journal[:len(head)]) != string(head) {
		x.Torn = true
		return
	}
	d := decoder{s: string(journal), i: len(head)}
	for d.i < len(d.s) {
		r, ok := d.record()
		if !ok {
			x.Torn = true
			return
		}
		x.log = append(x.log, r)
		x.Began, x.Watch, x.Count = r.Began, r.Watch, r.Count
	}
}

func (d *decoder) record() (Record, bool) {
	var r Record
	n := d.uvarint()
	if d.bad || n > uint64(len(d.s)-d.i) || len(d.s)-d.i-int(n) < 4 {
		return r, false
	}
	body := d.s[d.i : d.i+int(n)]
	d.i += int(n)
	if crc32.Checksum([]byte(body), castagnoli) != binary.LittleEndian.Uint32([]byte(d.s[d.i:d.i+4])) {
		return r, false
	}
	d.i += 4
	b := decoder{s: body}
	r.Began = b.varint()
	r.Watch = b.str()
	r.Count = int(b.uvarint())
	ns := b.uvarint()
	if b.bad || ns > uint64(len(body)) {
		return r, false
	}
	for range ns {
		s := Span{Path: b.str()}
		nf := b.uvarint()
		if b.bad || nf > uint64(len(body)) {
			return r, false
		}
		for range nf {
			s.Files = append(s.Files, b.file())
		}
		r.Spans = append(r.Spans, s)
	}
	return r, !b.bad && b.i == len(body)
}

func (d *decoder) file() File {
	var f File
	f.Path = d.str()
	f.Size = int64(d.uvarint())
	f.Mtime = d.varint()
	f.Ctime = d.varint()
	f.Mode = uint32(d.uvarint())
	if d.byte() == 1 {
		f.Kept = true
		d.hash(&f.Hash)
	}
	if f.Mode&ModeLink != 0 {
		f.Link = d.str()
	}
	return f
}

type decoder struct {
	s   string
	i   int
	bad bool
}

func (d *decoder) uvarint() uint64 {
	var x uint64
	var shift uint
	for k := 0; k < binary.MaxVarintLen64; k++ {
		if d.i >= len(d.s) {
			break
		}
		c := d.s[d.i]
		d.i++
		if c < 0x80 {
			return x | uint64(c)<<shift
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	d.bad = true
	return 0
}

func (d *decoder) varint() int64 {
	u := d.uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

func (d *decoder) str() string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.s)-d.i) {
		d.bad = true
		return ""
	}
	s := d.s[d.i : d.i+int(n)]
	d.i += int(n)
	return s
}

func (d *decoder) byte() byte {
	if d.i >= len(d.s) {
		d.bad = true
		return 0
	}
	d.i++
	return d.s[d.i-1]
}

func (d *decoder) hash(h *[32]byte) {
	if len(d.s)-d.i < 32 {
		d.bad = true
		return
	}
	copy(h[:], d.s[d.i:d.i+32])
	d.i += 32
}
