package event

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Agent event types (formats/events).
const (
	AgentStart          = "agent_start"
	AgentEnd            = "agent_end"
	TurnStart           = "turn_start"
	TurnEnd             = "turn_end"
	MessageStart        = "message_start"
	MessageUpdate       = "message_update"
	MessageEnd          = "message_end"
	ToolExecutionStart  = "tool_execution_start"
	ToolExecutionUpdate = "tool_execution_update"
	ToolExecutionEnd    = "tool_execution_end"
	AutoRetryStart      = "auto_retry_start"
	AutoRetryEnd        = "auto_retry_end"
	Entry               = "entry"
	ContextOverflow     = "context_overflow"
	MaxTurns            = "max_turns"
	CompactionSuggested = "compaction_suggested"
	CompactionStart     = "compaction_start"
	CompactionEnd       = "compaction_end"
	Request             = "request"
	Error               = "error"
)

// Types lists every agent event type this version knows, in stream order of
// first appearance; formats/events/schema.json enumerates the same set.
var Types = []string{
	AgentStart, TurnStart, MessageStart, MessageUpdate, MessageEnd,
	ToolExecutionStart, ToolExecutionUpdate, ToolExecutionEnd, TurnEnd, AgentEnd,
	AutoRetryStart, AutoRetryEnd, Entry, ContextOverflow, MaxTurns, CompactionSuggested, CompactionStart, CompactionEnd, Request, Error,
}

// Event is one line of the agent event stream. Only the fields of its Type
// are set; the others stay zero and are left out when encoded.
type Event struct {
	Type string `json:"type"`

	// message_start, message_update, message_end, turn_end: an AgentMessage;
	// error: a JSON string, the error text.
	Message json.RawMessage `json:"message,omitempty"`
	// message_update: pi's AssistantMessageEvent (text_delta, toolcall_end, …).
	AssistantMessageEvent json.RawMessage `json:"assistantMessageEvent,omitempty"`
	// turn_end: the toolResult messages of the turn, in call order.
	ToolResults []json.RawMessage `json:"toolResults,omitempty"`
	// agent_end: every message added in this run.
	Messages []json.RawMessage `json:"messages,omitempty"`

	// tool_execution_*.
	ToolCallID       string          `json:"toolCallId,omitempty"`
	ToolName         string          `json:"toolName,omitempty"`
	Args             json.RawMessage `json:"args,omitempty"`
	Intent           string          `json:"intent,omitempty"`
	ParentToolCallID string          `json:"parentToolCallId,omitempty"`
	PartialResult    *ToolOutput     `json:"partialResult,omitempty"`
	Result           *ToolOutput     `json:"result,omitempty"`
	IsError          *bool           `json:"isError,omitempty"`

	// auto_retry_*.
	Attempt      int    `json:"attempt,omitempty"`
	MaxAttempts  int    `json:"maxAttempts,omitempty"`
	DelayMs      int64  `json:"delayMs,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"` // also context_overflow
	Success      *bool  `json:"success,omitempty"`
	FinalError   string `json:"finalError,omitempty"`

	// entry: a session entry to persist (agent-session append).
	Entry json.RawMessage `json:"entry,omitempty"`

	// context_overflow, compaction_suggested.
	Model         string `json:"model,omitempty"`
	ContextWindow int    `json:"contextWindow,omitempty"`
	Reason        string `json:"reason,omitempty"`
	ContextTokens int    `json:"contextTokens,omitempty"`

	// max_turns: --max-turns N ended the run with tool calls left.
	MaxTurns int `json:"maxTurns,omitempty"`

	// request: an interactive ask forwarded from a tool or hook (--control).
	RequestID string          `json:"requestId,omitempty"`
	Kind      string          `json:"kind,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty"`

	// error: the last record of a failed JSONL stage; Code is its exit
	// status and Message holds the text as a JSON string (internal/app writes it).
	Code int `json:"code,omitempty"`

	// Raw is the line the event was decoded from, kept so routing stages can
	// write it back unchanged (unknown fields and types included).
	Raw json.RawMessage `json:"-"`
}

// ToolOutput is a tool's result or partial result as events carry it.
type ToolOutput struct {
	Content []Content       `json:"content"`
	Details json.RawMessage `json:"details,omitempty"`
}

// Content is a text or image block of a tool result.
type Content struct {
	Type     string `json:"type"` // "text" or "image"
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"` // base64, images
	MimeType string `json:"mimeType,omitempty"`
}

// Text is a text content block.
func Text(s string) Content { return Content{Type: "text", Text: s} }

// ErrorText is the text of an error record ("" for other events).
func (e Event) ErrorText() string {
	var s string
	if e.Type == Error && json.Unmarshal(e.Message, &s) == nil {
		return s
	}
	return ""
}

// Decode parses one line of the event stream. It fails on a line that is
// not a JSON object or has no string "type"; unknown types and fields are
// accepted (Raw keeps the line).
func Decode(line []byte) (Event, error) {
	var e Event
	line = bytes.TrimRight(line, "\r\n")
	if err := strictObject(line); err != nil {
		return e, err
	}
	if err := json.Unmarshal(line, &e); err != nil {
		return e, fmt.Errorf("event: %w", err)
	}
	if e.Type == "" {
		return e, fmt.Errorf("event: no \"type\" field")
	}
	e.Raw = append(json.RawMessage(nil), line...)
	return e, nil
}

// Encode renders an event as one line (with the trailing newline). An event
// decoded unchanged is written back as its Raw bytes.
func Encode(e Event) ([]byte, error) {
	if e.Raw != nil {
		return append(append([]byte(nil), e.Raw...), '\n'), nil
	}
	return marshalLine(e)
}

// strictObject checks that line is one JSON object with a string "type".
func strictObject(line []byte) error {
	var head struct {
		Type json.RawMessage `json:"type"`
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return fmt.Errorf("empty line")
	}
	if !json.Valid(line) {
		return fmt.Errorf("not valid JSON")
	}
	if t := bytes.TrimSpace(line); t[0] != '{' {
		return fmt.Errorf("not a JSON object")
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return err
	}
	if len(head.Type) == 0 || head.Type[0] != '"' {
		return fmt.Errorf("no string \"type\" field")
	}
	return nil
}
