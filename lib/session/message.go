package session

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Msg is the typed view of an AgentMessage (a message entry's "message",
// a message_end event's): its role and the members readers of a session
// ask for, read in one pass over its top-level members (WalkMembers), the
// rest left in Raw. It replaces the partial structs each reader declared.
type Msg struct {
	Raw        json.RawMessage
	Role       string
	Content    json.RawMessage // a string or blocks, raw
	ToolName   string
	ToolCallID string // toolResult's
	IsError    bool   // toolResult's
	Command    string // bashExecution's
	Output     string // bashExecution's
	Summary    string // compactionSummary's and branchSummary's
	CustomType string
	Provider   string
	Model      string
	ResponseID string          // assistant's: the provider's id of the response
	Time       int64           // "timestamp": unix milliseconds (0 when absent or not an integer)
	Usage      json.RawMessage // raw; UsageOf reads it
	Details    json.RawMessage
	Display    json.RawMessage // custom messages': raw (absent: nil)
	Retried    bool
}

// ParseMsg reads the AgentMessage raw; ok is false when it is not a JSON
// object.
func ParseMsg(raw []byte) (m Msg, ok bool) {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 || raw[0] != '{' {
		return m, false
	}
	m.Raw = raw
	WalkMembers(raw, func(k, v []byte) {
		switch string(k) {
		case "role":
			m.Role, _ = CommonStrVal(v)
		case "content":
			m.Content = v
		case "toolName":
			m.ToolName, _ = CommonStrVal(v)
		case "toolCallId":
			m.ToolCallID, _ = StrVal(v)
		case "isError":
			m.IsError = string(v) == "true"
		case "command":
			m.Command, _ = StrVal(v)
		case "output":
			m.Output, _ = StrVal(v)
		case "summary":
			m.Summary, _ = StrVal(v)
		case "customType":
			m.CustomType, _ = StrVal(v)
		case "provider":
			m.Provider, _ = StrVal(v)
		case "model":
			m.Model, _ = StrVal(v)
		case "responseId":
			m.ResponseID, _ = StrVal(v)
		case "timestamp":
			m.Time, _ = strconv.ParseInt(string(v), 10, 64)
		case "usage":
			m.Usage = v
		case "details":
			m.Details = v
		case "display":
			m.Display = v
		case "retried":
			m.Retried = string(v) == "true"
		}
	})
	return m, true
}

// MsgOf is the AgentMessage of a message entry (ok false for any other
// record, or one without a message object).
func MsgOf(r Record) (Msg, bool) {
	if r.Type != "message" {
		return Msg{}, false
	}
	return ParseMsg(MemberVals(r.Raw, "message")[0])
}

// TokenUsage is an assistant message's usage (or a task result's
// details.usage): its token counts and its cost's total.
type TokenUsage struct {
	Input, Output, CacheRead, CacheWrite int64
	Cost                                 float64
}

// UsageOf reads a usage object (ok false when raw is not one).
func UsageOf(raw []byte) (u TokenUsage, ok bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return u, false
	}
	num := func(v []byte) int64 { n, _ := strconv.ParseInt(string(v), 10, 64); return n }
	WalkMembers(raw, func(k, v []byte) {
		switch string(k) {
		case "input":
			u.Input = num(v)
		case "output":
			u.Output = num(v)
		case "cacheRead":
			u.CacheRead = num(v)
		case "cacheWrite":
			u.CacheWrite = num(v)
		case "cost":
			u.Cost, _ = numVal(MemberVals(v, "total")[0])
		}
	})
	return u, true
}
