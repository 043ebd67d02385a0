package loop

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentutils/agentutils/lib/event"
)

// trace renders a step as short lines, so scenario tests read like the
// event stream they check.
func trace(s Step) []string {
	var out []string
	for _, e := range s.Events {
		out = append(out, evLine(e))
	}
	for _, c := range s.Cancel {
		out = append(out, fmt.Sprintf("CANCEL %d %s", c.Source, c.Cancel.ID))
	}
	for _, d := range s.Dispatch {
		out = append(out, evLine(d.Start), fmt.Sprintf("CALL %d %s %s %s", d.Source, d.Call.ID, d.Call.Name, d.Call.Arguments))
	}
	if s.CallModel {
		out = append(out, "MODEL")
	}
	if s.Done != nil {
		out = append(out, "DONE "+s.Done.Reason+unsent(s.Done.Unsent))
	}
	return out
}

func unsent(ms []json.RawMessage) string {
	if len(ms) == 0 {
		return ""
	}
	var ts []string
	for _, m := range ms {
		ts = append(ts, msgText(m))
	}
	return " unsent=" + strings.Join(ts, ",")
}

func msgText(m json.RawMessage) string {
	var v struct {
		Role       string `json:"role"`
		ToolCallID string `json:"toolCallId"`
		IsError    bool   `json:"isError"`
		StopReason string `json:"stopReason"`
		Content    []struct {
			Type string `json:"type"`
			Text string `json:"text"`
			ID   string `json:"id"`
		} `json:"content"`
	}
	_ = json.Unmarshal(m, &v)
	var parts []string
	for _, c := range v.Content {
		if c.Type == "toolCall" {
			parts = append(parts, "call:"+c.ID)
		} else {
			parts = append(parts, c.Text)
		}
	}
	s := v.Role
	if v.ToolCallID != "" {
		s += "(" + v.ToolCallID + ")"
	}
	if v.IsError {
		s += "!"
	}
	if v.StopReason != "" {
		s += "[" + v.StopReason + "]"
	}
	return s + ":" + strings.Join(parts, "|")
}

func evLine(e event.Event) string {
	switch e.Type {
	case event.MessageStart, event.MessageEnd:
		return e.Type + " " + msgText(e.Message)
	case event.ToolExecutionStart:
		return fmt.Sprintf("%s %s %s %s", e.Type, e.ToolCallID, e.ToolName, e.Args)
	case event.ToolExecutionUpdate:
		return fmt.Sprintf("%s %s %s", e.Type, e.ToolCallID, e.PartialResult.Content[0].Text)
	case event.ToolExecutionEnd:
		return fmt.Sprintf("%s %s err=%v %s", e.Type, e.ToolCallID, *e.IsError, e.Result.Content[0].Text)
	case event.TurnEnd:
		var rs []string
		for _, r := range e.ToolResults {
			rs = append(rs, msgText(r))
		}
		return fmt.Sprintf("turn_end %s results=[%s]", msgText(e.Message), strings.Join(rs, " "))
	case event.AgentEnd:
		return fmt.Sprintf("agent_end messages=%d", len(e.Messages))
	case event.CompactionSuggested:
		return fmt.Sprintf("compaction_suggested %d/%d", e.ContextTokens, e.ContextWindow)
	}
	return e.Type
}
