package llm

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// replayBody decodes an SSE fixture as model from and encodes the next
// request to model m: the prompt, the decoded assistant message, and a result
// for each of its calls. It returns the request body's wire messages
// (contents for Gemini) as generic JSON.
func replayBody(t *testing.T, from, m Model, fixture string) []map[string]any {
	t.Helper()
	evs := decodeFileModel(t, from, fixture)
	msg := evs[len(evs)-1].Final()
	if msg == nil || msg.StopReason == StopError {
		t.Fatalf("%s did not decode: %+v", fixture, msg)
	}
	ctx := Context{Messages: []Message{{Role: "user", Content: []Content{TextBlock("go")}, Timestamp: 1}, *msg}}
	for _, c := range msg.ToolCalls() {
		ctx.Messages = append(ctx.Messages, Message{Role: "toolResult", ToolCallID: c.ID, ToolName: c.Name, Content: []Content{TextBlock("ok")}, Timestamp: 3})
	}
	return requestMessages(t, m, ctx, Options{})
}

func requestMessages(t *testing.T, m Model, ctx Context, o Options) []map[string]any {
	t.Helper()
	codec, _ := CodecFor(m.API)
	req, err := codec.Request(m, ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(req.BodyBytes(), &body); err != nil {
		t.Fatal(err)
	}
	key := map[string]string{GoogleGenerativeAI: "contents", OpenAIResponses: "input"}[m.API]
	if key == "" {
		key = "messages"
	}
	var out []map[string]any
	if err := json.Unmarshal(body[key], &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func decodeFileModel(t *testing.T, m Model, path string) []Event {
	t.Helper()
	evs := decodeFile(t, m.API, path)
	// decodeFile decodes with testModel; the message names that model.
	if f := evs[len(evs)-1].Final(); f != nil {
		f.Provider, f.Model = m.Provider, m.ID
	}
	return evs
}

func roleOf(msgs []map[string]any, role string) []map[string]any {
	var out []map[string]any
	for _, m := range msgs {
		if m["role"] == role {
			out = append(out, m)
		}
	}
	return out
}

// OpenRouter: reasoning_details (text with its signature, encrypted data)
// go back on the assistant message as OpenRouter sent them, merged.
func TestOpenRouterReasoningDetailsReplay(t *testing.T) {
	m := testModel(OpenAICompletions)
	m.Provider, m.ID, m.BaseURL = "openrouter", "anthropic/claude-sonnet-4.5", "https://openrouter.ai/api/v1"
	msgs := replayBody(t, m, m, "../../testdata/sse/openai/openrouter_reasoning_details.sse")
	a := roleOf(msgs, "assistant")
	if len(a) != 1 {
		t.Fatalf("assistant messages: %v", msgs)
	}
	want := []any{
		map[string]any{"type": "reasoning.text", "text": "Add them.", "signature": "c2lnLW9uZQ==", "format": "anthropic-claude-v1", "index": 0.0},
		map[string]any{"type": "reasoning.encrypted", "data": "ZW5jcnlwdGVk", "format": "anthropic-claude-v1", "index": 1.0},
	}
	if d := cmp.Diff(want, a[0]["reasoning_details"]); d != "" {
		t.Errorf("reasoning_details (-want +got):\n%s", d)
	}
	if a[0]["content"] != "4" || a[0]["reasoning"] != nil {
		t.Errorf("content %v, reasoning %v: want the text only, reasoning only in reasoning_details", a[0]["content"], a[0]["reasoning"])
	}
	// Another model gets the reasoning as text, no details.
	other := m
	other.ID = "openai/gpt-5"
	a = roleOf(replayBody(t, m, other, "../../testdata/sse/openai/openrouter_reasoning_details.sse"), "assistant")
	if a[0]["reasoning_details"] != nil || a[0]["content"] != "Add them.4" {
		t.Errorf("to another model: %v", a[0])
	}
}

// DeepSeek: reasoning_content goes back only on assistant messages that
// call tools, and there always.
func TestDeepSeekReasoningReplay(t *testing.T) {
	m := testModel(OpenAICompletions)
	m.Provider, m.ID, m.BaseURL = "deepseek", "deepseek-reasoner", "https://api.deepseek.com/v1"
	own := func(ts int64, cs ...Content) Message {
		return Message{Role: "assistant", API: m.API, Provider: m.Provider, Model: m.ID, StopReason: StopStop, Timestamp: ts, Content: cs}
	}
	think := func(s string) Content {
		return Content{Type: "thinking", Thinking: s, ThinkingSignature: "reasoning_content"}
	}
	ctx := Context{Messages: []Message{
		{Role: "user", Content: []Content{TextBlock("q1")}, Timestamp: 1},
		own(2, think("T1"), TextBlock("A1")),
		{Role: "user", Content: []Content{TextBlock("q2")}, Timestamp: 3},
		own(4, think("T2"), ToolCallBlock("c1", "read", json.RawMessage(`{}`))),
		{Role: "toolResult", ToolCallID: "c1", ToolName: "read", Content: []Content{TextBlock("r")}, Timestamp: 5},
		own(6, ToolCallBlock("c2", "read", json.RawMessage(`{}`))),
		{Role: "toolResult", ToolCallID: "c2", ToolName: "read", Content: []Content{TextBlock("r")}, Timestamp: 7},
	}}
	a := roleOf(requestMessages(t, m, ctx, Options{}), "assistant")
	if len(a) != 3 {
		t.Fatalf("assistant messages: %v", a)
	}
	if _, ok := a[0]["reasoning_content"]; ok || a[0]["content"] != "A1" {
		t.Errorf("a turn without tool calls: %v (want no reasoning_content)", a[0])
	}
	if a[1]["reasoning_content"] != "T2" {
		t.Errorf("a tool-call turn: %v (want reasoning_content T2)", a[1])
	}
	if rc, ok := a[2]["reasoning_content"]; !ok || rc != "" {
		t.Errorf("a tool-call turn without reasoning: %v (want reasoning_content \"\")", a[2])
	}
	// Elsewhere reasoning goes back in the field it came in.
	m.Provider, m.BaseURL = "zai", "https://api.z.ai/api/paas/v4"
	ctx.Messages[1].Provider, ctx.Messages[3].Provider, ctx.Messages[5].Provider = "zai", "zai", "zai"
	a = roleOf(requestMessages(t, m, ctx, Options{}), "assistant")
	if a[0]["reasoning_content"] != "T1" {
		t.Errorf("zai: %v (want reasoning_content T1)", a[0])
	}
}

// Mistral takes reasoning_effort "high" or "none"; magistral models
// always reason and take none.
func TestMistralReasoningEffort(t *testing.T) {
	for _, c := range []struct {
		id, level string
		want      any
	}{
		{"mistral-small-latest", "medium", "high"},
		{"mistral-small-latest", "minimal", "high"},
		{"mistral-small-latest", "", "none"},
		{"magistral-medium-latest", "high", nil},
	} {
		m := testModel(OpenAICompletions)
		m.Provider, m.ID, m.BaseURL = "mistral", c.id, "https://api.mistral.ai/v1"
		req, err := completions{}.Request(m, Context{}, Options{Thinking: c.level})
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		json.Unmarshal(req.BodyBytes(), &body)
		if body["reasoning_effort"] != c.want {
			t.Errorf("%s at %q: reasoning_effort %v, want %v", c.id, c.level, body["reasoning_effort"], c.want)
		}
	}
}

// Gemini: a thoughtSignature that came on a text part goes back on it,
// to the same model only.
func TestGeminiTextSignatureReplay(t *testing.T) {
	m := testModel(GoogleGenerativeAI)
	m.Provider, m.ID = "google", "gemini-3-pro-preview"
	msgs := replayBody(t, m, m, "../../testdata/sse/google/trailing_signature.sse")
	model := roleOf(msgs, "model")
	if len(model) != 1 {
		t.Fatalf("contents: %v", msgs)
	}
	parts := model[0]["parts"].([]any)
	last := parts[len(parts)-1].(map[string]any)
	if last["text"] != "There are 3." || last["thoughtSignature"] != "dHJhaWxpbmc=" {
		t.Errorf("text part %v: want its signature", last)
	}
	other := m
	other.ID = "gemini-2.5-flash"
	parts = roleOf(replayBody(t, m, other, "../../testdata/sse/google/trailing_signature.sse"), "model")[0]["parts"].([]any)
	for _, p := range parts {
		if p.(map[string]any)["thoughtSignature"] != nil {
			t.Errorf("another model got a signature: %v", p)
		}
	}
}

// Anthropic: in a tool loop the last two user messages are tool results;
// their last blocks carry the cache marks.
func TestAnthropicCacheMarksToolResults(t *testing.T) {
	m := testModel(AnthropicMessages)
	call := func(id string, ts int64) Message {
		return Message{Role: "assistant", API: m.API, Provider: m.Provider, Model: m.ID, StopReason: StopToolUse, Timestamp: ts,
			Content: []Content{ToolCallBlock(id, "read", json.RawMessage(`{}`))}}
	}
	result := func(id string, ts int64) Message {
		return Message{Role: "toolResult", ToolCallID: id, ToolName: "read", Content: []Content{TextBlock("r" + id)}, Timestamp: ts}
	}
	ctx := Context{SystemPrompt: "s", Messages: []Message{
		{Role: "user", Content: []Content{TextBlock("go")}, Timestamp: 1},
		call("a", 2), result("a", 3), call("b", 4), result("b", 5), call("c", 6), result("c", 7),
	}}
	var marked []string
	for _, msg := range requestMessages(t, m, ctx, Options{}) {
		for _, b := range msg["content"].([]any) {
			b := b.(map[string]any)
			if b["cache_control"] != nil {
				marked = append(marked, b["type"].(string)+":"+b["tool_use_id"].(string))
			}
		}
	}
	if d := cmp.Diff([]string{"tool_result:b", "tool_result:c"}, marked); d != "" {
		t.Errorf("cache marks (-want +got):\n%s", d)
	}
	if n := len(marked); n+2 > 4 { // system and tools take the other two
		t.Errorf("%d message marks: more than 4 breakpoints", n)
	}
}
