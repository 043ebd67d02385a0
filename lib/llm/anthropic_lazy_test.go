package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

// The wire messages of anthropic-messages are built while the body is
// encoded; the cache marks still land on the last two user messages, tool
// results still group, and a history that ends with the assistant still
// gets "Continue.".
func TestAnthropicMessagesShape(t *testing.T) {
	m := testModel(AnthropicMessages)
	hist := []Message{
		{Role: "user", Content: []Content{TextBlock("one")}, Timestamp: 1},
		{Role: "assistant", API: m.API, Provider: m.Provider, Model: m.ID, StopReason: StopToolUse, Timestamp: 2,
			Content: []Content{ToolCallBlock("a", "read", json.RawMessage(`{}`)), ToolCallBlock("b", "read", json.RawMessage(`{}`))}},
		{Role: "toolResult", ToolCallID: "a", ToolName: "read", Content: []Content{TextBlock("ra")}, Timestamp: 3},
		{Role: "toolResult", ToolCallID: "b", ToolName: "read", Content: []Content{TextBlock("rb")}, Timestamp: 4},
		{Role: "user", Content: []Content{TextBlock("two")}, Timestamp: 5},
		{Role: "assistant", API: m.API, Provider: m.Provider, Model: m.ID, StopReason: StopStop, Timestamp: 6, Content: []Content{TextBlock("ok")}},
	}
	req, err := anthropic{}.Request(m, Context{Messages: hist}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(req.BodyBytes(), &body); err != nil {
		t.Fatal(err)
	}
	var roles, marks []string
	for _, msg := range body.Messages {
		roles = append(roles, msg.Role)
		for _, b := range msg.Content {
			if b["cache_control"] != nil {
				marks = append(marks, b["text"].(string))
			}
		}
	}
	if got := strings.Join(roles, ","); got != "user,assistant,user,user,assistant,user" {
		t.Errorf("roles %s", got)
	}
	if len(body.Messages[2].Content) != 2 || body.Messages[2].Content[1]["tool_use_id"] != "b" {
		t.Errorf("tool results not grouped: %v", body.Messages[2].Content)
	}
	if got := strings.Join(marks, ","); got != "two,Continue." {
		t.Errorf("cache marks on %q, want the last two user messages' text", got)
	}
	empty, _ := anthropic{}.Request(m, Context{}, Options{})
	if !strings.Contains(string(empty.BodyBytes()), `"messages":null`) {
		t.Errorf("an empty history encodes as before: %s", empty.BodyBytes())
	}
}
