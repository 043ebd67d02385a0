package jsonw

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Strings, numbers and raw JSON come out as encoding/json writes them, with
// and without HTML escaping; Objects keep their order unless an Order is set.
func TestEncodeAsEncodingJSON(t *testing.T) {
	long := strings.Repeat("x<y>&\"z\"\n\u2028é\xff", 5000)
	v := map[string]any{"b<": []any{1, 2.5, true, nil, long}, "a": json.RawMessage(`{ "k" : "<v>" }`), "n": json.Number("1e3")}
	for _, html := range []bool{false, true} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(html)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := NewEncoder(&got, Options{EscapeHTML: html}).Encode(v); err != nil {
			t.Fatal(err)
		}
		if got.String()+"\n" != want.String() {
			t.Errorf("html=%v: got %.200s, want %.200s", html, got.String(), want.String())
		}
	}
	o := Object{{"z", 1}, {"a", Object{}}, {"m", map[string]any(nil)}, {"s", []any(nil)}}
	for _, tc := range []struct {
		opt  Options
		want string
	}{
		{Options{}, `{"z":1,"a":{},"m":null,"s":null}`},
		{Options{Order: strings.Compare, NilEmpty: true}, `{"a":{},"m":{},"s":[],"z":1}`},
	} {
		got, err := Append(nil, o, tc.opt)
		if err != nil || string(got) != tc.want {
			t.Errorf("%+v: got %s, %v; want %s", tc.opt, got, err, tc.want)
		}
	}
}

// Decode keeps member order, and Append writes it back byte for byte.
func TestDecodeRoundTrip(t *testing.T) {
	in := `{"z":1,"a":[{"y":"<b>","x":null},2.50,{}],"m":{"q":true}}`
	v, err := Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	o := v.(Object)
	o, ok := o.Delete("m")
	o = o.Set("z", 2).Set("new", "x")
	if got, _ := Append(nil, o, Options{}); !ok || string(got) != `{"z":2,"a":[{"y":"<b>","x":null},2.50,{}],"new":"x"}` {
		t.Errorf("got %s (deleted %v)", got, ok)
	}
}
