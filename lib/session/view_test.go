package session

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// objectBytes is what an Object edit writes back: the members but drop,
// in order, each value compacted.
func objectBytes(t testing.TB, raw []byte, drop ...string) ([]byte, bool) {
	o, err := ParseObject(raw)
	if err != nil {
		return nil, false
	}
	for _, k := range drop {
		o.Delete(k)
	}
	return o.Bytes(), true
}

func viewBytes(v *View, drop ...string) []byte {
	return append(append([]byte{'{'}, v.AppendMembers(nil, drop...)...), '}')
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Record
		members  []string
		err      string
	}{
		{name: "entry", in: `{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"user","content":"hi"},"x":[1, 2]}`,
			want: Record{Type: "message", ID: "a1", Timestamp: "t"}, members: []string{"type", "id", "parentId", "timestamp", "message", "x"}},
		{name: "repeated key: first place, last value", in: `{"type":"a","k":1,"id":"x","k":2}`,
			want: Record{Type: "a", ID: "x"}, members: []string{"type", "k", "id"}},
		{name: "escaped key", in: `{"type":"a","\u0069d":"x","<k>":1}`,
			want: Record{Type: "a", ID: "x"}, members: []string{"type", "id", "<k>"}},
		{name: "pending and a blob", in: `{"type":"a","pending":true,"d":"blob:sha256:00"}`,
			want: Record{Type: "a", Pending: true, Blob: true}, members: []string{"type", "pending", "d"}},
		{name: "not an object", in: `[1]`, err: "not a JSON object"},
		{name: "no type", in: `{"id":"a"}`, err: `no "type" field`},
		{name: "id not a string", in: `{"type":"a","id":5}`, err: `field "id": want a string, got number`},
		{name: "invalid JSON", in: `{"type":"a",}`, err: "invalid JSON at byte 13: invalid character '}' looking for beginning of object key string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Decode([]byte(tc.in))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Raw = json.RawMessage(tc.in)
			if d := cmp.Diff(tc.want, v.Record); d != "" {
				t.Errorf("record (-want +got):\n%s", d)
			}
			var keys []string
			for _, m := range v.Members {
				keys = append(keys, m.Key)
			}
			if d := cmp.Diff(tc.members, keys); d != "" {
				t.Errorf("members (-want +got):\n%s", d)
			}
			want, _ := objectBytes(t, []byte(tc.in), "id")
			if d := cmp.Diff(string(want), string(viewBytes(&v, "id"))); d != "" {
				t.Errorf("written back (-object +view):\n%s", d)
			}
		})
	}
}

// FuzzDecode: a decoded record writes back what an Object edit of it
// writes, its base fields are Peek's, and it checks as its members do.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"type":"message","id":"a","message":{"role":"user"}}`, `{ "type" : "x" , "a" : [ 1 , {"b" : null} ] }`,
		`{"type":"a","k":1,"k":2}`, `{"type":"a","\u006b":"<&>"}`, `{"type":"a","parentId":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Decode(b)
		if err != nil {
			return
		}
		h, perr := Peek(b)
		if perr != nil {
			t.Fatalf("Decode took %q, Peek: %v", b, perr)
		}
		if h.Type != v.Type || h.ID != v.ID || h.ParentID != v.ParentID || h.Pending != v.Pending {
			t.Fatalf("%q: Peek %+v, Decode %+v", b, h, v.Record)
		}
		if (CheckView(&v) == nil) != (checkRecord(b) == nil) {
			t.Fatalf("%q: CheckView %v, the checker on its members %v", b, CheckView(&v), checkRecord(b))
		}
		if want, ok := objectBytes(t, b, "pending"); ok && string(want) != string(viewBytes(&v, "pending")) {
			t.Fatalf("%q: object writes %s, view %s", b, want, viewBytes(&v, "pending"))
		}
	})
}
