package render

import (
	"encoding/json"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
)

// EntryEvents are the events that draw one record of a session file as
// the live view drew it when it was made: a user message at its start,
// an assistant message at its end (its tool calls as headers), a tool
// result as its call's end. Other records (the header, model changes,
// labels, …) and lines that are not JSON draw nothing. A sub-agent's
// conversation is shown so, from its file, as it grows.
func EntryEvents(line []byte) []event.Event {
	var rec struct {
		Type    string          `json:"type"`
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Type != "message" {
		return nil
	}
	var m llm.Message
	if json.Unmarshal(rec.Message, &m) != nil {
		return nil
	}
	var v any
	switch m.Role {
	case "user":
		v = map[string]any{"type": event.MessageStart, "message": rec.Message}
	case "assistant":
		v = map[string]any{"type": event.MessageEnd, "message": rec.Message}
	case "toolResult":
		v = map[string]any{"type": event.ToolExecutionEnd, "toolCallId": m.ToolCallID, "toolName": m.ToolName, "isError": m.IsError,
			"result": map[string]any{"content": m.Content, "details": m.Details}}
	default:
		return nil
	}
	b, _ := json.Marshal(v)
	ev, err := event.Decode(b)
	if err != nil {
		return nil
	}
	return []event.Event{ev}
}
