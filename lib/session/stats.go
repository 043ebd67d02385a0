package session

import (
	"encoding/json"
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
		if e.Type != "message" {
			continue
		}
		var v struct {
			Message struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(e.Raw, &v) != nil {
			continue
		}
		if v.Message.Role != "user" && v.Message.Role != "assistant" {
			continue
		}
		s.MessageCount++
		t := ContentText(v.Message.Content)
		if s.FirstMessage == "" && v.Message.Role == "user" {
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
// messages, plus details.usage of "task" tool results (subagent spend).
func Totals(entries []Record) Usage {
	var t Usage
	for _, e := range entries {
		if e.Type != "message" {
			continue
		}
		var v struct {
			Message struct {
				Role     string `json:"role"`
				ToolName string `json:"toolName"`
				Usage    *usage `json:"usage"`
				Details  struct {
					Usage *usage `json:"usage"`
				} `json:"details"`
			} `json:"message"`
		}
		if json.Unmarshal(e.Raw, &v) != nil {
			continue
		}
		u := v.Message.Usage
		if v.Message.Role == "assistant" {
			t.Messages++
		} else if v.Message.Role == "toolResult" && v.Message.ToolName == "task" {
			u = v.Message.Details.Usage
		} else {
			continue
		}
		if u == nil {
			continue
		}
		t.Input += u.Input
		t.Output += u.Output
		t.CacheRead += u.CacheRead
		t.CacheWrite += u.CacheWrite
		t.Cost += u.Cost.Total
	}
	t.Cost = llm.RoundCost(t.Cost)
	return t
}

type usage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
	Cost       struct {
		Total float64 `json:"total"`
	} `json:"cost"`
}
