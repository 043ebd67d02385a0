package event

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeEvent(t *testing.T) {
	tests := []struct {
		line    string
		want    Event
		wantErr string
	}{
		{line: `{"type":"agent_start"}`, want: Event{Type: AgentStart}},
		{line: `{"type":"tool_execution_end","toolCallId":"t1","toolName":"read","result":{"content":[{"type":"text","text":"x"}]},"isError":false}` + "\r",
			want: Event{Type: ToolExecutionEnd, ToolCallID: "t1", ToolName: "read", Result: &ToolOutput{Content: []Content{Text("x")}}, IsError: ptr(false)}},
		{line: `{"type":"error","code":2,"message":"bad flag"}`, want: Event{Type: Error, Code: 2, Message: json.RawMessage(`"bad flag"`)}},
		{line: `{"type":"future_event","x":1}`, want: Event{Type: "future_event"}},
		{line: `{"type":1}`, wantErr: `no string "type"`},
		{line: `[1,2]`, wantErr: "not a JSON object"},
		{line: `{"type":"agent_start"`, wantErr: "not valid JSON"},
		{line: ``, wantErr: "empty line"},
		{line: `{"x":1}`, wantErr: `no string "type"`},
	}
	for _, tt := range tests {
		got, err := Decode([]byte(tt.line))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Decode(%q) error = %v, want %q", tt.line, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Decode(%q): %v", tt.line, err)
			continue
		}
		if string(got.Raw) != strings.TrimRight(tt.line, "\r") {
			t.Errorf("Decode(%q).Raw = %q", tt.line, got.Raw)
		}
		got.Raw = nil
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("Decode(%q) (-want +got):\n%s", tt.line, d)
		}
	}
}

func TestEncodeKeepsRawAndFailure(t *testing.T) {
	line := `{"type":"message_end","message":{"role":"user","zzz":[1, 2]},"unknown":true}`
	e, err := Decode([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := Encode(e)
	if string(out) != line+"\n" {
		t.Errorf("Encode(decoded) = %q, want the input unchanged", out)
	}
	// the error record a failed stage ends with (internal/app writes it)
	back, _ := Decode([]byte(`{"type":"error","code":1,"message":"compaction \"failed\""}`))
	if back.ErrorText() != `compaction "failed"` || back.Code != 1 {
		t.Errorf("round trip: %+v", back)
	}
}

func TestKnownMatchesTypes(t *testing.T) {
	for _, ty := range Types {
		if !slices.Contains(Types, ty) {
			t.Errorf("Known(%q) = false", ty)
		}
	}
	if slices.Contains(Types, "ttsr_triggered") {
		t.Error("ttsr_triggered is not part of the stream")
	}
}

func TestToolProtocolRoundTrip(t *testing.T) {
	msgs := []any{
		&Hello{Cwd: "/w", SessionID: "s1", Tools: []string{"read"}, Hooks: ptr(false)},
		&Tools{Tools: []ToolDef{{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object"}`), Concurrency: Shared}}},
		&Call{ID: "toolu_1", Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`), Batch: &Batch{ID: "b", Index: 0, Names: []string{"read"}}},
		&Update{ID: "toolu_1", PartialResult: ToolOutput{Content: []Content{Text("…")}}},
		&Result{ID: "toolu_1", Content: []Content{Text("ok")}, DurationMs: 3},
		&Cancel{},
		&Cancel{ID: "toolu_1"},
		&ToolAsk{RequestID: "r1", Kind: "confirm", Payload: json.RawMessage(`{"q":"?"}`)},
		&Answer{RequestID: "r1", Cancelled: true},
		&Log{Level: "warn", Msg: "slow"},
	}
	for _, m := range msgs {
		line, err := EncodeTool(m)
		if err != nil {
			t.Fatalf("EncodeTool(%T): %v", m, err)
		}
		back, err := DecodeTool(line)
		if err != nil {
			t.Fatalf("DecodeTool(%s): %v", line, err)
		}
		if d := cmp.Diff(m, back); d != "" {
			t.Errorf("round trip of %T (-want +got):\n%s", m, d)
		}
	}
}

func TestDecodeToolErrors(t *testing.T) {
	for line, want := range map[string]string{
		`{"type":"call","name":"read"}`: `call: missing "id"`,
		`{"type":"call","id":"1"}`:      `call: missing "name"`,
		`{"type":"result"}`:             `result: missing "id"`,
		`{"type":"shutdown"}`:           `unknown message type "shutdown"`,
		`{"type":"tools","tools":[{"name":"x","concurrency":"parallel"}]}`: `concurrency must be`,
		`{"type":"call","id":"1","name":"read","arguments":{}`:             `not valid JSON`,
		`{"type":"answer"}`:        `answer: missing "requestId"`,
		`{"type":"update","id":7}`: `update: json`,
		`{"type":"tools","tools":[{"description":"no name","concurrency":"shared"}]}`: `missing "name"`,
	} {
		_, err := DecodeTool([]byte(line))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodeTool(%s) error = %v, want %q", line, err, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"type":"message_end","message":{"role":"user"}}`))
	f.Add([]byte(`{"type":"call","id":"1","name":"read","arguments":{}}`))
	f.Add([]byte(`{"type":"error","code":2,"message":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if e, err := Decode(b); err == nil {
			if _, err := Encode(e); err != nil {
				t.Fatalf("Encode after Decode: %v", err)
			}
		}
		if m, err := DecodeTool(b); err == nil {
			if _, err := EncodeTool(m); err != nil {
				t.Fatalf("EncodeTool after DecodeTool: %v", err)
			}
		}
	})
}

func ptr[T any](v T) *T { return &v }

// The Go decoder accepts every line of the format's valid corpus.
func TestDecodeToolAcceptsCorpus(t *testing.T) {
	data, err := os.ReadFile("../../formats/tool-protocol/valid/exchange.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if _, err := DecodeTool([]byte(line)); err != nil {
			t.Errorf("exchange.jsonl:%d: %v", i+1, err)
		}
	}
	data, err = os.ReadFile("../../formats/events/valid/one-tool-call.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		e, err := Decode([]byte(line))
		if err != nil || !slices.Contains(Types, e.Type) {
			t.Errorf("one-tool-call.jsonl:%d: %v (type %q)", i+1, err, e.Type)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int]string{
		0: "0B", 512: "512B", 1023: "1023B", 1024: "1.0KB", 50 * 1024: "50.0KB",
		1<<20 - 1: "1024.0KB", 1 << 20: "1.0MB", 3 << 19: "1.5MB", 20 << 20: "20.0MB", 1 << 30: "1.0GB",
	} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
