package event

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Tool co-process protocol message types (formats/tool-protocol). Exactly
// these; nothing else is spoken on a tool co-process's pipes.
const (
	ToolHello   = "hello"   // parent → child, first line
	ToolTools   = "tools"   // child → parent: the tool list (again with Replace)
	ToolCall    = "call"    // parent → child
	ToolUpdate  = "update"  // child → parent: partial result of a running call
	ToolResult  = "result"  // child → parent: the one final answer to a call
	ToolCancel  = "cancel"  // parent → child: one call (ID) or all
	ToolRequest = "request" // child → parent: an interactive ask
	ToolAnswer  = "answer"  // parent → child: the answer to a request
	ToolLog     = "log"     // child → parent: a diagnostic for stderr
	ToolNotice  = "notice"  // child → parent: news for the model's next turn
)

// Hello opens a session with a tool co-process.
type Hello struct {
	Type      string          `json:"type"` // "hello"
	Cwd       string          `json:"cwd"`
	SessionID string          `json:"sessionId,omitempty"`
	StateDir  string          `json:"stateDir,omitempty"`
	Tools     []string        `json:"tools,omitempty"`    // allowlist
	EditMode  string          `json:"editMode,omitempty"` // replace | hashline | apply_patch
	Display   string          `json:"display,omitempty"`  // line prefix format of read/grep
	Settings  json.RawMessage `json:"settings,omitempty"`
	Hooks     *bool           `json:"hooks,omitempty"` // false: the parent fires tool hooks
}

// Tools answers hello with the child's tools; Replace marks a later update.
type Tools struct {
	Type         string    `json:"type"` // "tools"
	Tools        []ToolDef `json:"tools"`
	Instructions []string  `json:"instructions,omitempty"`
	Errors       []string  `json:"errors,omitempty"`
	Replace      bool      `json:"replace,omitempty"`
}

// ToolDef describes one tool to the model and to the scheduler.
type ToolDef struct {
	Name         string          `json:"name"`
	Label        string          `json:"label,omitempty"`
	Description  string          `json:"description"`
	Parameters   json.RawMessage `json:"parameters"`  // JSON Schema of the arguments
	Concurrency  string          `json:"concurrency"` // "shared" or "exclusive"
	NonAbortable bool            `json:"nonAbortable"`
}

// Concurrency values of ToolDef.
const (
	Shared    = "shared"
	Exclusive = "exclusive"
)

// Call asks the child to run one tool.
type Call struct {
	Type      string          `json:"type"` // "call"
	ID        string          `json:"id"`   // the model's toolCallId
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Batch     *Batch          `json:"batch,omitempty"`
}

// Batch tells a child which calls of one assistant message belong together
// (informational; scheduling stays with the parent).
type Batch struct {
	ID    string   `json:"id"`
	Index int      `json:"index"`
	Names []string `json:"names"`
}

// Update is a partial result of a running call.
type Update struct {
	Type          string     `json:"type"` // "update"
	ID            string     `json:"id"`
	PartialResult ToolOutput `json:"partialResult"`
}

// Result is the one final answer to a call. A failure inside a tool is a
// Result with IsError, never a protocol error.
type Result struct {
	Type       string          `json:"type"` // "result"
	ID         string          `json:"id"`
	Content    []Content       `json:"content"`
	Details    json.RawMessage `json:"details,omitempty"`
	IsError    bool            `json:"isError"`
	DurationMs int64           `json:"durationMs,omitempty"`
}

// Cancel stops one running call (ID set) or every running call (ID empty).
// The child still answers each call with a Result.
type Cancel struct {
	Type string `json:"type"` // "cancel"
	ID   string `json:"id,omitempty"`
}

// ToolAsk is an interactive ask from a tool (kind ask, confirm or elicit).
type ToolAsk struct {
	Type      string          `json:"type"` // "request"
	RequestID string          `json:"requestId"`
	Kind      string          `json:"kind"`
	Payload   json.RawMessage `json:"payload,omitempty"`
}

// Answer answers a ToolAsk with a value, or says it was cancelled.
type Answer struct {
	Type      string          `json:"type"` // "answer"
	RequestID string          `json:"requestId"`
	Value     json.RawMessage `json:"value,omitempty"`
	Cancelled bool            `json:"cancelled,omitempty"`
}

// Log is a diagnostic the parent copies to its stderr.
type Log struct {
	Type  string `json:"type"`  // "log"
	Level string `json:"level"` // debug | info | warn | error
	Msg   string `json:"msg"`
}

// Notice is news a tool process has for the model, unasked (a background
// job ended): the parent adds it to the conversation at the model's next
// turn, as a custom message of CustomType (shown to people) that the model
// reads as a user message.
type Notice struct {
	Type       string          `json:"type"` // "notice"
	CustomType string          `json:"customType"`
	Text       string          `json:"text"`
	Details    json.RawMessage `json:"details,omitempty"`
}

// DecodeTool parses one protocol line into *Hello, *Tools, *Call, *Update,
// *Result, *Cancel, *ToolAsk, *Answer, *Log or *Notice. A trailing \r is stripped and
// unknown fields are ignored; a line that is not an object with a known type,
// or lacks a field its type requires, is an error (the receiver answers it
// with a log record and skips it).
func DecodeTool(line []byte) (any, error) {
	line = bytes.TrimRight(line, "\r\n")
	if err := strictObject(line); err != nil {
		return nil, err
	}
	var head struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(line, &head)
	var v any
	switch head.Type {
	case ToolHello:
		v = &Hello{}
	case ToolTools:
		v = &Tools{}
	case ToolCall:
		v = &Call{}
	case ToolUpdate:
		v = &Update{}
	case ToolResult:
		v = &Result{}
	case ToolCancel:
		v = &Cancel{}
	case ToolRequest:
		v = &ToolAsk{}
	case ToolAnswer:
		v = &Answer{}
	case ToolLog:
		v = &Log{}
	case ToolNotice:
		v = &Notice{}
	default:
		return nil, fmt.Errorf("unknown message type %q", head.Type)
	}
	if err := json.Unmarshal(line, v); err != nil {
		return nil, fmt.Errorf("%s: %w", head.Type, err)
	}
	if err := checkTool(v); err != nil {
		return nil, fmt.Errorf("%s: %w", head.Type, err)
	}
	return v, nil
}

func checkTool(v any) error {
	missing := func(f string) error { return fmt.Errorf("missing %q", f) }
	switch m := v.(type) {
	case *Call:
		if m.ID == "" {
			return missing("id")
		}
		if m.Name == "" {
			return missing("name")
		}
		if a := bytes.TrimSpace(m.Arguments); len(a) > 0 && a[0] != '{' && string(a) != "null" {
			return fmt.Errorf(`"arguments" must be an object`)
		}
	case *Update:
		if m.ID == "" {
			return missing("id")
		}
	case *Result:
		if m.ID == "" {
			return missing("id")
		}
		for i, c := range m.Content {
			if c.Type != "text" && c.Type != "image" {
				return fmt.Errorf("content[%d]: type %q, want text or image", i, c.Type)
			}
		}
	case *Log:
		switch m.Level {
		case "debug", "info", "warn", "error":
		default:
			return fmt.Errorf("level %q, want debug, info, warn or error", m.Level)
		}
	case *ToolAsk:
		if m.RequestID == "" {
			return missing("requestId")
		}
	case *Notice:
		if m.CustomType == "" {
			return missing("customType")
		}
		if m.Text == "" {
			return missing("text")
		}
	case *Answer:
		if m.RequestID == "" {
			return missing("requestId")
		}
		if len(m.Value) == 0 && !m.Cancelled {
			return fmt.Errorf(`an answer needs "value" or "cancelled": true`)
		}
	case *Tools:
		for i, t := range m.Tools {
			if t.Name == "" {
				return fmt.Errorf("tools[%d]: missing \"name\"", i)
			}
			if t.Concurrency != Shared && t.Concurrency != Exclusive {
				return fmt.Errorf("tools[%d] %s: concurrency must be %q or %q", i, t.Name, Shared, Exclusive)
			}
		}
	}
	return nil
}

// EncodeTool renders a protocol message as one line with its newline, setting
// Type from the Go type so callers cannot get it wrong.
func EncodeTool(v any) ([]byte, error) {
	switch m := v.(type) {
	case *Hello:
		m.Type = ToolHello
	case *Tools:
		m.Type = ToolTools
	case *Call:
		m.Type = ToolCall
	case *Update:
		m.Type = ToolUpdate
	case *Result:
		m.Type = ToolResult
		if m.Content == nil {
			m.Content = []Content{}
		}
	case *Cancel:
		m.Type = ToolCancel
	case *ToolAsk:
		m.Type = ToolRequest
	case *Answer:
		m.Type = ToolAnswer
	case *Log:
		m.Type = ToolLog
	case *Notice:
		m.Type = ToolNotice
	default:
		return nil, fmt.Errorf("not a tool protocol message: %T", v)
	}
	return marshalLine(v)
}

// marshalLine encodes v as one line, without escaping <, > and & (tool
// output and code are full of them; JSON does not need it).
func marshalLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// FormatBytes is the reference agent's size text in tool output and
// truncation notices: 512B, 50.0KB, 1.5MB.
func FormatBytes(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	case n < 1<<30:
		return fmt.Sprintf("%.1fMB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1fGB", float64(n)/(1<<30))
}
