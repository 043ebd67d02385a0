package loop

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/event"
)

func TestPrepare(t *testing.T) {
	overflow := func(s string) bool { return strings.Contains(s, "prompt is too long") }
	over := json.RawMessage(`{"role":"assistant","content":[],"stopReason":"error","errorMessage":"prompt is too long: 2100 tokens > 1000 maximum"}`)
	other := json.RawMessage(`{"role":"assistant","content":[],"stopReason":"error","errorMessage":"Overloaded"}`)
	retried := json.RawMessage(`{"role":"assistant","content":[],"stopReason":"error","errorMessage":"429","retried":true}`)
	answer := assistant(StopStop, 1, "done")
	toolRes := json.RawMessage(`{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[],"isError":false}`)
	u := user("q")
	tests := []struct {
		name            string
		ctx             []json.RawMessage
		hasPrompt, cont bool
		want            []string
		wantErr         string
	}{
		{name: "prompt on empty", hasPrompt: true, want: nil},
		{name: "prompt after answer", ctx: []json.RawMessage{u, answer}, hasPrompt: true, want: []string{"user:q", "assistant[stop]:done"}},
		{name: "continue drops overflow", ctx: []json.RawMessage{u, over}, cont: true, want: []string{"user:q"}},
		{name: "continue with prompt drops overflow", ctx: []json.RawMessage{u, over}, cont: true, hasPrompt: true, want: []string{"user:q"}},
		{name: "no continue keeps overflow", ctx: []json.RawMessage{u, over}, hasPrompt: true, want: []string{"user:q", "assistant[error]:"}},
		{name: "continue keeps other errors", ctx: []json.RawMessage{u, other}, cont: true, wantErr: "cannot continue from message role: assistant"},
		{name: "retried dropped", ctx: []json.RawMessage{u, retried}, want: []string{"user:q"}},
		{name: "retried then overflow", ctx: []json.RawMessage{u, over, retried}, cont: true, want: []string{"user:q"}},
		{name: "continue after tool results", ctx: []json.RawMessage{u, answer, toolRes}, cont: true, want: []string{"user:q", "assistant[stop]:done", "toolResult(t1):"}},
		{name: "continue after answer", ctx: []json.RawMessage{u, answer}, cont: true, wantErr: "cannot continue from message role: assistant"},
		{name: "continue on empty", cont: true, wantErr: "cannot continue: the context has no messages"},
		{name: "no prompt, empty", wantErr: ErrNoPrompt.Error()},
		{name: "no prompt, after answer", ctx: []json.RawMessage{u, answer}, wantErr: ErrNoPrompt.Error()},
		{name: "no prompt, after tool result", ctx: []json.RawMessage{toolRes}, wantErr: ErrNoPrompt.Error()},
		{name: "no prompt, user last", ctx: []json.RawMessage{answer, u}, want: []string{"assistant[stop]:done", "user:q"}},
		{name: "bad message", ctx: []json.RawMessage{json.RawMessage(`[`)}, cont: true, wantErr: "last context message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Prepare(tt.ctx, tt.hasPrompt, tt.cont, overflow)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, texts(got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestCompactionThreshold(t *testing.T) {
	tests := []struct {
		tokens, window, reserve int
		want                    bool
	}{
		{0, 0, 16384, false},
		{170000, 200000, 16384, false}, // reserve = 15% = 30000
		{170001, 200000, 16384, true},
		{83616, 100000, 16384, false}, // reserve = 16384 > 15000
		{83617, 100000, 16384, true},
		{900, 1000, 0, true}, // reserve = 150
		{850, 1000, 0, false},
		{5000, 1000, 16384, true}, // reserve larger than the window
	}
	for _, tt := range tests {
		if got := CompactionThreshold(tt.tokens, tt.window, tt.reserve); got != tt.want {
			t.Errorf("CompactionThreshold(%d, %d, %d) = %v", tt.tokens, tt.window, tt.reserve, got)
		}
	}
	e := CompactionSuggested(5, 10)
	if e.Type != "compaction_suggested" || e.Reason != "threshold" || e.ContextTokens != 5 || e.ContextWindow != 10 {
		t.Errorf("event = %+v", e)
	}
}

func TestParseAssistant(t *testing.T) {
	a, err := ParseAssistant(json.RawMessage(`{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"a"}},{"type":"text","text":"y"}],"stopReason":"toolUse","usage":{"input":3,"output":4,"cacheRead":5,"cacheWrite":6}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.ToolCalls) != 1 || a.ToolCalls[0].Name != "read" || a.StopReason != "toolUse" || a.Usage.ContextTokens() != 18 {
		t.Errorf("got %+v", a)
	}
	for _, bad := range []string{
		`{"role":"user","content":[]}`,
		`{"role":"assistant","content":[{"type":"toolCall","name":"read"}]}`,
		`{"role":"assistant","content":[{"type":"toolCall","id":5}]}`,
		`{"role":"assistant","content":"str"}`,
		`nope`,
	} {
		if _, err := ParseAssistant(json.RawMessage(bad)); err == nil && !strings.Contains(bad, `"str"`) {
			t.Errorf("%s: no error", bad)
		}
	}
}

func FuzzParseAssistant(f *testing.F) {
	f.Add([]byte(`{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"a"}}],"stopReason":"toolUse"}`))
	f.Add([]byte(`{"role":"assistant","content":"x","usage":{"totalTokens":5}}`))
	f.Fuzz(func(t *testing.T, m []byte) {
		a, err := ParseAssistant(m)
		if err != nil {
			return
		}
		for _, c := range a.ToolCalls {
			if c.ID == "" || c.Name == "" {
				t.Fatalf("tool call without id or name: %+v", c)
			}
		}
		// Whatever parses can drive a loop without panicking.
		ts, _ := Merge([]Source{{Name: "s", Tools: []event.ToolDef{{Name: "read", Concurrency: "shared"}}}})
		l := New(Config{Tools: ts}, nil, nil)
		l.Start([]json.RawMessage{UserMessage("x", nil, 0)})
		if _, err := l.AssistantDone(m, 1); err != nil {
			t.Fatal(err)
		}
		for _, c := range a.ToolCalls {
			l.ToolResult(event.Result{ID: c.ID}, 2)
		}
		if l.phase == tools {
			t.Fatalf("every call answered but the batch is not done: %s", m)
		}
		l.Abort(3)
	})
}
