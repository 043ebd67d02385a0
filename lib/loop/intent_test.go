package loop

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/jsonschema"
)

func TestWithIntent(t *testing.T) {
	defs := []event.ToolDef{
		{Name: "read", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		{Name: "none"},
		{Name: "already", Parameters: json.RawMessage(`{"type":"object","required":["agent__intent"]}`)},
	}
	got, err := WithIntent(defs)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	for i, want := range [][]string{{"path", IntentField}, {IntentField}, {IntentField}} {
		if err := json.Unmarshal(got[i].Parameters, &s); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, s.Required); d != "" || s.Type != "object" || s.Properties[IntentField] == nil {
			t.Errorf("%s: %s (-want +got required):\n%s", got[i].Name, got[i].Parameters, d)
		}
	}
	if string(defs[0].Parameters) != `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}` {
		t.Error("WithIntent changed its input")
	}
	if _, err := WithIntent([]event.ToolDef{{Name: "bad", Parameters: json.RawMessage(`[1]`)}}); err == nil {
		t.Error("non-object schema: no error")
	}
	// The schema with intent compiles and validates a call that has it.
	v, err := jsonschema.NewValidator(got[:1])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Validate("read", json.RawMessage(`{"path":"a","agent__intent":"Reading a"}`)); err != nil {
		t.Error(err)
	}
}

func TestStripIntent(t *testing.T) {
	tests := []struct{ in, args, intent string }{
		{`{"path":"a","agent__intent":"Reading a"}`, `{"path":"a"}`, "Reading a"},
		{`{"path":"a"}`, `{"path":"a"}`, ""},
		{`{"agent__intent":5}`, `{}`, ""},
		{`[1]`, `[1]`, ""},
		{`null`, `null`, ""},
	}
	for _, tt := range tests {
		args, intent := StripIntent(json.RawMessage(tt.in))
		if string(args) != tt.args || intent != tt.intent {
			t.Errorf("StripIntent(%s) = %s, %q; want %s, %q", tt.in, args, intent, tt.args, tt.intent)
		}
	}
}

func TestBatchIntent(t *testing.T) {
	ts, v := testTools(t)
	b := NewBatch("b", []ToolCall{call("1", "read", `{"path":"a","agent__intent":"Reading a"}`)}, Config{Tools: ts, Validator: v, IntentTracing: true})
	d := b.Next()
	if len(d) != 1 || d[0].Start.Intent != "Reading a" || string(d[0].Call.Arguments) != `{"path":"a"}` || string(d[0].Start.Args) != `{"path":"a"}` {
		t.Fatalf("dispatch = %+v", d)
	}
}
