// Package llm is the provider-neutral core of agentutils' model access: the
// message and stream-event types (pi's LLM Message and AssistantMessageEvent
// shapes, so the JSON that lib/session produces decodes here unchanged), one
// SSE reader, one partial-JSON parser, and a pure codec per wire API that turns
// a Context into an HTTP request and the response's SSE bytes into events, each
// wire API one entry of api.go's table (its auth header, request encoder and
// stream decoder: a new one is an entry there and its own codec file).
// The HTTP client, clocks and keys live in the commands; nothing here does I/O.
//
//	Context ──Codec.Request──▶ Request{URL, headers, body}  (the shell sends it)
//	SSE bytes ──SSEReader──▶ SSE events ──Codec decoder──▶ []Event (start … done|error)
package llm

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/agentutils/agentutils/lib/jsonw"
)

// Wire APIs.
const (
	AnthropicMessages  = "anthropic-messages"
	OpenAICompletions  = "openai-completions"
	OpenAIResponses    = "openai-responses"
	GoogleGenerativeAI = "google-generative-ai"
)

// Stop reasons of an assistant message.
const (
	StopStop    = "stop"
	StopLength  = "length"
	StopToolUse = "toolUse"
	StopError   = "error"
	StopAborted = "aborted"
)

// Content is one block of a message: text, thinking, toolCall or image.
type Content struct {
	Type string `json:"type"`

	Text          string `json:"text,omitempty"`
	TextSignature string `json:"textSignature,omitempty"`

	Thinking          string `json:"thinking,omitempty"`
	ThinkingSignature string `json:"thinkingSignature,omitempty"`
	Redacted          bool   `json:"redacted,omitempty"`

	ID               string          `json:"id,omitempty"`
	Name             string          `json:"name,omitempty"`
	Arguments        json.RawMessage `json:"arguments,omitempty"`
	ThoughtSignature string          `json:"thoughtSignature,omitempty"`

	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// MarshalJSON writes the fields of the block's type, in pi's order, with
// the ones that type requires present even when empty.
func (c Content) MarshalJSON() ([]byte, error) {
	o := obj{{"type", c.Type}}
	opt := func(k, v string) {
		if v != "" {
			o = append(o, member{k, v})
		}
	}
	switch c.Type {
	case "text":
		o = append(o, member{"text", c.Text})
		opt("textSignature", c.TextSignature)
	case "thinking":
		o = append(o, member{"thinking", c.Thinking})
		opt("thinkingSignature", c.ThinkingSignature)
		if c.Redacted {
			o = append(o, member{"redacted", true})
		}
	case "toolCall":
		args := c.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		o = append(o, member{"id", c.ID}, member{"name", c.Name}, member{"arguments", args})
		opt("thoughtSignature", c.ThoughtSignature)
	case "image":
		o = append(o, member{"data", c.Data}, member{"mimeType", c.MimeType})
	default:
		type plain Content
		return json.Marshal(plain(c))
	}
	// Members in pi's order, written as encoding/json would write them.
	return jsonw.Append(nil, o, jsonw.Options{EscapeHTML: true})
}

// TextBlock, ImageBlock and ToolCallBlock build content blocks.
func TextBlock(s string) Content { return Content{Type: "text", Text: s} }

// ImageBlock is a base64 image.
func ImageBlock(data, mime string) Content { return Content{Type: "image", Data: data, MimeType: mime} }

// ToolCallBlock is a tool call with JSON arguments.
func ToolCallBlock(id, name string, args json.RawMessage) Content {
	return Content{Type: "toolCall", ID: id, Name: name, Arguments: args}
}

// Cost is money in USD, per usage field.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// RoundCost rounds a sum of prices to a millionth of a dollar, so reports
// say 0.042675 and not 0.042675000000000005. Every report that adds costs
// rounds with it.
func RoundCost(c float64) float64 { return math.Round(c*1e6) / 1e6 }

// Usage counts tokens of one call. Input excludes cached tokens.
type Usage struct {
	Input       int  `json:"input"`
	Output      int  `json:"output"`
	CacheRead   int  `json:"cacheRead"`
	CacheWrite  int  `json:"cacheWrite"`
	TotalTokens int  `json:"totalTokens"`
	Cost        Cost `json:"cost"`
}

// ContextTokens is what compaction counts: totalTokens, or the sum of the four.
func (u Usage) ContextTokens() int {
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// Message is a user, assistant or toolResult message (pi's LLM Message).
// User content may be a plain string on the wire; it decodes into Content.
type Message struct {
	Role    string    `json:"role"`
	Content []Content `json:"content"`

	// assistant
	API          string `json:"api,omitempty"`
	Provider     string `json:"provider,omitempty"`
	Model        string `json:"model,omitempty"`
	Usage        *Usage `json:"usage,omitempty"`
	StopReason   string `json:"stopReason,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`

	// toolResult
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	Details    json.RawMessage `json:"details,omitempty"`
	IsError    bool            `json:"isError,omitempty"`

	Synthetic bool  `json:"synthetic,omitempty"`
	Timestamp int64 `json:"timestamp"`
}

// UnmarshalJSON accepts a user message whose content is a plain string.
// Blocks, the common case, decode in one pass.
func (m *Message) UnmarshalJSON(b []byte) error {
	type plain Message
	var p plain
	err := json.Unmarshal(b, &p)
	if err == nil {
		*m = Message(p)
		return nil
	}
	var raw struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(b, &raw) != nil || len(raw.Content) == 0 || raw.Content[0] != '"' {
		return err
	}
	var text string
	if err := json.Unmarshal(raw.Content, &text); err != nil {
		return err
	}
	var rest struct {
		plain
		Content json.RawMessage `json:"content"` // shadows the blocks
	}
	if err := json.Unmarshal(b, &rest); err != nil {
		return err
	}
	*m = Message(rest.plain)
	m.Content = []Content{TextBlock(text)}
	return nil
}

// MarshalJSON writes toolResult messages with isError always present and
// content never null.
func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message
	p := plain(m)
	if p.Content == nil {
		p.Content = []Content{}
	}
	b, err := json.Marshal(p)
	if err != nil || m.Role != "toolResult" || m.IsError {
		return b, err
	}
	return append(b[:len(b)-1], []byte(`,"isError":false}`)...), nil
}

// Text joins the message's text blocks.
func (m Message) Text() string {
	var b strings.Builder
	for _, c := range m.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// ToolCalls lists the message's tool-call blocks.
func (m Message) ToolCalls() []Content {
	var out []Content
	for _, c := range m.Content {
		if c.Type == "toolCall" {
			out = append(out, c)
		}
	}
	return out
}

// Tool is a tool as the model sees it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Context is everything one model call needs besides the model and options.
type Context struct {
	SystemPrompt string
	// History is the conversation before Messages, still as message JSON
	// (pi's LLM Message). A long session's history is decoded one message
	// at a time while a request body is encoded, so it is held once, as the
	// bytes it came in (which must not change while the Context is in use:
	// the decoded strings share them). A message that does not decode fails
	// the request body (Request.WriteBody's error): check History before a
	// call (CheckHistory).
	History  []json.RawMessage
	Messages []Message
	Tools    []Tool
	// hide, set by Secrets.Hide, is applied to each History message as it
	// is decoded.
	hide *Secrets
}

// HistoryError is a History message that does not decode.
type HistoryError struct {
	Index int // into History
	Err   error
}

func (e *HistoryError) Error() string {
	return fmt.Sprintf("history message %d: %v", e.Index+1, e.Err)
}

func (e *HistoryError) Unwrap() error { return e.Err }

// Each calls fn with every message in order: History, decoded one at a
// time, then Messages. It stops at the first History message that does not
// decode and returns a *HistoryError.
func (c Context) Each(fn func(Message)) error { return c.each(fn, false) }

// each is Each; with reuse set, the History messages it yields share their
// content array (and usage) from one message to the next, for a caller
// that lets go of each message before the next: encoding a long history
// then allocates nothing per message for them.
func (c Context) each(fn func(Message), reuse bool) error {
	d := decoder{alias: true, reuse: reuse}
	for i, raw := range c.History {
		m, err := d.decode(raw)
		if err != nil {
			return &HistoryError{i, err}
		}
		if c.hide != nil {
			m = c.hide.message(m, c.hide.hide, true) // m was just decoded: its own to change
		}
		fn(m)
	}
	for _, m := range c.Messages {
		fn(m)
	}
	return nil
}

// Size is about the size of the context's text in bytes: History as JSON,
// the text, thinking, data and arguments of Messages, the system prompt.
// A shell uses it to choose between holding a request body as bytes and
// encoding it while it is sent.
func (c Context) Size() int {
	n := len(c.SystemPrompt)
	for _, raw := range c.History {
		n += len(raw)
	}
	for _, m := range c.Messages {
		for _, b := range m.Content {
			n += len(b.Text) + len(b.Thinking) + len(b.Data) + len(b.Arguments)
		}
	}
	return n
}

// Len is the number of messages, History included.
func (c Context) Len() int { return len(c.History) + len(c.Messages) }

// Options tune one call. Zero values mean the defaults of §1.7.
type Options struct {
	MaxTokens      int      // 0: min(model.MaxTokens, 32000)
	Temperature    *float64 // nil: not sent
	Thinking       string   // off | minimal | low | medium | high | xhigh ("" = off)
	SessionID      string   // prompt cache key
	CacheRetention string   // none | short | long ("" = short)
	ToolChoice     string   // auto | any | none | tool:NAME ("" = not sent)
	APIKey         string
}

// Event is one AssistantMessageEvent of a streaming call. Partial is the
// message so far; Message (done) or Error (error) is the final one.
type Event struct {
	Type         string   `json:"type"`
	ContentIndex *int     `json:"contentIndex,omitempty"`
	Delta        string   `json:"delta,omitempty"`
	Content      string   `json:"content,omitempty"`
	ToolCall     *Content `json:"toolCall,omitempty"`
	Reason       string   `json:"reason,omitempty"`
	Partial      *Message `json:"partial,omitempty"`
	Message      *Message `json:"message,omitempty"`
	Error        *Message `json:"error,omitempty"`
}

// Final is the message a terminal event carries (nil for other events).
func (e Event) Final() *Message {
	switch e.Type {
	case "done":
		return e.Message
	case "error":
		return e.Error
	}
	return nil
}

// UniqueToolCallIDs renames the tool calls of m whose id is taken (taken
// reports an id already used in the session, or one earlier in m) to
// ID_2, ID_3, …: local servers (ollama, llama.cpp) number their calls
// call_1 again in every turn, and a repeated id pairs a later result with
// the earlier call. It reports whether it renamed any.
func UniqueToolCallIDs(m *Message, taken func(id string) bool) bool {
	renamed := false
	seen := map[string]bool{}
	used := func(id string) bool { return seen[id] || taken(id) }
	for i, c := range m.Content {
		if c.Type != "toolCall" || c.ID == "" {
			continue
		}
		if used(c.ID) {
			for n := 2; ; n++ {
				if id := fmt.Sprintf("%s_%d", c.ID, n); !used(id) {
					m.Content[i].ID, renamed = id, true
					break
				}
			}
		}
		seen[m.Content[i].ID] = true
	}
	return renamed
}
