package claudestream

import (
	"encoding/json"

	"github.com/agentutils/agentutils/lib/event"
)

// Streaming deltas as Claude Code's stream_event lines (its
// --include-partial-messages): each pi delta becomes the Anthropic SSE
// event it came from. Tool-call blocks whose id and name are not known at
// toolcall_start (compact deltas carry no partial message) are sent whole
// at toolcall_end.

type streamLine struct {
	Type            string  `json:"type"` // "stream_event"
	Event           any     `json:"event"`
	SessionID       string  `json:"session_id"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	UUID            string  `json:"uuid"`
}

type sse struct {
	Type         string      `json:"type"`
	Message      *apiMessage `json:"message,omitempty"`
	Index        *int        `json:"index,omitempty"`
	ContentBlock any         `json:"content_block,omitempty"`
	Delta        any         `json:"delta,omitempty"`
	Usage        *struct {
		OutputTokens int `json:"output_tokens"`
	} `json:"usage,omitempty"`
}

type deltaText struct {
	Type string `json:"type"` // text_delta
	Text string `json:"text"`
}

type deltaThinking struct {
	Type     string `json:"type"` // thinking_delta
	Thinking string `json:"thinking"`
}

type deltaJSON struct {
	Type        string `json:"type"` // input_json_delta
	PartialJSON string `json:"partial_json"`
}

type deltaStop struct {
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

// assistantEvent is the part of pi's AssistantMessageEvent the mapping reads.
type assistantEvent struct {
	Type         string          `json:"type"`
	ContentIndex int             `json:"contentIndex"`
	Delta        string          `json:"delta"`
	ToolCall     *block          `json:"toolCall"`
	Partial      json.RawMessage `json:"partial"`
}

type pendingTool struct {
	started bool
	buf     string
}

func (t *Translator) stream(ev any) []byte {
	return line(streamLine{Type: "stream_event", Event: ev, SessionID: t.opt.SessionID, UUID: t.id()})
}

// partialStart opens a streamed assistant message.
func (t *Translator) partialStart(m json.RawMessage) []byte {
	var msg agentMessage
	_ = json.Unmarshal(m, &msg)
	t.curID = msg.ResponseID
	if t.curID == "" {
		t.curID = t.msgID()
	}
	t.tools = map[int]*pendingTool{}
	am := apiMessage{ID: t.curID, Type: "message", Role: "assistant", Model: msg.Model, Content: []any{},
		Usage: usage{InputTokens: msg.Usage.Input, CacheReadInputTokens: msg.Usage.CacheRead, CacheCreationInputTokens: msg.Usage.CacheWrite, OutputTokens: msg.Usage.Output}}
	return t.stream(sse{Type: "message_start", Message: &am})
}

// partialUpdate maps one message_update.
func (t *Translator) partialUpdate(e event.Event) [][]byte {
	var ae assistantEvent
	if json.Unmarshal(e.AssistantMessageEvent, &ae) != nil {
		return nil
	}
	i := ae.ContentIndex
	start := func(b any) []byte { return t.stream(sse{Type: "content_block_start", Index: &i, ContentBlock: b}) }
	delta := func(d any) []byte { return t.stream(sse{Type: "content_block_delta", Index: &i, Delta: d}) }
	stop := func() []byte { return t.stream(sse{Type: "content_block_stop", Index: &i}) }
	switch ae.Type {
	case "text_start":
		return [][]byte{start(textBlock{Type: "text"})}
	case "text_delta":
		return [][]byte{delta(deltaText{Type: "text_delta", Text: ae.Delta})}
	case "thinking_start":
		return [][]byte{start(thinkingBlock{Type: "thinking"})}
	case "thinking_delta":
		return [][]byte{delta(deltaThinking{Type: "thinking_delta", Thinking: ae.Delta})}
	case "text_end", "thinking_end":
		return [][]byte{stop()}
	case "toolcall_start":
		p := &pendingTool{}
		t.tools[i] = p
		if b, ok := partialBlock(e, ae, i); ok && b.ID != "" && b.Name != "" {
			p.started = true
			return [][]byte{start(toolUseBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: json.RawMessage("{}")})}
		}
	case "toolcall_delta":
		p := t.tools[i]
		if p == nil {
			p = &pendingTool{}
			t.tools[i] = p
		}
		if p.started {
			return [][]byte{delta(deltaJSON{Type: "input_json_delta", PartialJSON: ae.Delta})}
		}
		p.buf += ae.Delta
	case "toolcall_end":
		p := t.tools[i]
		if p == nil {
			p = &pendingTool{}
		}
		delete(t.tools, i)
		var out [][]byte
		if !p.started && ae.ToolCall != nil {
			args := p.buf
			if args == "" {
				args = string(ae.ToolCall.Arguments)
			}
			out = append(out, start(toolUseBlock{Type: "tool_use", ID: ae.ToolCall.ID, Name: ae.ToolCall.Name, Input: json.RawMessage("{}")}),
				delta(deltaJSON{Type: "input_json_delta", PartialJSON: args}))
		}
		return append(out, stop())
	}
	return nil
}

// partialBlock finds content block i of the partial message, which
// message_update carries in --events full (in the event or beside it).
func partialBlock(e event.Event, ae assistantEvent, i int) (block, bool) {
	for _, raw := range []json.RawMessage{ae.Partial, e.Message} {
		if len(raw) == 0 {
			continue
		}
		var m agentMessage
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		if bs := m.blocks(); i < len(bs) {
			return bs[i], true
		}
	}
	return block{}, false
}

// partialEnd closes a streamed assistant message.
func (t *Translator) partialEnd(am apiMessage) [][]byte {
	md := sse{Type: "message_delta", Delta: deltaStop{StopReason: am.StopReason}}
	md.Usage = &struct {
		OutputTokens int `json:"output_tokens"`
	}{am.Usage.OutputTokens}
	return [][]byte{t.stream(md), t.stream(sse{Type: "message_stop"})}
}
