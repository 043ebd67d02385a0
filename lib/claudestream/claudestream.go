// Package claudestream translates agent events (lib/event, formats/events)
// into Claude Code's stream-json dialect (formats/claude-stream): the
// stream `claude -p --output-format stream-json --verbose` writes, so an
// orchestrator written for Claude Code can drive agent-chat
// --output-format claude unchanged.
//
// The mapping:
//
//	agent_start (first)            → {"type":"system","subtype":"init",…}
//	message_end, role assistant    → {"type":"assistant","message":<Anthropic Message>}
//	message_end, role toolResult   → {"type":"user","message":{"role":"user","content":[tool_result]}}
//	message_end, role user         → {"type":"user",…} only with ReplayUserMessages
//	agent_end, error, overflow     → remembered for the result
//	Finish (the process ends)      → {"type":"result",…} with usage, cost, turns and durations
//
// With IncludePartialMessages, streaming deltas become stream_event lines
// (partial.go). Tool progress, entries and retries have no counterpart in
// the dialect and are dropped. The translator is pure: every
// event comes with the time it was seen (Unix ms), and ids come from
// Options.NewID.
package claudestream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentutils/agentutils/lib/event"
)

// Options describe the run for the init line and the ids.
type Options struct {
	SessionID     string
	Cwd           string
	Model         string   // "provider/id" or "id"
	Tools         []string // tool names
	MCPServers    []MCPServer
	SlashCommands []string // prompt template names
	Version       string   // agentutils version, as claude_code_version
	// ReplayUserMessages echoes user messages (Claude Code's
	// --replay-user-messages).
	ReplayUserMessages bool
	// IncludePartialMessages writes streaming deltas as stream_event lines
	// (Claude Code's --include-partial-messages).
	IncludePartialMessages bool
	// NewID returns a fresh uuid for each line; nil uses a counter, which
	// keeps golden tests stable.
	NewID func() string
}

// MCPServer is an entry of the init line's mcp_servers.
type MCPServer struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// Result subtypes.
const (
	Success              = "success"
	ErrorMaxTurns        = "error_max_turns"
	ErrorDuringExecution = "error_during_execution"
)

// Translator turns one agent-chat process's events into stream-json lines.
type Translator struct {
	opt      Options
	ids      int
	initDone bool

	start     int64 // first event
	msgStart  int64 // the running assistant message's message_start
	apiMs     int64
	turns     int
	usage     usage
	models    map[string]*modelUsage
	modelList []string
	cost      float64
	last      string // the last assistant text
	errs      []string
	errored   bool
	maxTurns  bool
	ran       bool
	finished  bool

	streaming bool // a stream_event message_start was written
	curID     string
	tools     map[int]*pendingTool
}

// New makes a translator.
func New(opt Options) *Translator {
	return &Translator{opt: opt, models: map[string]*modelUsage{}, start: -1, msgStart: -1}
}

func (t *Translator) id() string {
	if t.opt.NewID != nil {
		return t.opt.NewID()
	}
	t.ids++
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", t.ids)
}

// msgID makes an Anthropic-style message id.
func (t *Translator) msgID() string { return "msg_" + strings.ReplaceAll(t.id(), "-", "") }

// MaxTurns marks the run as stopped by --max-turns: the result's subtype
// becomes error_max_turns.
func (t *Translator) MaxTurns() { t.maxTurns = true }

// Init is the system/init line. Event emits it before the first
// agent_start; a driver that wants it earlier calls Init itself.
func (t *Translator) Init() []byte {
	if t.initDone {
		return nil
	}
	t.initDone = true
	tools := t.opt.Tools
	if tools == nil {
		tools = []string{}
	}
	mcp := t.opt.MCPServers
	if mcp == nil {
		mcp = []MCPServer{}
	}
	slash := t.opt.SlashCommands
	if slash == nil {
		slash = []string{}
	}
	return line(initLine{
		Type: "system", Subtype: "init", Cwd: t.opt.Cwd, SessionID: t.opt.SessionID,
		Tools: tools, MCPServers: mcp, Model: t.opt.Model, PermissionMode: "bypassPermissions",
		SlashCommands: slash, APIKeySource: "none", ClaudeCodeVersion: t.opt.Version,
		OutputStyle: "default", UUID: t.id(),
	})
}

// Event translates one event seen at now (Unix ms) into zero or more lines.
func (t *Translator) Event(e event.Event, now int64) ([][]byte, error) {
	if t.start < 0 {
		t.start = now
	}
	var out [][]byte
	switch e.Type {
	case event.AgentStart:
		t.ran = true
		if l := t.Init(); l != nil {
			out = append(out, l)
		}
	case event.TurnStart:
		t.turns++
	case event.MessageStart:
		if role(e.Message) == "assistant" {
			t.msgStart = now
			t.curID = ""
			if t.opt.IncludePartialMessages {
				t.streaming = true
				out = append(out, t.partialStart(e.Message))
			}
		}
	case event.MessageUpdate:
		if t.streaming {
			out = append(out, t.partialUpdate(e)...)
		}
	case event.MessageEnd:
		return t.messageEnd(e.Message, now)
	case event.ContextOverflow:
		t.errored = true
		t.errs = append(t.errs, "context overflow: "+e.ErrorMessage)
	case event.Error:
		t.errored = true
		t.errs = append(t.errs, e.ErrorText())
	}
	return out, nil
}

// Finish is the last line: the result of the run, with its duration up to
// now. It returns nil when called twice.
func (t *Translator) Finish(now int64) []byte {
	if t.finished {
		return nil
	}
	t.finished = true
	if t.start < 0 {
		t.start = now
	}
	r := resultLine{
		Type: "result", Subtype: Success, IsError: false,
		DurationMs: now - t.start, DurationAPIMs: t.apiMs, NumTurns: t.turns,
		SessionID: t.opt.SessionID, TotalCostUSD: round(t.cost), Usage: t.usage,
		ModelUsage: map[string]modelUsage{}, PermissionDenials: []any{}, UUID: t.id(),
	}
	for _, m := range t.modelList {
		mu := *t.models[m]
		mu.CostUSD = round(mu.CostUSD)
		r.ModelUsage[m] = mu
	}
	switch {
	case t.errored || !t.ran:
		r.Subtype, r.IsError = ErrorDuringExecution, true
		errs := append([]string{}, t.errs...)
		if !t.ran && len(errs) == 0 {
			errs = []string{"no run"}
		}
		r.Errors = &errs
	case t.maxTurns:
		r.Subtype, r.IsError = ErrorMaxTurns, true
		r.Errors = &[]string{}
	default:
		r.Result = &t.last
	}
	return line(r)
}

func (t *Translator) messageEnd(m json.RawMessage, now int64) ([][]byte, error) {
	var msg agentMessage
	if err := json.Unmarshal(m, &msg); err != nil {
		return nil, fmt.Errorf("message_end: %w", err)
	}
	switch msg.Role {
	case "assistant":
		if msg.Retried { // a failed attempt that was retried: not shown
			if t.streaming {
				t.streaming = false
				return t.partialEnd(apiMessage{}), nil
			}
			return nil, nil
		}
		if t.msgStart >= 0 {
			t.apiMs += now - t.msgStart
			t.msgStart = -1
		}
		t.account(msg)
		am, text, ok := t.assistant(msg)
		switch msg.StopReason {
		case "error":
			t.errored = true
			t.errs = append(t.errs, msg.ErrorMessage)
		case "aborted":
			t.errored = true
			t.errs = append(t.errs, "Request was aborted")
		default:
			t.last = text
		}
		var out [][]byte
		if t.streaming {
			t.streaming = false
			out = t.partialEnd(am)
		}
		if ok {
			out = append(out, line(envelope{Type: "assistant", Message: am, ParentToolUseID: nil, SessionID: t.opt.SessionID, UUID: t.id()}))
		}
		return out, nil
	case "toolResult":
		c := toolResultBlock{Type: "tool_result", ToolUseID: msg.ToolCallID, IsError: msg.IsError, Content: toolContent(msg.blocks())}
		u := userMessage{Role: "user", Content: []any{c}}
		return [][]byte{line(envelope{Type: "user", Message: u, SessionID: t.opt.SessionID, UUID: t.id()})}, nil
	case "user":
		if !t.opt.ReplayUserMessages {
			return nil, nil
		}
		u := userMessage{Role: "user", Content: userContent(msg)}
		return [][]byte{line(envelope{Type: "user", Message: u, SessionID: t.opt.SessionID, UUID: t.id()})}, nil
	}
	return nil, nil
}

// account adds an assistant message's usage and cost to the totals.
func (t *Translator) account(msg agentMessage) {
	u := msg.Usage
	t.usage.InputTokens += u.Input
	t.usage.OutputTokens += u.Output
	t.usage.CacheReadInputTokens += u.CacheRead
	t.usage.CacheCreationInputTokens += u.CacheWrite
	t.cost += u.Cost.Total
	name := msg.Model
	if name == "" {
		return
	}
	mu, ok := t.models[name]
	if !ok {
		mu = &modelUsage{}
		t.models[name] = mu
		t.modelList = append(t.modelList, name)
	}
	mu.InputTokens += u.Input
	mu.OutputTokens += u.Output
	mu.CacheReadInputTokens += u.CacheRead
	mu.CacheCreationInputTokens += u.CacheWrite
	mu.CostUSD += u.Cost.Total
}

// assistant converts an assistant AgentMessage into an Anthropic Message.
// ok is false when there is nothing to show (an aborted empty message).
func (t *Translator) assistant(msg agentMessage) (apiMessage, string, bool) {
	am := apiMessage{
		ID: msg.ResponseID, Type: "message", Role: "assistant", Model: msg.Model,
		Content: []any{}, StopReason: stopReason(msg.StopReason),
		Usage: usage{InputTokens: msg.Usage.Input, OutputTokens: msg.Usage.Output,
			CacheReadInputTokens: msg.Usage.CacheRead, CacheCreationInputTokens: msg.Usage.CacheWrite},
	}
	if am.ID == "" {
		am.ID = t.curID
	}
	if am.ID == "" {
		am.ID = t.msgID()
	}
	var texts []string
	for _, b := range msg.blocks() {
		switch b.Type {
		case "text":
			am.Content = append(am.Content, textBlock{Type: "text", Text: b.Text})
			texts = append(texts, b.Text)
		case "thinking":
			am.Content = append(am.Content, thinkingBlock{Type: "thinking", Thinking: b.Thinking, Signature: b.ThinkingSignature})
		case "toolCall":
			args := b.Arguments
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			am.Content = append(am.Content, toolUseBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: args})
		}
	}
	if msg.StopReason == "error" && msg.ErrorMessage != "" {
		// Claude Code reports a failed API call as an assistant text.
		am.Content = append(am.Content, textBlock{Type: "text", Text: "API Error: " + msg.ErrorMessage})
	}
	return am, strings.Join(texts, "\n"), len(am.Content) > 0
}

func stopReason(s string) *string {
	var r string
	switch s {
	case "stop":
		r = "end_turn"
	case "length":
		r = "max_tokens"
	case "toolUse":
		r = "tool_use"
	default:
		return nil
	}
	return &r
}

// toolContent is a tool_result's content: one string when every block is
// text (joined by newlines), else Anthropic content blocks.
func toolContent(blocks []block) any {
	allText := true
	var texts []string
	for _, b := range blocks {
		if b.Type != "text" {
			allText = false
			break
		}
		texts = append(texts, b.Text)
	}
	if allText {
		return strings.Join(texts, "\n")
	}
	var out []any
	for _, b := range blocks {
		switch b.Type {
		case "text":
			out = append(out, textBlock{Type: "text", Text: b.Text})
		case "image":
			out = append(out, imageBlock{Type: "image", Source: imageSource{Type: "base64", MediaType: b.MimeType, Data: b.Data}})
		}
	}
	return out
}

func userContent(msg agentMessage) any {
	if len(msg.Content) > 0 && msg.Content[0] == '"' {
		var s string
		_ = json.Unmarshal(msg.Content, &s)
		return s
	}
	return toolContent(msg.blocks())
}

func role(m json.RawMessage) string {
	var r struct {
		Role string `json:"role"`
	}
	_ = json.Unmarshal(m, &r)
	return r.Role
}

// round keeps costs readable (micro-dollar precision).
func round(f float64) float64 {
	return float64(int64(f*1e6+0.5)) / 1e6
}

// line encodes v as one line, leaving <, > and & as they are (as
// JavaScript's JSON.stringify does, so our lines match Claude Code's bytes).
func line(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only our own types are encoded
	}
	return b.Bytes()
}
