// Package compact holds the compaction algorithms of agent-compact, pure:
// token estimates, tool-output pruning, the cut point that splits a path
// into what is summarised and what is kept, the serialisation of a
// conversation for the summariser, and the file-operation lists carried
// across compactions. Entries come in as session records (lib/session);
// nothing here calls a model.
package compact

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/agentutils/agentutils/lib/session"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// Settings are the compaction settings (the reference's defaults below).
type Settings struct {
	ReserveTokens    int // 16384
	KeepRecentTokens int // 20000
	ProtectTokens    int // pruning: the newest tool output kept, 40000
	MinimumSavings   int // pruning: the least worth doing, 20000
}

// Defaults are the reference agent's settings.
var Defaults = Settings{ReserveTokens: 16384, KeepRecentTokens: 20000, ProtectTokens: 40000, MinimumSavings: 20000}

// imageChars is what an image in a tool result counts for (1200 tokens).
const imageChars = 4800

// protected says whether a tool's results are never pruned: those the
// table of tools marks (by our name or Claude Code's, for imported
// sessions) and pi's skill tool.
func protected(tool string) bool {
	t, _ := tooldef.Resolve(tool)
	return t.KeepOutput || tool == "skill" || tool == "Skill"
}

type message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolName   string          `json:"toolName"`
	Command    string          `json:"command"`
	Output     string          `json:"output"`
	Summary    string          `json:"summary"`
	PrunedAt   json.RawMessage `json:"prunedAt"`
	StopReason string          `json:"stopReason"`
	Usage      *struct {
		Input, Output, CacheRead, CacheWrite, TotalTokens int
	} `json:"usage"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func parse(raw json.RawMessage) (message, []block) {
	var m message
	json.Unmarshal(raw, &m)
	var bs []block
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		bs = []block{{Type: "text", Text: s}}
	} else {
		json.Unmarshal(m.Content, &bs)
	}
	return m, bs
}

// messageOf is the AgentMessage of a message entry (nil for other entries).
func messageOf(r session.Record) json.RawMessage {
	if r.Type != "message" {
		return nil
	}
	return session.MemberVals(r.Raw, "message")[0]
}

// roleOf is the role of a message entry's message ("" for other entries).
// Cut-point search asks it of every entry, so it skims rather than decodes.
func roleOf(r session.Record) string {
	v := session.MemberVals(messageOf(r), "role")[0]
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	var role string
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1])
	}
	json.Unmarshal(v, &role)
	return role
}

// Cut is where a path is split: entries before FirstKept are summarised,
// the rest kept. A split turn also summarises [TurnStart, FirstKept) as the
// turn's prefix.
type Cut struct {
	FirstKept int
	TurnStart int // -1 when the turn is not split
	Split     bool
}

// FindCutPoint walks back from end until keep tokens are kept and cuts at
// the next valid point (never at a tool result), pulls leading metadata
// into the kept part, and detects a split turn (§4.6).
func FindCutPoint(entries []Entry, start, end, keep int) Cut {
	valid := func(i int) bool {
		switch entries[i].Type {
		case "custom_message", "branch_summary":
			return true
		case "message":
			switch entries[i].info.role {
			case "user", "assistant", "bashExecution", "hookMessage", "branchSummary", "compactionSummary":
				return true
			}
		}
		return false
	}
	var cuts []int
	for i := start; i < end; i++ {
		if valid(i) {
			cuts = append(cuts, i)
		}
	}
	if len(cuts) == 0 {
		return Cut{FirstKept: start, TurnStart: -1}
	}
	cut := cuts[0]
	total := 0
	for i := end - 1; i >= start; i-- {
		if entries[i].Type != "message" || entries[i].Message == nil {
			continue
		}
		total += entries[i].Tokens
		if total >= keep {
			for _, c := range cuts {
				if c >= i {
					cut = c
					break
				}
			}
			break
		}
	}
	for cut > start && entries[cut-1].Type != "message" && entries[cut-1].Type != "compaction" {
		cut--
	}
	// The first message at or after the cut decides whether the turn is split.
	first := cut
	for first < end && entries[first].Type != "message" {
		first++
	}
	if first < end && entries[first].info.role == "user" {
		return Cut{FirstKept: cut, TurnStart: -1}
	}
	turn := -1
	for i := cut; i >= start; i-- {
		t := entries[i].Type
		if t == "branch_summary" || t == "custom_message" {
			turn = i
			break
		}
		if r := entries[i].info.role; r == "user" || r == "bashExecution" {
			turn = i
			break
		}
	}
	if turn == cut {
		turn = -1
	}
	return Cut{FirstKept: cut, TurnStart: turn, Split: turn >= 0}
}

// Serialize renders messages (already converted for the model) as the
// summariser reads them: [User]: …, [Assistant thinking]: …, [Assistant]: …,
// [Assistant tool calls]: name(k=v); …, [Tool result]: …, blank lines between.
func Serialize(msgs []json.RawMessage) string {
	var parts []string
	for _, raw := range msgs {
		role, bs, ok := skimSerialized(raw)
		if !ok {
			var m message
			m, bs = parse(raw)
			role = m.Role
		}
		texts := func(kind string, sep string) string {
			var out []string
			for _, b := range bs {
				if b.Type == kind {
					if kind == "thinking" {
						out = append(out, b.Thinking)
					} else {
						out = append(out, b.Text)
					}
				}
			}
			return strings.Join(out, sep)
		}
		switch role {
		case "user":
			if t := texts("text", ""); t != "" {
				parts = append(parts, "[User]: "+t)
			}
		case "assistant":
			if t := texts("thinking", "\n"); t != "" {
				parts = append(parts, "[Assistant thinking]: "+t)
			}
			if t := texts("text", "\n"); t != "" {
				parts = append(parts, "[Assistant]: "+t)
			}
			var calls []string
			for _, b := range bs {
				if b.Type != "toolCall" {
					continue
				}
				args, ok := skimArgs(b.Arguments)
				if !ok {
					args = nil
					json.Unmarshal(b.Arguments, &args)
				}
				var kv []string
				for _, k := range sortedKeys(args) {
					kv = append(kv, k+"="+string(args[k]))
				}
				calls = append(calls, b.Name+"("+strings.Join(kv, ", ")+")")
			}
			if len(calls) > 0 {
				parts = append(parts, "[Assistant tool calls]: "+strings.Join(calls, "; "))
			}
		case "toolResult":
			if t := texts("text", ""); t != "" {
				parts = append(parts, "[Tool result]: "+t)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
