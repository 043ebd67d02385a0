package session

import (
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
		p, err := Peek([]byte(line))
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
	// escapes the full parser refuses: the skim refuses them too
	for _, b := range []string{`{"type":"message","id":"a\0"}`, `{"type":"m","x":"\u12"}`, `{"type":"m","x":"\x41"}`, `{"type":"m","x":"\u00e9\/\b"}`} {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, ok := Skim(b)
		if !ok {
			return
		}
		p, err := Peek(b)
		if err != nil {
			t.Fatalf("Skim accepted %q that Peek rejects: %v", b, err)
		}
		if h != p {
			t.Fatalf("Skim(%q) = %+v, Peek = %+v", b, h, p)
		}
		// The sharing skim (ParseRecordShared) reads the same.
		if s, ok := skim(b, true, nil); !ok || s != h {
			t.Fatalf("skim(%q, share) = %+v, %v; Skim = %+v", b, s, ok, h)
		}
	})
}
