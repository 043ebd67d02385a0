package loop

import (
	"encoding/json"
	"fmt"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
)

// DefaultReserveTokens is compaction.reserveTokens of the reference agent.
const DefaultReserveTokens = 16384

// The texts the model reads in synthetic tool results (the reference
// agent's words where it has them).
const (
	TextAborted     = "Tool execution was aborted."
	textNotFoundFmt = "Tool %s not found"
	textMaxTurnsFmt = "Not run: agent-chat stopped at --max-turns %d."
	textRetryCancel = "Retry cancelled"
	textReqAborted  = "Request was aborted"
)

// CompactionThreshold is the reference agent's check after a successful
// turn: compact when the context is within max(15% of the window,
// reserveTokens) of the window.
func CompactionThreshold(contextTokens, contextWindow, reserveTokens int) bool {
	if contextWindow <= 0 {
		return false
	}
	reserve := contextWindow * 15 / 100
	if reserveTokens > reserve {
		reserve = reserveTokens
	}
	return contextTokens > contextWindow-reserve
}

// DropOverflow is the --continue rule: a trailing assistant message that
// failed with a context overflow is dropped, so the model gets the
// (compacted) context again instead of the error.
func DropOverflow(history []json.RawMessage, last llm.Message, contextWindow int) []json.RawMessage {
	if len(history) > 0 && last.Role == "assistant" && last.StopReason == llm.StopError && llm.IsOverflow(last, contextWindow) {
		return history[:len(history)-1]
	}
	return history
}

// ThinkingEntry is the entry event that records a new thinking level.
func ThinkingEntry(level string) event.Event {
	return event.Event{Type: event.Entry, Entry: raw(struct {
		Type          string `json:"type"`
		ThinkingLevel string `json:"thinkingLevel"`
	}{"thinking_level_change", level})}
}

// toolResult is a synthetic toolResult message: an error with one text.
func toolResult(c llm.Content, text string, now int64) llm.Message {
	return llm.Message{Role: "toolResult", ToolCallID: c.ID, ToolName: c.Name, IsError: true, Timestamp: now,
		Content: []llm.Content{llm.TextBlock(text)}}
}

func notFound(name string) string { return fmt.Sprintf(textNotFoundFmt, name) }

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
