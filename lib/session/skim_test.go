package session

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// Skim agrees with Peek (and with json.Valid for what it accepts).
func TestSkimAgreesWithPeek(t *testing.T) {
	for _, line := range []string{
		`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"x \" y \\"}}`,
		`{"id":"a","type":"x","parentId":"p","n":[1,2.5e3,-0,true,false,null,{}],"pending":true}`,
		`{"type":"message","id":"a","parentId":"p","message":{"ro`,
		`{"type":"message","id":"a"} trailing`,
		`{"type":"x","id":"\u0041"}`,
		`{"type":"x","id":"a","v":01}`,
		`{"type":"x","id":"a","v":tru}`,
		`{"type":"x","id":"a","v":"raw` + "\t" + `tab"}`,
		`{"id":"a"}`,
		`{"zzz":[1,{"a":"b"}],"type":"late","id":"i"}`,
		`[1]`,
		`{}`,
	} {
		h, ok := Skim([]byte(line))
		p, err := peekRef([]byte(line))
		if ok && (err != nil || h != p) {
			t.Errorf("Skim(%s) = %+v, ok; Peek = %+v, %v", line, h, p, err)
		}
		if !ok && err == nil && validJSON(line) {
			t.Errorf("Skim rejected %s which Peek reads", line)
		}
	}
}

func validJSON(s string) bool { _, err := ParseObject([]byte(s)); return err == nil }

func FuzzSkim(f *testing.F) {
	f.Add([]byte(`{"type":"message","id":"a","parentId":null,"x":[{"y":"\\\""}]}`))
	f.Add([]byte(`{"type":"message","id":"a","x":["blob:sha256:0","a\"blob:sha256:"]}`))
	// escapes the full parser refuses: the skim refuses them too
	for _, b := range []string{`{"type":"message","id":"a\0"}`, `{"type":"m","x":"\u12"}`, `{"type":"m","x":"\x41"}`, `{"type":"m","x":"\u00e9\/\b"}`} {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, ok := Skim(b)
		if !ok {
			return
		}
		p, err := peekRef(b)
		if err != nil {
			t.Fatalf("Skim accepted %q that Peek rejects: %v", b, err)
		}
		if h.Blob != bytes.Contains(b, []byte(`"`+BlobPrefix)) {
			t.Fatalf("Skim(%q): Blob %v", b, h.Blob)
		}
		if h.Blob = false; h != p {
			t.Fatalf("Skim(%q) = %+v, Peek = %+v", b, h, p)
		}
	})
}

// StrLen counts what encoding/json decodes, without decoding: escapes,
// surrogate pairs, lone surrogates and invalid bytes (each U+FFFD).
func FuzzStrLen(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\nb\t\"\\\/"`, `"\u00e9\u4e2d\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, `"\ude00\ud83d\u0041"`,
		"\"\xff\xfe ok\"", `"\u12"`, `"\q"`, "\"tab\there\"", `"unterminated`, `""`, `"\`, `x`, "\"\xe4\xb8\"", `"\ud83d\u0041"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if len(bytes.TrimSpace(v)) != len(v) {
			return // values come without the whitespace around them
		}
		want := -1
		var s string
		if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
			want = len(s)
		}
		if got := StrLen(v); got != want {
			t.Fatalf("StrLen(%q) = %d, encoding/json decodes %d bytes", v, got, want)
		}
	})
}

// Blob is what ResolveBlobs looks for, `"blob:sha256:` anywhere in the
// line, found while the strings are crossed.
func TestRecordBlob(t *testing.T) {
	for _, line := range []string{
		`{"type":"message","id":"a","message":{"content":[{"type":"image","data":"blob:sha256:00","mimeType":"image/png"}]}}`,
		`{"type":"message","id":"a","message":{"content":"say \"blob:sha256:00\" here"}}`,
		`{"type":"message","id":"a","message":{"content":"blob:sha256 is not one; nor is xblob:sha256:00"}}`,
		`{"type":"message","id":"a","blob:sha256:k":1}`,
		`{"type":"message","id":"a","message":{"content":"\\"}}`,
	} {
		r, err := ParseRecord([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Contains(line, `"blob:sha256:`); r.Blob != want {
			t.Errorf("%s: Blob %v, want %v", line, r.Blob, want)
		}
	}
}

// Peek's skimming fast path reads what encoding/json reads, and leaves to
// it whatever it would read otherwise (case-folded or escaped keys, base
// fields of another type, null, repeated keys).
func FuzzPeek(f *testing.F) {
	for _, s := range []string{
		`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user"}}`,
		`{"type":"x","ID":"b","id":"a"}`,
		`{"type":"x","id":"a","Type":"y"}`,
		`{"type":"x","id":"a","\u0069d":"b"}`,
		`{"type":"x","id":"a","ſtype":"k","pendinG":true}`,
		`{"type":"x","id":"a","parentId":"p","parentId":null}`,
		`{"type":"x","id":null}`,
		`{"type":null,"id":"a"}`,
		`{"type":"x","id":"a","timestamp":5}`,
		`{"type":"x","id":"a","timestamp":null,"pending":null}`,
		`{"type":"x","id":"a","pending":1}`,
		`{"type":"x","id":"a","pending":true,"pending":false}`,
		`{"type":"x","id":"a\u00e9\ud800","type":"y"}`,
		"{\"type\":\"x\",\"id\":\"\xff\"}",
		`{"type":"","id":"a"}`,
		`  {"type":"x"}  `,
		`{"type":"x"} {}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := Peek(b)
		rh, rerr := peekRef(b)
		if h != rh || (err == nil) != (rerr == nil) || (err != nil && err.Error() != rerr.Error()) {
			t.Fatalf("Peek(%q) = %+v, %v; encoding/json: %+v, %v", b, h, err, rh, rerr)
		}
	})
}

// ParseObject's skimming fast path keeps what json.Decoder keeps: the
// keys in order (a repeated one in its first place, with its last value)
// and every value's bytes; what it does not take the decoder reads.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":{"c":[1,2]},"a":"x"}`,
		` { "a" : 1 , "b":  "y" } `,
		`{"\u0061":1,"a":2}`,
		"{\"\xff\":1}",
		`{"a":1}]`,
		`{"a":1} {}`,
		`{}`,
		`[1]`,
		`{"a":1.5e3,"b":-0,"c":true,"d":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := ParseObject(b)
		r, rerr := parseObjectDecode(b)
		if (err == nil) != (rerr == nil) || (err != nil && err.Error() != rerr.Error()) {
			t.Fatalf("ParseObject(%q): %v; json.Decoder: %v", b, err, rerr)
		}
		if err == nil && (!slices.Equal(o.keys, r.keys) || !maps.EqualFunc(o.vals, r.vals, func(x, y json.RawMessage) bool { return bytes.Equal(x, y) })) {
			t.Fatalf("ParseObject(%q) = %q %q; json.Decoder: %q %q", b, o.keys, o.vals, r.keys, r.vals)
		}
	})
}
