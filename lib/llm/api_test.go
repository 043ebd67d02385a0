package llm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Each wire API puts the key in its header, as its entry says; the
// model's own header of that name wins; no key sends none.
func TestWireAPIAuth(t *testing.T) {
	cases := []struct {
		api, key string
		headers  map[string]string
		want     map[string]string // the credential headers sent
	}{
		{AnthropicMessages, "sk-ant-api", nil, map[string]string{"x-api-key": "sk-ant-api"}},
		{AnthropicMessages, "sk-ant-oat01", nil, map[string]string{"authorization": "Bearer sk-ant-oat01"}},
		{OpenAICompletions, "sk-1", nil, map[string]string{"authorization": "Bearer sk-1"}},
		{OpenAICompletions, "N/A", nil, map[string]string{}},
		{OpenAIResponses, "sk-1", map[string]string{"Authorization": "Bearer mine"}, map[string]string{"authorization": "Bearer mine"}},
		{OpenAIResponses, "", map[string]string{"api-key": "azure"}, map[string]string{"api-key": "azure"}},
		{GoogleGenerativeAI, "g-1", nil, map[string]string{"x-goog-api-key": "g-1"}},
		{GoogleGenerativeAI, "", nil, map[string]string{}},
	}
	for _, c := range cases {
		codec, err := CodecFor(c.api)
		if err != nil {
			t.Fatal(err)
		}
		m := Model{ID: "m", API: c.api, Provider: "p", BaseURL: "http://localhost", MaxTokens: 10, ContextWindow: 100, Headers: c.headers}
		req, err := codec.Request(m, Context{}, Options{APIKey: c.key})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for k, v := range req.Header {
			if IsCredential(k) {
				got[k] = v
			}
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s %q: (-want +got)\n%s", c.api, c.key, d)
		}
	}
	if _, err := CodecFor("nope"); err == nil || err.Error() != `unsupported api "nope" (supported: anthropic-messages, openai-completions, openai-responses, google-generative-ai)` {
		t.Errorf("unknown api: %v", err)
	}
}

// A call without arguments goes back as {} on every API, never as a
// schema (decoded from a Gemini functionCall without args).
func TestCallWithoutArgsReplayed(t *testing.T) {
	call := Message{Role: "assistant", StopReason: StopToolUse, Content: []Content{{Type: "toolCall", ID: "c1", Name: "read_theme"}}, Timestamp: 2}
	ctx := Context{Messages: []Message{{Role: "user", Content: []Content{TextBlock("theme?")}, Timestamp: 1}, call,
		{Role: "toolResult", ToolCallID: "c1", ToolName: "read_theme", Content: []Content{TextBlock("dark")}, Timestamp: 3}}}
	for _, api := range []string{AnthropicMessages, OpenAICompletions, OpenAIResponses, GoogleGenerativeAI} {
		codec, _ := CodecFor(api)
		m := testModel(api)
		m.ID = "test-model"
		req, err := codec.Request(m, ctx, Options{})
		if err != nil {
			t.Fatal(err)
		}
		body := string(req.BodyBytes())
		if strings.Contains(body, `"properties"`) {
			t.Errorf("%s: a call without arguments went back as a schema: %s", api, body)
		}
		if !strings.Contains(body, `{}`) {
			t.Errorf("%s: no {} arguments in %s", api, body)
		}
	}
}
