package loop

import (
	"encoding/json"
	"fmt"

	"github.com/agentutils/agentutils/lib/event"
)

// Stop reasons of an assistant message (pi's StopReason).
const (
	StopStop    = "stop"
	StopLength  = "length"
	StopToolUse = "toolUse"
	StopError   = "error"
	StopAborted = "aborted"
)

// ToolCall is a toolCall block of an assistant message.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	intent    string          // taken out of Arguments (intent tracing)
}

// Assistant is what the loop reads from an assistant message.
type Assistant struct {
	StopReason   string
	ErrorMessage string
	ToolCalls    []ToolCall
	Usage        Usage
}

// Usage is the token usage of an assistant message.
type Usage struct {
	Input       int `json:"input"`
	Output      int `json:"output"`
	CacheRead   int `json:"cacheRead"`
	CacheWrite  int `json:"cacheWrite"`
	TotalTokens int `json:"totalTokens"`
}

// ContextTokens is the size of the context the message was produced from
// plus the message itself: totalTokens, or the sum of the parts when a
// provider leaves it out.
func (u Usage) ContextTokens() int {
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// peek holds the fields of any AgentMessage the loop looks at.
type peek struct {
	Role         string            `json:"role"`
	StopReason   string            `json:"stopReason"`
	ErrorMessage string            `json:"errorMessage"`
	Retried      bool              `json:"retried"`
	Usage        Usage             `json:"usage"`
	Content      json.RawMessage   `json:"content"`
	blocks       []json.RawMessage // Content when it is an array
}

func peekMessage(m json.RawMessage) (peek, error) {
	var p peek
	if err := json.Unmarshal(m, &p); err != nil {
		return p, fmt.Errorf("message: %w", err)
	}
	if len(p.Content) > 0 && p.Content[0] == '[' {
		if err := json.Unmarshal(p.Content, &p.blocks); err != nil {
			return p, fmt.Errorf("message content: %w", err)
		}
	}
	return p, nil
}

// ParseAssistant reads an assistant message's stop reason, error, usage and
// tool calls (in content order).
func ParseAssistant(m json.RawMessage) (Assistant, error) {
	p, err := peekMessage(m)
	if err != nil {
		return Assistant{}, err
	}
	if p.Role != "assistant" {
		return Assistant{}, fmt.Errorf("message: role %q, want assistant", p.Role)
	}
	a := Assistant{StopReason: p.StopReason, ErrorMessage: p.ErrorMessage, Usage: p.Usage}
	for i, b := range p.blocks {
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(b, &head) != nil || head.Type != "toolCall" {
			continue
		}
		var c ToolCall
		if err := json.Unmarshal(b, &c); err != nil {
			return a, fmt.Errorf("message content[%d]: %w", i, err)
		}
		if c.ID == "" || c.Name == "" {
			return a, fmt.Errorf("message content[%d]: toolCall without id or name", i)
		}
		a.ToolCalls = append(a.ToolCalls, c)
	}
	return a, nil
}

// Outcome is a tool call's result as the loop keeps it.
type Outcome struct {
	Content []event.Content
	Details json.RawMessage
	IsError bool
}

func textOutcome(s string) Outcome {
	return Outcome{Content: []event.Content{event.Text(s)}, IsError: true}
}

// ToolResultMessage is pi's toolResult AgentMessage.
type ToolResultMessage struct {
	Role       string          `json:"role"` // "toolResult"
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Content    []event.Content `json:"content"`
	Details    json.RawMessage `json:"details,omitempty"`
	IsError    bool            `json:"isError"`
	Timestamp  int64           `json:"timestamp"`
}

// UserMessage builds a user AgentMessage from text and images.
func UserMessage(text string, images []event.Content, now int64) json.RawMessage {
	content := []event.Content{event.Text(text)}
	content = append(content, images...)
	b, _ := json.Marshal(struct {
		Role      string          `json:"role"`
		Content   []event.Content `json:"content"`
		Timestamp int64           `json:"timestamp"`
	}{"user", content, now})
	return b
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only our own types are marshalled here
	}
	return b
}

func bptr(b bool) *bool { return &b }
