package session

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"
	"testing"
)

func validIndex() Index {
	b := NewBloom(2)
	b.Add("a1")
	return Index{Type: "session_index", Version: IndexVersion, Size: 500, Tail: strings.Repeat("0", 64), Sum: "00000000", Lines: 3, Entries: 2,
		Header: Run{0, 100, false}, LeafID: "a2", Context: []Run{{101, 300, false}}, Problems: []IndexProblem{}, IDs: b}
}

// What ParseIndex refuses beyond the schema: ranges outside the bytes
// indexed, a filter that is not one.
func TestParseIndex(t *testing.T) {
	b, _ := json.Marshal(validIndex())
	if _, err := ParseIndex(b); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(*Index){
		"run past size":      func(x *Index) { x.Context[0].Len = 400 },
		"header past size":   func(x *Index) { x.Header.Off = 499 },
		"negative offset":    func(x *Index) { x.Context[0].Off = -1 },
		"overflowing run":    func(x *Index) { x.Context[0].Off, x.Context[0].Len = 1<<62, 1<<62 },
		"filter of 3 bytes":  func(x *Index) { x.IDs = []byte{0, 0, 0} },
		"leaf without path":  func(x *Index) { x.Context = nil },
		"path without leaf":  func(x *Index) { x.LeafID = "" },
		"another version":    func(x *Index) { x.Version = 1 },
		"a tail not sha-256": func(x *Index) { x.Tail = "00" },
	} {
		x := validIndex()
		f(&x)
		b, _ := json.Marshal(x)
		if _, err := ParseIndex(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestBloom(t *testing.T) {
	b := NewBloom(1000)
	for i := range 1000 {
		b.Add(fmt.Sprintf("%08x", i*2654435761))
	}
	fp := 0
	for i := range 1000 {
		if !b.Has(fmt.Sprintf("%08x", i*2654435761)) {
			t.Fatalf("id %d added but not found", i)
		}
		if b.Has(fmt.Sprintf("x%07x", i)) {
			fp++
		}
	}
	if fp > 50 { // ~1% expected
		t.Errorf("%d false positives in 1000", fp)
	}
}

func TestAddRun(t *testing.T) {
	var runs []Run
	runs = AddRun(runs, 10, 5, false) // 10..15, newline at 15
	runs = AddRun(runs, 16, 4, false) // adjacent: joined
	runs = AddRun(runs, 21, 3, true)  // alone
	runs = AddRun(runs, 25, 2, false) // after an alone line: new run
	runs = AddRun(runs, 40, 2, false) // a gap: new run
	want := []Run{{10, 10, false}, {21, 3, true}, {25, 2, false}, {40, 2, false}}
	if fmt.Sprint(runs) != fmt.Sprint(want) {
		t.Errorf("runs %v, want %v", runs, want)
	}
}

func FuzzParseIndex(f *testing.F) {
	b, _ := json.Marshal(validIndex())
	f.Add(b)
	f.Add([]byte(`{"type":"session_index"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := ParseIndex(b)
		if err != nil {
			return
		}
		for _, r := range append(append([]Run{x.Header}, x.Carry...), x.Context...) {
			if r.Off < 0 || r.Len <= 0 || r.Off > x.Size || r.Len > x.Size-r.Off {
				t.Fatalf("accepted a run outside the file: %+v in %d", r, x.Size)
			}
		}
		Bloom(x.IDs).Has("x") // never panics on an accepted filter
	})
}

// Lines on any bytes: no panic, the header first, problems in line order,
// an entry's id resolving to an entry read.
func FuzzLines(f *testing.F) {
	f.Add([]byte(`{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}` + "\n" +
		`{"type":"message","id":"a","parentId":"a","message":{}}` + "\n" + `{"type":"message","id":"a"}` + "\n{\"ty"))
	f.Add([]byte("\xff{}\n\n{\"type\":\"session\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var l Lines
		last := 0
		for n, raw := range strings.Split(string(data), "\n") {
			line, err := l.Read([]byte(raw), n+1, false)
			if err != nil {
				if n > 0 && last > 0 {
					t.Fatalf("line %d: a header error after the header", n+1)
				}
				return
			}
			if line.Kind == HeaderLine {
				last = n + 1
			}
			if line.Kind == EntryLine && l.Header.Version >= 3 {
				if line.ID == "" || line.ParentID == line.ID {
					t.Fatalf("line %d: entry %q parent %q", n+1, line.ID, line.ParentID)
				}
				if _, ok := l.IDs.Get(line.ID); !ok {
					t.Fatalf("line %d: id %q not in IDs", n+1, line.ID)
				}
			}
		}
		for i := 1; i < len(l.Problems); i++ {
			if l.Problems[i].Line < l.Problems[i-1].Line {
				t.Fatalf("problems out of order: %v", l.Problems)
			}
		}
	})
}

// IDHash is FNV-1a 64, the hash the format names.
func TestIDHashIsFNV1a(t *testing.T) {
	for _, s := range []string{"", "a1", "3c80e6e7", "ünïcode id"} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if IDHash(s) != h.Sum64() {
			t.Errorf("%q: %x, want %x", s, IDHash(s), h.Sum64())
		}
	}
}
