package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// plainContextPath is ContextPath written plainly, as the reference reads
// it: fold the pending records into a copy of the list, then walk up the
// parents from the leaf (ids name their first entry), stopping at a
// missing parent or an entry seen already, and reverse.
func plainContextPath(entries []Record, leaf string) ([]Record, bool) {
	var list []Record
	pos := map[string]int{}
	for _, e := range entries {
		if i, ok := pos[e.ID]; ok && e.Pending {
			list[i] = e
			continue
		}
		if e.ID != "" {
			pos[e.ID] = len(list)
		}
		list = append(list, e)
	}
	first := map[string]int{}
	for i, e := range list {
		if _, ok := first[e.ID]; !ok && e.ID != "" {
			first[e.ID] = i
		}
	}
	if len(list) == 0 {
		return nil, leaf == ""
	}
	i := len(list) - 1
	if leaf != "" {
		j, ok := first[leaf]
		if !ok {
			return nil, false
		}
		i = j
	}
	var out []Record
	seen := map[int]bool{}
	for !seen[i] {
		seen[i] = true
		out = append(out, list[i])
		p, ok := first[list[i].ParentID]
		if list[i].ParentID == "" || !ok {
			break
		}
		i = p
	}
	slices.Reverse(out)
	return out, true
}

// ContextPath (and Path, when nothing is pending) is the plain walk,
// whatever the records: pending replacements and new pending records,
// branches, cycles, dangling parents, duplicate and missing ids, any leaf.
func FuzzContextPath(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 2, 1, 1, 3}, byte(0))
	f.Add([]byte{0, 0, 1, 0, 2, 1, 1, 0x81, 5, 0xc2}, byte(2))
	f.Add([]byte{3, 1, 1, 2, 2, 3, 3, 1}, byte(9))
	f.Fuzz(func(t *testing.T, spec []byte, leafSpec byte) {
		var entries []Record
		for k := 0; k+1 < len(spec) && len(entries) < 24; k += 2 {
			id, parent := fmt.Sprint("e", spec[k]%8), fmt.Sprint("e", spec[k+1]%8)
			if spec[k]&0x40 != 0 {
				id = "" // a v1 entry: no id
			}
			if spec[k+1]&0x40 != 0 {
				parent = ""
			}
			line := fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"n":%d}`, id, parent, k)
			entries = append(entries, Record{Raw: json.RawMessage(line), ID: id, ParentID: parent, Pending: spec[k+1]&0x80 != 0})
		}
		leaf := ""
		if leafSpec != 0 {
			leaf = fmt.Sprint("e", leafSpec%10) // e8, e9: never an id
		}
		want, wantOK := plainContextPath(entries, leaf)
		at, ok := ContextPath(len(entries), func(i int) *Record { return &entries[i] }, leaf)
		var got []Record
		for _, i := range at {
			got = append(got, entries[i])
		}
		if ok != wantOK {
			t.Fatalf("ContextPath(%q) ok = %v, want %v", leaf, ok, wantOK)
		}
		raws := func(rs []Record) []string {
			var out []string
			for _, r := range rs {
				out = append(out, string(r.Raw))
			}
			return out
		}
		if d := cmp.Diff(raws(want), raws(got)); d != "" {
			t.Errorf("ContextPath(%q) (-plain +got):\n%s", leaf, d)
		}
		if slices.ContainsFunc(entries, func(r Record) bool { return r.Pending }) {
			return
		}
		if d := cmp.Diff(raws(want), raws(Path(entries, leaf))); d != "" {
			t.Errorf("Path(%q) (-plain +got):\n%s", leaf, d)
		}
	})
}

// DecodeInto a view that held another record is Decode, and its message
// is the "message" member encoding/json reads (the last when the key
// repeats), on the fast path and on the fallback alike.
func FuzzDecodeInto(f *testing.F) {
	f.Add([]byte(`{"type":"message","id":"a","parentId":null,"message":{"role":"user"},"message":{"role":"assistant"}}`))
	f.Add([]byte(`{"Type":"message","id":"a","message":[1],"message":{"x":"\u0041"}}`))
	f.Add([]byte(`{"type":"x","type":null,"id":"a","message":"m"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var v View
		if err := DecodeInto(&v, []byte(`{"type":"message","id":"z","a":1,"b":2,"c":3,"message":{}}`)); err != nil {
			t.Fatal(err)
		}
		err := DecodeInto(&v, b)
		want, wantErr := Decode(b)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%q: error %v, Decode's %v", b, err, wantErr)
		}
		if err != nil {
			return
		}
		if d := cmp.Diff(want.Record, v.Record); d != "" || string(v.Raw) != string(bytes.TrimSpace(b)) {
			t.Fatalf("%q: (-Decode +DecodeInto)\n%s", b, d)
		}
		if d := cmp.Diff(want.Members, v.Members); d != "" {
			t.Fatalf("%q: members (-Decode +DecodeInto)\n%s", b, d)
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			t.Fatalf("%q: accepted, but not a JSON object", b)
		}
		if msg, _ := v.Get("message"); string(msg) != string(m["message"]) {
			t.Fatalf("%q: message %s, encoding/json's %s", b, msg, m["message"])
		}
	})
}
