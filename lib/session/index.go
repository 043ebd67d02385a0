package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math/bits"
)

// Index is a session file's index (formats/session-index): what 'agent-session
// open' needs to print the session stream without reading the file again
// up to Size — the byte runs of the path's carried entries and of its
// context (formats/session: the stream is the context), the problems its
// lines had, a Bloom filter of the entry ids. The file stays the only truth: an index is used
// only while it agrees with the file (Size, the hash of the bytes before
// it, the file's identity), and rebuilt from the file otherwise.
type Index struct {
	Type     string         `json:"type"`    // "session_index"
	Version  int            `json:"version"` // IndexVersion
	File     FileID         `json:"file"`
	Size     int64          `json:"size"` // bytes indexed: the file up to its last newline
	Tail     string         `json:"tail"` // sha256 (hex) of the indexed bytes' last ≤ TailBytes
	Sum      string         `json:"sum"`  // IndexSum: the bytes of the runs and what the index says of them
	Lines    int            `json:"lines"`
	Entries  int            `json:"entries"`
	Header   Run            `json:"header"`
	LeafID   string         `json:"leafId"`
	Carried  int            `json:"carried"` // entries in Carry
	Omitted  int            `json:"omitted"` // entries of the path in neither Carry nor Context
	Carry    []Run          `json:"carry"`   // the carried entries' lines, in path order
	Context  []Run          `json:"context"` // the path's lines from the cut on (all of them: no cut), in runs
	Problems []IndexProblem `json:"problems"`
	IDs      []byte         `json:"ids"` // Bloom filter of every entry id (base64 in JSON)
}

// FileID names the file an index was built from: a rewrite (a new file
// renamed over the old) changes it.
type FileID struct {
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
}

// Run is a byte range of the file [Off, Off+Len) holding whole lines
// joined by newlines (without the last newline); Alone marks one line that
// is not copied as it is (it holds blob references or invalid UTF-8).
type Run struct {
	Off   int64 `json:"off"`
	Len   int64 `json:"len"`
	Alone bool  `json:"alone,omitempty"`
}

// IndexProblem is a Problem as the index keeps it.
type IndexProblem struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
	Kept    bool   `json:"kept,omitempty"`
}

const (
	IndexVersion = 3
	TailBytes    = 4096
	bloomK       = 4
)

// TailHash is Tail for data, the file's first size bytes.
func TailHash(data []byte) string {
	sum := sha256.Sum256(data[max(0, len(data)-TailBytes):])
	return hex.EncodeToString(sum[:])
}

// ErrIndexVersion is ParseIndex's error for an index of another version
// (stale, not wrong: written by another version of open).
var ErrIndexVersion = errors.New("another version of the index")

// ParseIndex reads an index and checks it is one: its type and version,
// ranges that are whole and within Size, a Bloom filter whose size is a
// power of two.
func ParseIndex(b []byte) (Index, error) {
	var x Index
	var v struct {
		Type    string `json:"type"`
		Version int    `json:"version"`
	}
	if json.Unmarshal(b, &v) == nil && v.Type == "session_index" && v.Version != IndexVersion {
		return x, fmt.Errorf("%w: version %d, not %d", ErrIndexVersion, v.Version, IndexVersion)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields() // the format grows only with a new version
	if err := d.Decode(&x); err != nil {
		return x, jsonError(err)
	}
	switch {
	case x.Type != "session_index":
		return x, fmt.Errorf("type %q, not \"session_index\"", x.Type)
	case x.Version != IndexVersion:
		return x, fmt.Errorf("version %d, not %d", x.Version, IndexVersion)
	case x.Size <= 0 || x.Lines <= 0 || x.Entries < 0:
		return x, errors.New("a size, line or entry count out of range")
	case len(x.Tail) != 64:
		return x, errors.New(`"tail" is not a sha256 in hex`)
	case len(x.Sum) != 8:
		return x, errors.New(`"sum" is not a CRC-32C in hex`)
	case len(x.IDs) == 0 || bits.OnesCount(uint(len(x.IDs))) != 1:
		return x, errors.New(`"ids" is not a Bloom filter (its size is not a power of two)`)
	case (x.LeafID == "") != (len(x.Context) == 0):
		return x, errors.New(`"leafId" and "context" disagree`)
	case x.Carried < 0 || x.Omitted < 0 || (x.Carried == 0) != (len(x.Carry) == 0):
		return x, errors.New(`"carried" and "carry" disagree`)
	}
	for _, r := range append(append([]Run{x.Header}, x.Carry...), x.Context...) {
		if r.Off < 0 || r.Len <= 0 || r.Off > x.Size || r.Len > x.Size-r.Off {
			return x, fmt.Errorf("run %d+%d is not within the %d bytes indexed", r.Off, r.Len, x.Size)
		}
	}
	return x, nil
}

// crc32c is the table of IndexSum's CRC (Castagnoli: in hardware on
// amd64 and arm64).
var crc32c = crc32.MakeTable(crc32.Castagnoli)

// RunsSum continues sum (0 to start) over bytes of the runs an index
// relies on: the header run, the carried runs, then the context runs,
// each run's bytes (lines joined by newlines) in order.
func RunsSum(sum uint32, b []byte) uint32 { return crc32.Update(sum, crc32c, b) }

// IndexSum is the Sum of x, where runs is RunsSum over the bytes of its
// runs: their CRC-32C continued over the rest of the index (its JSON
// without Sum), so an index whose runs no longer hold the bytes it was
// made from (a file rewritten in place, or a new file on a reused inode,
// of the same size and tail), or whose counts were changed, does not
// match.
func IndexSum(x Index, runs uint32) string {
	x.Sum = ""
	b, _ := json.Marshal(x)
	return fmt.Sprintf("%08x", crc32.Update(runs, crc32c, b))
}

// Bloom is a Bloom filter of strings (k = 4, FNV-1a double hashing).
type Bloom []byte

// NewBloom has room for n strings at about 1% false positives.
func NewBloom(n int) Bloom {
	size := 8
	for size*8 < n*10 {
		size *= 2
	}
	return make(Bloom, size)
}

// IDHash is the FNV-1a 64 hash of an id that the filter's probes derive
// from (a reader may hash each id once, as it reads it, and add it later).
func IDHash(s string) uint64 {
	x := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		x ^= uint64(s[i])
		x *= 1099511628211
	}
	return x
}

func (b Bloom) positions(x uint64, fn func(bit uint64) bool) bool {
	h1, h2 := x&0xffffffff, x>>32|1
	m := uint64(len(b)) * 8
	for i := uint64(0); i < bloomK; i++ {
		if !fn((h1 + i*h2) % m) {
			return false
		}
	}
	return true
}

// Add adds s.
func (b Bloom) Add(s string) { b.AddHash(IDHash(s)) }

// AddHash adds the string of IDHash h.
func (b Bloom) AddHash(h uint64) {
	b.positions(h, func(bit uint64) bool { b[bit/8] |= 1 << (bit % 8); return true })
}

// Has reports whether s may have been added (false: it was not).
func (b Bloom) Has(s string) bool {
	return b.positions(IDHash(s), func(bit uint64) bool { return b[bit/8]&(1<<(bit%8)) != 0 })
}

// AddRun appends the line [off, off+n) to a path's runs, joining it to the
// last run when it follows it directly (one newline between) and neither is
// alone.
func AddRun(runs []Run, off, n int64, alone bool) []Run {
	if k := len(runs) - 1; k >= 0 && !alone && !runs[k].Alone && runs[k].Off+runs[k].Len+1 == off {
		runs[k].Len += 1 + n
		return runs
	}
	return append(runs, Run{Off: off, Len: n, Alone: alone})
}
