package llm

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func readAll(t *testing.T, s string) []SSE {
	t.Helper()
	r := NewSSEReader(strings.NewReader(s))
	var out []SSE
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
}

func TestSSEReader(t *testing.T) {
	big := strings.Repeat("x", 2<<20)
	tests := []struct {
		name string
		in   string
		want []SSE
	}{
		{"lf", "event: a\ndata: 1\n\ndata: 2\n\n", []SSE{{"a", []byte("1")}, {"", []byte("2")}}},
		{"crlf and comment", ": keep-alive\r\nevent: a\r\ndata: x\r\n\r\n", []SSE{{"a", []byte("x")}}},
		{"multi-line data", "data: one\ndata: two\n\n", []SSE{{"", []byte("one\ntwo")}}},
		{"no space after colon", "data:{}\n\n", []SSE{{"", []byte("{}")}}},
		{"an event cut before its blank line is dropped", "data: a\n\ndata: end", []SSE{{"", []byte("a")}}},
		{"a last event ended by its blank line", "data: a\n\ndata: end\n\n", []SSE{{"", []byte("a")}, {"", []byte("end")}}},
		{"lone cr", "data: a\r\rdata: b\r\r", []SSE{{"", []byte("a")}, {"", []byte("b")}}},
		{"blank lines only", "\n\n\n", nil},
	}
	if got := readAll(t, "data: "+big+"\n\n"); len(got) != 1 || string(got[0].Data) != big {
		t.Errorf("an event over 1 MB was not read whole")
	}
	for _, tt := range tests {
		got := readAll(t, tt.in)
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%.500s", tt.name, d)
		}
	}
}

func TestParsePartialJSON(t *testing.T) {
	tests := map[string]string{
		``:                       `{}`,
		`{`:                      `{}`,
		`{"pa`:                   `{}`,
		`{"path"`:                `{}`,
		`{"path":`:               `{}`,
		`{"path": "ma`:           `{"path": "ma"}`,
		`{"path":"a\`:            `{"path":"a"}`,
		`{"a":1,"b":tr`:          `{"a":1}`,
		`{"a":1,"b":true`:        `{"a":1,"b":true}`,
		`{"a":[1,2`:              `{"a":[1]}`,
		`{"a":{"b":"c"},"d":[`:   `{"a":{"b":"c"},"d":[]}`,
		`{"a":1,`:                `{"a":1}`,
		`{"a":"x"}`:              `{"a":"x"}`,
		`[1,2]`:                  `{}`,
		`{"s":"quote \" inside`:  `{"s":"quote \" inside"}`,
		`{"k":"v","arr":["x","y`: `{"k":"v","arr":["x","y"]}`,
	}
	for in, want := range tests {
		if got := string(ParsePartialJSON(in)); got != want {
			t.Errorf("ParsePartialJSON(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestClassifiers(t *testing.T) {
	errMsg := func(s string) Message { return Message{Role: "assistant", StopReason: StopError, ErrorMessage: s} }
	for s, want := range map[string][2]bool{ // {overflow, retryable}
		`400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 2100 tokens > 1000 maximum"}}`: {true, false},
		`400 This model's maximum context length is 8192 tokens`:                                                                   {true, false},
		`413 (no body)`: {true, false},
		`429 {"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`: {false, true},
		`overloaded_error: Overloaded`:                         {false, true},
		`stream ended unexpectedly`:                            {false, true},
		`400 the request used 5000 tokens of an invalid field`: {false, false},
		`401 invalid x-api-key`:                                {false, false},
	} {
		m := errMsg(s)
		if got := [2]bool{IsOverflow(m, 1000), IsRetryable(m, 1000)}; got != want {
			t.Errorf("%q: overflow, retryable = %v, want %v", s, got, want)
		}
	}
	silent := Message{Role: "assistant", StopReason: StopStop, Usage: &Usage{Input: 900, CacheRead: 200}}
	if !IsOverflow(silent, 1000) {
		t.Error("usage above the window is a silent overflow")
	}
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	h := map[string]string{"retry-after": "2", "x-ratelimit-reset-ms": "3500"}
	if d := RetryAfter(func(k string) string { return h[k] }, now); d != 3500*time.Millisecond {
		t.Errorf("RetryAfter = %v, want 3.5s (the largest)", d)
	}
	if d := RetryHint(HTTPError(429, []byte(" too\n many "), 1500*time.Millisecond)); d != 1500*time.Millisecond {
		t.Errorf("RetryHint round trip = %v", d)
	}
}

func TestMessageJSON(t *testing.T) {
	var m Message
	if err := json.Unmarshal([]byte(`{"role":"user","content":"hi","timestamp":3}`), &m); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Message{Role: "user", Content: []Content{TextBlock("hi")}, Timestamp: 3}, m); d != "" {
		t.Error(d)
	}
	tr, _ := json.Marshal(Message{Role: "toolResult", ToolCallID: "t", ToolName: "read", Timestamp: 1})
	if !bytes.Contains(tr, []byte(`"isError":false`)) || !bytes.Contains(tr, []byte(`"content":[]`)) {
		t.Errorf("toolResult JSON = %s", tr)
	}
	b, _ := json.Marshal(Content{Type: "text"})
	if string(b) != `{"type":"text","text":""}` {
		t.Errorf("empty text block = %s", b)
	}
}

func FuzzSSEReader(f *testing.F) {
	f.Add([]byte("event: a\r\ndata: 1\n\n:c\ndata: x\rdata: y"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewSSEReader(bytes.NewReader(b))
		for i := 0; i < len(b)+2; i++ {
			if _, err := r.Next(); err != nil {
				return
			}
		}
		t.Fatal("reader did not reach EOF")
	})
}

func FuzzParsePartialJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"c`, `{"x":tru`, `{"s":"\u12`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := ParsePartialJSON(s)
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("ParsePartialJSON(%q) = %s: not an object: %v", s, out, err)
		}
	})
}

func FuzzDecoders(f *testing.F) {
	f.Add([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`))
	f.Add([]byte(`{"choices":[{"delta":{"tool_calls":[{"index":3,"function":{"arguments":"{"}}]}}]}`))
	f.Add([]byte(`{"choices":[{"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"a"}]},{"type":"text","text":"b"}]}}]}`))
	f.Add([]byte(`{"choices":[{"delta":{"tool_calls":[{"id":"x","function":{"name":"f","arguments":"{}"}}]}}]}`))
	f.Add([]byte(`{"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.text","text":"a","index":0},{"type":"reasoning.encrypted","data":"b","index":0}]}}]}`))
	f.Add([]byte(`{"type":"response.reasoning_text.delta","item_id":"r","delta":"x"}`))
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"text":"","thoughtSignature":"c2ln"}]}}],"usageMetadata":{"promptTokenCount":3,"cachedContentTokenCount":5}}`))
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true,"partialArgs":[{"jsonPath":"$.a[1].b","stringValue":"x","willContinue":true},{"jsonPath":"$[\"k\"][0]","numberValue":1}]}}]}}]}`))
	f.Add([]byte(`{"type":"message_start","message":{"content":[{"type":"tool_use","id":"t","name":"f","input":{"a":1}},{"type":"text","text":"x"}],"stop_reason":"tool_use"}}`))
	f.Add([]byte(`{"type":"response.output_text.done","item_id":"other","output_index":0,"content_index":0,"text":"whole"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, api := range []string{AnthropicMessages, OpenAICompletions, OpenAIResponses, GoogleGenerativeAI} {
			c, _ := CodecFor(api)
			d := c.Decoder(testModel(api), 0)
			d.Feed(SSE{Event: "x", Data: data})
			d.Feed(SSE{Data: data})
			evs := d.End(nil)
			_ = evs
		}
	})
}

func FuzzRetryDelay(f *testing.F) {
	f.Add([]byte(`{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"17s"}]}}`))
	f.Add([]byte(`"retryDelay": "0.5s"`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if d := RetryDelay(body); d < 0 {
			t.Fatalf("RetryDelay(%q) = %v", body, d)
		}
	})
}
