package llm

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var decodeCorpus = []string{
	`{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}`,
	`{"role":"user","content":"plain \"text\" \u00e9 \ud83d\ude00 \ud800 x","timestamp":2}`,
	`{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"sig","redacted":true},{"type":"text","text":"a\nb","textSignature":"s"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a.go","n":[1,2.5e3,null,true]},"thoughtSignature":"ts"}],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":0.1,"output":1e-6,"cacheRead":0,"cacheWrite":-0,"total":1.5}},"stopReason":"toolUse","timestamp":1700000000000}`,
	`{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"x"},{"type":"image","data":"iVBO","mimeType":"image/png"}],"details":{"diff":"--- a"},"isError":false,"timestamp":3}`,
	`{"role":"user","content":[],"timestamp":4,"extra":{"nested":[{"a":null}]},"synthetic":true}`,
	` { "role" : "user" , "content" : [ ] , "timestamp" : 5 } `,
	`{"role":"assistant","content":[],"usage":{},"errorMessage":"boom","timestamp":6}`,
	// the slow path: null, case variants, duplicates, floats in ints, bad UTF-8, bad JSON
	`{"role":"user","content":null,"timestamp":7}`,
	`{"Role":"user","content":[],"timestamp":8}`,
	`{"role":"user","role":"assistant","content":[]}`,
	`{"role":"user","content":[],"timestamp":1.5}`,
	`{"role":"user","content":[{"type":"text","text":"\xff"}]}`,
	`{"role":"user","content":[{"type":"text","TEXT":"x"}]}`,
	`{"role":"user","details":"str","content":[]}`,
	`{"role":"user","content":[{"type":"text","text":"x"}],}`,
	`{"role":"user"`, `[]`, `null`, `{"role":"user","content":[{"type":"text","text":"a"}]} x`,
	`{"role":"user","content":[],"timestamp":99999999999999999999}`,
	`{"role":"user","content":"\x01"}`,
	`{"usage":{"input":1,"input":2}}`,
}

func checkDecode(t *testing.T, in string) {
	t.Helper()
	var want Message
	wantErr := json.Unmarshal([]byte(in), &want)
	got, err := DecodeMessage([]byte(in))
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%s: err %v, encoding/json says %v", in, err, wantErr)
	}
	if err != nil {
		return
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("%s (-encoding/json +DecodeMessage):\n%s", in, d)
	}
	// The sharing decoder (Context.Each, CheckHistory) gives the same.
	b := []byte(in)
	shared, err := decodeMessage(b, true)
	if _, cerr := CheckHistory([]json.RawMessage{b}); err != nil || cerr != nil {
		t.Fatalf("%s: the sharing decoder fails (%v, %v) where DecodeMessage does not", in, err, cerr)
	}
	if d := cmp.Diff(want, shared); d != "" {
		t.Fatalf("%s (-encoding/json +shared):\n%s", in, d)
	}
	// So does the reusing one (NormalizeEach), after a message that filled
	// its content array and usage.
	r := decoder{alias: true, reuse: true}
	if _, err := r.decode([]byte(`{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"x"},{"type":"text","text":"c"}],"usage":{"input":5,"cost":{"total":1}}}`)); err != nil {
		t.Fatal(err)
	}
	reused, err := r.decode(b)
	if err != nil {
		t.Fatalf("%s: the reusing decoder fails (%v) where DecodeMessage does not", in, err)
	}
	if d := cmp.Diff(want, reused); d != "" {
		t.Fatalf("%s (-encoding/json +reused):\n%s", in, d)
	}
}

func TestDecodeMessageIsUnmarshal(t *testing.T) {
	for _, in := range decodeCorpus {
		checkDecode(t, in)
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, in := range decodeCorpus {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) { checkDecode(t, in) })
}
