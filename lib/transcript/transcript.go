// Package transcript converts other agents' session transcripts into pi
// session v3 records: Claude Code project JSONL (~/.claude/projects/…) and
// Codex rollout JSONL (~/.codex/sessions/…). Conversion is best effort and
// lossless where the formats meet: messages, tool calls and results,
// thinking; what has no counterpart is reported per line, never guessed.
package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentutils/agentutils/lib/session"
)

// Options are the values a conversion may not take from the world itself.
type Options struct {
	NewID func() string // entry ids
	Now   time.Time     // header time when the transcript has none
	Cwd   string        // cwd when the transcript has none
}

// Problem is a line that was skipped.
type Problem struct {
	Line int
	Err  error
}

// Detect names the format of a transcript from its first line: "claude",
// "codex", "pi" or "".
func Detect(first []byte) string {
	var v struct {
		Type      string          `json:"type"`
		UUID      string          `json:"uuid"`
		SessionID string          `json:"sessionId"`
		Payload   json.RawMessage `json:"payload"`
		Version   json.RawMessage `json:"version"`
	}
	if json.Unmarshal(first, &v) != nil {
		return ""
	}
	switch {
	case v.Type == "session":
		return "pi"
	case len(v.Payload) > 0:
		return "codex"
	case v.UUID != "" || v.SessionID != "" || v.Type == "summary" || v.Type == "file-history-snapshot":
		return "claude"
	}
	return ""
}

type builder struct {
	opt     Options
	entries [][]byte
	last    string
	byUUID  map[string]string
	names   map[string]string // tool-call id → tool name
}

func (b *builder) add(ts string, fields map[string]any, parentUUID, uuid string) {
	id := b.opt.NewID()
	parent := b.last
	if p, ok := b.byUUID[parentUUID]; ok && parentUUID != "" {
		parent = p
	}
	e := map[string]any{"id": id, "parentId": nil, "timestamp": ts}
	if parent != "" {
		e["parentId"] = parent
	}
	for k, v := range fields {
		e[k] = v
	}
	b.entries = append(b.entries, marshalOrdered(e))
	b.last = id
	if uuid != "" {
		b.byUUID[uuid] = id
	}
}

func isoOr(ts string, now time.Time) string {
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		return session.FormatTime(t)
	}
	return session.FormatTime(now)
}

func millis(ts string) int64 {
	t, _ := time.Parse(time.RFC3339Nano, ts)
	return t.UnixMilli()
}

// FromClaude converts a Claude Code project transcript.
func FromClaude(lines [][]byte, opt Options) ([]byte, [][]byte, []Problem, error) {
	b := &builder{opt: opt, byUUID: map[string]string{}}
	var problems []Problem
	sessionID, cwd, first := "", "", ""
	for n, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v struct {
			Type        string `json:"type"`
			UUID        string `json:"uuid"`
			ParentUUID  string `json:"parentUuid"`
			SessionID   string `json:"sessionId"`
			Timestamp   string `json:"timestamp"`
			Cwd         string `json:"cwd"`
			IsSidechain bool   `json:"isSidechain"`
			Summary     string `json:"summary"`
			Message     struct {
				Role    string          `json:"role"`
				Model   string          `json:"model"`
				Content json.RawMessage `json:"content"`
				Stop    string          `json:"stop_reason"`
				Usage   struct {
					Input      int `json:"input_tokens"`
					Output     int `json:"output_tokens"`
					CacheRead  int `json:"cache_read_input_tokens"`
					CacheWrite int `json:"cache_creation_input_tokens"`
				} `json:"usage"`
			} `json:"message"`
		}
		if err := json.Unmarshal(line, &v); err != nil {
			problems = append(problems, Problem{n + 1, fmt.Errorf("not JSON: %v", err)})
			continue
		}
		if sessionID == "" {
			sessionID = v.SessionID
		}
		if cwd == "" {
			cwd = v.Cwd
		}
		if first == "" && v.Timestamp != "" {
			first = v.Timestamp
		}
		if v.IsSidechain {
			continue
		}
		ts := isoOr(v.Timestamp, opt.Now)
		switch v.Type {
		case "user":
			var s string
			if json.Unmarshal(v.Message.Content, &s) == nil {
				b.add(ts, map[string]any{"type": "message", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": s}}, "timestamp": millis(v.Timestamp)}}, v.ParentUUID, v.UUID)
				continue
			}
			var blocks []map[string]any
			if json.Unmarshal(v.Message.Content, &blocks) != nil {
				problems = append(problems, Problem{n + 1, errors.New("user message content is neither text nor blocks")})
				continue
			}
			var userBlocks []any
			for _, bl := range blocks {
				switch bl["type"] {
				case "tool_result":
					id, _ := bl["tool_use_id"].(string)
					isErr, _ := bl["is_error"].(bool)
					b.add(ts, map[string]any{"type": "message", "message": map[string]any{"role": "toolResult", "toolCallId": id,
						"toolName": b.toolName(id), "content": claudeResultContent(bl["content"]), "isError": isErr, "timestamp": millis(v.Timestamp)}}, v.ParentUUID, v.UUID)
				case "text":
					userBlocks = append(userBlocks, map[string]any{"type": "text", "text": bl["text"]})
				case "image":
					if src, ok := bl["source"].(map[string]any); ok {
						userBlocks = append(userBlocks, map[string]any{"type": "image", "data": src["data"], "mimeType": src["media_type"]})
					}
				}
			}
			if len(userBlocks) > 0 {
				b.add(ts, map[string]any{"type": "message", "message": map[string]any{"role": "user", "content": userBlocks, "timestamp": millis(v.Timestamp)}}, v.ParentUUID, v.UUID)
			}
		case "assistant":
			var blocks []map[string]any
			json.Unmarshal(v.Message.Content, &blocks)
			var content []any
			for _, bl := range blocks {
				switch bl["type"] {
				case "text":
					content = append(content, map[string]any{"type": "text", "text": bl["text"]})
				case "thinking":
					content = append(content, map[string]any{"type": "thinking", "thinking": bl["thinking"], "thinkingSignature": bl["signature"]})
				case "tool_use":
					id, _ := bl["id"].(string)
					name, _ := bl["name"].(string)
					b.tools(id, name)
					content = append(content, map[string]any{"type": "toolCall", "id": id, "name": name, "arguments": bl["input"]})
				}
			}
			stop := map[string]string{"tool_use": "toolUse", "max_tokens": "length"}[v.Message.Stop]
			if stop == "" {
				stop = "stop"
			}
			u := v.Message.Usage
			b.add(ts, map[string]any{"type": "message", "message": map[string]any{"role": "assistant", "content": content,
				"api": "anthropic-messages", "provider": "anthropic", "model": v.Message.Model, "stopReason": stop,
				"usage": map[string]any{"input": u.Input, "output": u.Output, "cacheRead": u.CacheRead, "cacheWrite": u.CacheWrite,
					"totalTokens": u.Input + u.Output + u.CacheRead + u.CacheWrite, "cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
				"timestamp": millis(v.Timestamp)}}, v.ParentUUID, v.UUID)
		case "summary":
			if v.Summary != "" {
				b.add(ts, map[string]any{"type": "custom_message", "customType": "claude-summary", "content": v.Summary, "display": true}, "", "")
			}
		case "system", "file-history-snapshot", "queue-operation":
			// bookkeeping with no counterpart in the model's context
		default:
			problems = append(problems, Problem{n + 1, fmt.Errorf("unknown Claude Code record type %q", v.Type)})
		}
	}
	if len(b.entries) == 0 {
		return nil, nil, problems, errors.New("no messages found in the transcript")
	}
	return header(sessionID, first, cwd, opt), b.entries, problems, nil
}

func header(id, ts, cwd string, opt Options) []byte {
	if id == "" {
		id = opt.NewID() + opt.NewID()
	}
	if cwd == "" {
		cwd = opt.Cwd
	}
	return session.NewHeader(id, isoOr(ts, opt.Now), cwd)
}

func (b *builder) tools(id, name string) {
	if b.names == nil {
		b.names = map[string]string{}
	}
	b.names[id] = name
}

func (b *builder) toolName(id string) string {
	if n := b.names[id]; n != "" {
		return n
	}
	return "unknown"
}

func claudeResultContent(c any) []any {
	switch x := c.(type) {
	case string:
		return []any{map[string]any{"type": "text", "text": x}}
	case []any:
		var out []any
		for _, bl := range x {
			m, _ := bl.(map[string]any)
			switch m["type"] {
			case "text":
				out = append(out, map[string]any{"type": "text", "text": m["text"]})
			case "image":
				if src, ok := m["source"].(map[string]any); ok {
					out = append(out, map[string]any{"type": "image", "data": src["data"], "mimeType": src["media_type"]})
				}
			}
		}
		if out != nil {
			return out
		}
	}
	return []any{map[string]any{"type": "text", "text": ""}}
}

// FromCodex converts a Codex rollout file.
func FromCodex(lines [][]byte, opt Options) ([]byte, [][]byte, []Problem, error) {
	b := &builder{opt: opt, byUUID: map[string]string{}}
	var problems []Problem
	id, cwd, first, model := "", "", "", ""
	calls := map[string]string{}
	for n, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v struct {
			Timestamp string          `json:"timestamp"`
			Type      string          `json:"type"`
			Payload   json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(line, &v); err != nil {
			problems = append(problems, Problem{n + 1, fmt.Errorf("not JSON: %v", err)})
			continue
		}
		if first == "" {
			first = v.Timestamp
		}
		ts := isoOr(v.Timestamp, opt.Now)
		var p struct {
			ID        string `json:"id"`
			Cwd       string `json:"cwd"`
			Model     string `json:"model"`
			Type      string `json:"type"`
			Role      string `json:"role"`
			Name      string `json:"name"`
			CallID    string `json:"call_id"`
			Arguments string `json:"arguments"`
			Output    any    `json:"output"`
			Content   []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			Summary []struct {
				Text string `json:"text"`
			} `json:"summary"`
		}
		json.Unmarshal(v.Payload, &p)
		switch v.Type {
		case "session_meta":
			id, cwd = p.ID, p.Cwd
		case "turn_context":
			if p.Model != "" {
				model = p.Model
			}
			if p.Cwd != "" && cwd == "" {
				cwd = p.Cwd
			}
		case "response_item":
			switch p.Type {
			case "message":
				var texts []string
				for _, c := range p.Content {
					texts = append(texts, c.Text)
				}
				text := strings.Join(texts, "")
				switch p.Role {
				case "user":
					if strings.HasPrefix(text, "<environment_context>") || strings.HasPrefix(text, "<user_instructions>") {
						continue
					}
					b.add(ts, map[string]any{"type": "message", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}, "timestamp": millis(v.Timestamp)}}, "", "")
				case "assistant":
					b.add(ts, map[string]any{"type": "message", "message": assistant(model, []any{map[string]any{"type": "text", "text": text}}, "stop", v.Timestamp)}, "", "")
				}
			case "reasoning":
				var parts []string
				for _, s := range p.Summary {
					parts = append(parts, s.Text)
				}
				if len(parts) > 0 {
					b.add(ts, map[string]any{"type": "message", "message": assistant(model, []any{map[string]any{"type": "thinking", "thinking": strings.Join(parts, "\n\n")}}, "stop", v.Timestamp)}, "", "")
				}
			case "function_call", "custom_tool_call":
				args := json.RawMessage(p.Arguments)
				if !json.Valid(args) || len(args) == 0 || args[0] != '{' {
					args, _ = json.Marshal(map[string]string{"input": p.Arguments})
				}
				calls[p.CallID] = p.Name
				b.add(ts, map[string]any{"type": "message", "message": assistant(model, []any{map[string]any{"type": "toolCall", "id": p.CallID, "name": p.Name, "arguments": args}}, "toolUse", v.Timestamp)}, "", "")
			case "function_call_output", "custom_tool_call_output":
				out := ""
				switch o := p.Output.(type) {
				case string:
					out = o
				case map[string]any:
					out, _ = o["content"].(string)
				}
				name := calls[p.CallID]
				if name == "" {
					name = "unknown"
				}
				b.add(ts, map[string]any{"type": "message", "message": map[string]any{"role": "toolResult", "toolCallId": p.CallID, "toolName": name,
					"content": []any{map[string]any{"type": "text", "text": out}}, "isError": false, "timestamp": millis(v.Timestamp)}}, "", "")
			}
		case "event_msg", "compacted":
			// UI events and compaction markers: the response items carry the conversation
		default:
			problems = append(problems, Problem{n + 1, fmt.Errorf("unknown Codex record type %q", v.Type)})
		}
	}
	if len(b.entries) == 0 {
		return nil, nil, problems, errors.New("no messages found in the rollout")
	}
	return header(id, first, cwd, opt), b.entries, problems, nil
}

func assistant(model string, content []any, stop, ts string) map[string]any {
	return map[string]any{"role": "assistant", "content": content, "api": "openai-responses", "provider": "openai", "model": model,
		"stopReason": stop, "usage": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
			"cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}, "timestamp": millis(ts)}
}
