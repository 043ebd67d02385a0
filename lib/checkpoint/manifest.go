package checkpoint

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// The manifest file: a magic line, the root, the scan's start, the count,
// then per file its path, size, times, mode, a flag byte (1: content
// kept), the hash when kept and the link target when a link; varints
// throughout, and a CRC-32C of all of it last. A manifest that does not
// decode is no manifest (the next scan is a new baseline).
const magic = "agentutils checkpoint manifest 1\n"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// EncodeManifest is the manifest file's bytes.
func EncodeManifest(m Manifest) []byte {
	b := make([]byte, 0, len(magic)+len(m.Root)+32+len(m.Files)*64)
	b = append(b, magic...)
	b = appendString(b, m.Root)
	b = binary.AppendVarint(b, m.Began)
	b = binary.AppendUvarint(b, uint64(len(m.Files)))
	for _, f := range m.Files {
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
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

var errManifest = errors.New("not a checkpoint manifest, or a damaged one")

// DecodeManifest reads a manifest file. Its paths share one string.
func DecodeManifest(data []byte) (Manifest, error) {
	var m Manifest
	if len(data) < len(magic)+4 || string(data[:len(magic)]) != magic {
		return m, errManifest
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return m, errManifest
	}
	s := string(body)
	d := decoder{s: s, i: len(magic)}
	m.Root = d.str()
	m.Began = d.varint()
	n := d.uvarint()
	if d.bad || n > uint64(len(s)) {
		return m, errManifest
	}
	m.Files = make([]File, n)
	for k := range m.Files {
		f := &m.Files[k]
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
		if d.bad {
			return Manifest{}, errManifest
		}
	}
	if d.i != len(s) {
		return Manifest{}, errManifest
	}
	return m, nil
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
