package session

import (
	"encoding/json"
	"github.com/agentutils/agentutils/lib/tooldef"
	"strings"

	"github.com/agentutils/agentutils/lib/llm"
)

// Summary is what listings show of a session.
type Summary struct {
	ID, Cwd, Title, ParentSession, Created string
	MessageCount                           int
	FirstMessage                           string
	AllMessagesText                        string
}

// Summarize reads a listing's facts from a header and its entries.
func Summarize(header []byte, entries []Record) Summary {
	h, _ := ParseHeader(header)
	s := Summary{ID: h.ID, Cwd: h.Cwd, Title: h.Title, ParentSession: h.ParentSession, Created: h.Timestamp}
	var all strings.Builder
	for _, e := range entries {
		m, ok := MsgOf(e)
		if !ok || m.Role != "user" && m.Role != "assistant" {
			continue
		}
		s.MessageCount++
		t := ContentText(m.Content)
		if s.FirstMessage == "" && m.Role == "user" {
			s.FirstMessage = t
		}
		if all.Len() < 1<<20 {
			all.WriteString(t)
			all.WriteByte('\n')
		}
	}
	if s.FirstMessage == "" {
		s.FirstMessage = "(no messages)"
	}
	s.AllMessagesText = all.String()
	return s
}

// ContentText joins the text of a message content (a string or blocks)
// with spaces.
func ContentText(raw json.RawMessage) string { return JoinText(raw, " ") }

// JoinText joins the text of a message content (a string or blocks) with
// sep between the text blocks.
func JoinText(raw json.RawMessage, sep string) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct{ Type, Text string }
	json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" {
			if b.Len() > 0 {
				b.WriteString(sep)
			}
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}

// Usage sums token counts and cost.
type Usage struct {
	Input      int64   `json:"input"`
	Output     int64   `json:"output"`
	CacheRead  int64   `json:"cacheRead"`
	CacheWrite int64   `json:"cacheWrite"`
	Cost       float64 `json:"cost"`
	Messages   int     `json:"assistantMessages"`
}

// Totals sums usage over every entry of the file, all branches: assistant
// messages, plus details.usage of task tool results (a sub-agent's spend,
// counted once: here for the parent's file; lib/usage, which reads every
// file, counts it from the sub-agent's own file and never from details).
func Totals(entries []Record) Usage {
	var t Usage
	for _, e := range entries {
		m, ok := MsgOf(e)
		if !ok {
			continue
		}
		raw := m.Usage
		if m.Role == "assistant" {
			t.Messages++
		} else if m.Role == "toolResult" && tooldef.IsTask(m.ToolName) {
			raw = MemberVals(m.Details, "usage")[0]
		} else {
			continue
		}
		u, ok := UsageOf(raw)
		if !ok {
			continue
		}
		t.Input += u.Input
		t.Output += u.Output
		t.CacheRead += u.CacheRead
		t.CacheWrite += u.CacheWrite
		t.Cost += u.Cost
	}
	t.Cost = llm.RoundCost(t.Cost)
	return t
}
