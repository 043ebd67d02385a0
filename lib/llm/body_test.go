package llm

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func encodeTree(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := (Request{payload: v}).WriteBody(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestBodyEncodingIsMarshal(t *testing.T) {
	long := strings.Repeat("x<y>&\"z\"\n", 20000) // longer than the buffer
	f := 0.7
	trees := []any{
		map[string]any{"b": 1, "a": "x", "c": []any{true, false, nil, map[string]any{}}, "d": []map[string]any{{"z": 1}, nil}},
		map[string]any{"s": "\x00\x1f\t\b\f\r é \u2028 \u2029 \xff\xfe invalid <script>&amp;", "long": long},
		map[string]any{"raw": json.RawMessage(` { "a" : [1, 2, "<b>"] } `), "nilraw": json.RawMessage(nil), "f": f, "pf": &f, "n": -42},
		[]any{}, []map[string]any{}, map[string]any(nil), []any(nil), "", "\u007f",
		map[string]any{"ss": []string{"a"}, "ms": map[string]string{"k": "v"}},
	}
	for _, tree := range trees {
		want, err := json.Marshal(tree)
		if err != nil {
			t.Fatal(err)
		}
		got := encodeTree(t, tree)
		if !bytes.Equal(got, want) {
			t.Errorf("got  %.300s\nwant %.300s", got, want)
		}
		if b, err := (Request{payload: tree}).Encode(); err != nil || !bytes.Equal(b, want) {
			t.Errorf("Encode: %.300s, %v; want %.300s", b, err, want)
		}
	}
	if err := (Request{payload: map[string]any{"a": json.RawMessage(`{`)}}).WriteBody(&bytes.Buffer{}); err == nil {
		t.Error("invalid raw JSON encoded without an error")
	}
}

func FuzzBodyString(f *testing.F) {
	for _, s := range []string{"", "a", "<&>", "\u2028", "\xff", "é\x00", `"\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tree := map[string]any{s: []any{s, map[string]any{"k": s}}}
		want, _ := json.Marshal(tree)
		if got := encodeTree(t, tree); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

// A lazy array encodes as the slice it stands for: null when it emits
// nothing, as encoding/json writes a nil slice.
func TestLazyArrayEncoding(t *testing.T) {
	for _, tc := range []struct {
		els  []any
		want string
	}{
		{nil, `{"a":null}`},
		{[]any{1}, `{"a":[1]}`},
		{[]any{"x", map[string]any{"k": true}}, `{"a":["x",{"k":true}]}`},
	} {
		arr := lazyArray(func(emit func(any)) error {
			for _, el := range tc.els {
				emit(el)
			}
			return nil
		})
		if b, err := (Request{payload: map[string]any{"a": arr}}).Encode(); err != nil || string(b) != tc.want {
			t.Errorf("%v: got %s, %v; want %s", tc.els, b, err, tc.want)
		}
	}
}

// An obj encodes as the map with the same members does, whether it was
// built with set or written out of order.
func TestObjEncodesAsMap(t *testing.T) {
	var o obj
	m := map[string]any{}
	for i, k := range []string{"role", "content", "tool_calls", "a", "zz", "content", "reasoning_content", ""} {
		o = set(o, k, i)
		m[k] = i
	}
	if len(o) != len(m) {
		t.Fatalf("set kept %d members for %d keys", len(o), len(m))
	}
	unsorted := obj{{"type", "text"}, {"text", "<hi>"}, {"image_url", obj{{"url", "u"}}}}
	for _, c := range []struct {
		o obj
		m any
	}{
		{o, m},
		{unsorted, map[string]any{"type": "text", "text": "<hi>", "image_url": map[string]any{"url": "u"}}},
		{obj{}, map[string]any{}},
		{nil, map[string]any(nil)},
	} {
		want, _ := json.Marshal(c.m)
		if got := encodeTree(t, c.o); !bytes.Equal(got, want) {
			t.Errorf("obj %v encodes as %s, want %s", c.o, got, want)
		}
	}
	if unsorted[0].Key != "type" {
		t.Error("encoding reordered the obj itself")
	}
}
