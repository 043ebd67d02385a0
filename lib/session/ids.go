package session

import "math/bits"

// IDTable maps entry ids to the index of the first entry with each id, as
// Lines reads them: an open-addressing table of (IDHash, entry, where the
// id is) over the ids' bytes kept in one arena. A million ids are a few
// allocations rather than a million strings for the collector to trace,
// and adding one is one probe (a Go map took a lookup and an insert, each
// a likely cache miss: a fifth of open's time on a 1 GB session). The zero
// value is empty.
type IDTable struct {
	slots []idSlot // a power of two long; entry -1: empty
	arena []byte   // the ids, one after another
	n     int
	warm  int32 // what Warm read, kept so that its loads are not dropped
}

type idSlot struct {
	h     uint64
	entry int32
	len   uint32 // the id's bytes: arena[off:off+len]
	off   uint64
}

// NewIDTable has room for about n ids before it grows.
func NewIDTable(n int) IDTable {
	var t IDTable
	t.init(n)
	return t
}

func (t *IDTable) init(n int) {
	size := 16
	for size*3/4 < n {
		size *= 2
	}
	t.slots = make([]idSlot, size)
	for i := range t.slots {
		t.slots[i].entry = -1
	}
	if t.arena == nil {
		t.arena = make([]byte, 0, n*9)
	}
}

// Len is how many ids the table holds.
func (t *IDTable) Len() int { return t.n }

// Get is the entry of the id (false: no entry has it).
func (t *IDTable) Get(id string) (int32, bool) {
	if t.n == 0 {
		return 0, false
	}
	h := IDHash(id)
	for i := t.home(h); ; i = (i + 1) & (len(t.slots) - 1) {
		s := &t.slots[i]
		if s.entry < 0 {
			return 0, false
		}
		if s.h == h && t.is(s, id) {
			return s.entry, true
		}
	}
}

// Add adds id for entry unless an entry has it already (dup: then that
// one, the first, keeps it).
func (t *IDTable) Add(id string, entry int32) (dup bool) {
	if (t.n+1)*4 > len(t.slots)*3 {
		t.grow()
	}
	h := IDHash(id)
	for i := t.home(h); ; i = (i + 1) & (len(t.slots) - 1) {
		s := &t.slots[i]
		if s.entry < 0 {
			*s = idSlot{h: h, entry: entry, len: uint32(len(id)), off: uint64(len(t.arena))}
			t.arena = append(t.arena, id...)
			t.n++
			return false
		}
		if s.h == h && t.is(s, id) {
			return true
		}
	}
}

// Warm reads the slot where the probe for each decoded line's id starts,
// so that the Adds of those ids soon after find it in the cache: the
// loads of a batch overlap, where each Add alone waits for its own (a
// cache miss on a large table, a tenth of open's time).
func (t *IDTable) Warm(ds []Decoded) {
	if len(t.slots) == 0 {
		return
	}
	var x int32
	for i := range ds {
		if ds[i].ID != "" {
			x += t.slots[t.home(IDHash(ds[i].ID))].entry
		}
	}
	t.warm = x
}

// All calls fn with each id's hash (IDHash), in no order.
func (t *IDTable) All(fn func(h uint64)) {
	for i := range t.slots {
		if t.slots[i].entry >= 0 {
			fn(t.slots[i].h)
		}
	}
}

func (t *IDTable) is(s *idSlot, id string) bool {
	return uint32(len(id)) == s.len && string(t.arena[s.off:s.off+uint64(s.len)]) == id
}

// home is the slot a hash starts probing at (Fibonacci hashing spreads
// FNV's low bits).
func (t *IDTable) home(h uint64) int {
	return int((h * 0x9E3779B97F4A7C15) >> (64 - bits.TrailingZeros(uint(len(t.slots)))))
}

func (t *IDTable) grow() {
	old := t.slots
	t.init(max(16, len(old)*2) * 3 / 4)
	for _, s := range old {
		if s.entry < 0 {
			continue
		}
		i := t.home(s.h)
		for t.slots[i].entry >= 0 {
			i = (i + 1) & (len(t.slots) - 1)
		}
		t.slots[i] = s
	}
}
