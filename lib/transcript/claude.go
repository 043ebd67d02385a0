package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// claudeRecord is what the conversion reads of a Claude Code line.
type claudeRecord struct {
	Type              string          `json:"type"`
	Subtype           string          `json:"subtype"`
	UUID              string          `json:"uuid"`
	ParentUUID        string          `json:"parentUuid"`
	LogicalParentUUID string          `json:"logicalParentUuid"`
	SessionID         string          `json:"sessionId"`
	AgentID           string          `json:"agentId"`
	Timestamp         string          `json:"timestamp"`
	Cwd               string          `json:"cwd"`
	IsSidechain       bool            `json:"isSidechain"`
	IsCompactSummary  bool            `json:"isCompactSummary"`
	Summary           json.RawMessage `json:"summary"`
	LeafUUID          string          `json:"leafUuid"`
	Attachment        json.RawMessage `json:"attachment"`
	CompactMetadata   struct {
		PreTokens int `json:"preTokens"`
	} `json:"compactMetadata"`
	Data struct {
		Type string `json:"type"`
	} `json:"data"`
	Message struct {
		ID      string          `json:"id"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
		Stop    *string         `json:"stop_reason"`
		Usage   *struct {
			Input      int `json:"input_tokens"`
			Output     int `json:"output_tokens"`
			CacheRead  int `json:"cache_read_input_tokens"`
			CacheWrite int `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// claudeBlock is what the conversion reads of a content block.
type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"` // redacted_thinking
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
	Source    struct {
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	} `json:"source"`
}

// claudeSession is one session being built: the main one or a sub-agent's.
type claudeSession struct {
	*builder
	agent   string
	ts      string
	open    map[string]string // API message id → its assistant entry, until the next prompt
	pending string            // a compaction entry waiting for its summary
	queued  []queued          // prompts typed while the agent worked
}

// queued is a prompt Claude Code delivers with its next request.
type queued struct {
	ts      string
	content []any
}

// deliver places the queued prompts where the next message goes (after
// parent) and returns where that message goes now.
func (s *claudeSession) deliver(parent string) string {
	for _, q := range s.queued {
		parent = s.add(q.ts, userMessage(q.ts, q.content), parent)
	}
	s.queued = nil
	return parent
}

// Why records are not imported.
const (
	whyProgress = "the UI's progress of running tools and hooks"
	whySnapshot = "file backups for the UI's rewind"
	whyQueue    = "the UI's prompt queue (queued prompts reach the transcript as messages)"
	whyRequest  = "copies of the requests Claude Code sent (system prompt, tools); the messages are imported from their own records"
)

// FromClaude converts a Claude Code project transcript. Lines of one API
// message (same message.id) become one assistant message; tool results
// follow the message holding their calls; sidechain records (a Task
// sub-agent's) become sessions of their own, unless the file holds nothing
// else (a 2.x subagents/agent-*.jsonl file given alone).
func FromClaude(lines [][]byte, opt Options) (Result, error) {
	var res Result
	var acc accounts
	var recs []claudeRecord
	var nums [][]byte
	var at []int
	eachLine(lines, &res.Problems, func(n int, line []byte) {
		var r claudeRecord
		if err := json.Unmarshal(line, &r); err != nil {
			var te *json.UnmarshalTypeError
			if !errors.As(err, &te) { // a field of an unexpected type: read what is there
				res.Problems = append(res.Problems, Problem{n, err})
				return
			}
		}
		recs, nums, at = append(recs, r), append(nums, line), append(at, n)
	})
	main := false // does the file hold records of the main conversation?
	for _, r := range recs {
		if (r.Type == "user" || r.Type == "assistant") && !r.IsSidechain {
			main = true
		}
	}
	newSession := func(agent string) *claudeSession {
		return &claudeSession{builder: newBuilder(opt), agent: agent, open: map[string]string{}}
	}
	top := newSession("")
	all := []*claudeSession{top}
	byAgent := map[string]*claudeSession{}
	owner := map[string]*claudeSession{} // record uuid → its session
	sessionID, cwd, alone := "", "", ""
	for i, r := range recs {
		n, line := at[i], nums[i]
		if sessionID == "" {
			sessionID = r.SessionID
		}
		if cwd == "" {
			cwd = r.Cwd
		}
		if !main && alone == "" && r.IsSidechain {
			alone = r.AgentID // a sub-agent's file: its session is not the main one
		}
		s := top
		if r.IsSidechain && main {
			switch {
			case owner[r.ParentUUID] != nil && owner[r.ParentUUID] != top:
				s = owner[r.ParentUUID]
			case r.AgentID != "" && byAgent[r.AgentID] != nil:
				s = byAgent[r.AgentID]
			default:
				name := r.AgentID
				if name == "" {
					name = fmt.Sprintf("sidechain-%d", len(all))
				}
				s = newSession(name)
				all = append(all, s)
				if r.AgentID != "" {
					byAgent[r.AgentID] = s
				}
			}
		}
		if r.UUID != "" {
			owner[r.UUID] = s
		}
		if s.ts == "" && validTime(r.Timestamp) {
			s.ts = r.Timestamp
		}
		s.record(r, line, n, &acc)
	}
	if len(top.entries) == 0 && len(all) == 1 {
		return res, errors.New("no messages found in the transcript")
	}
	for _, s := range all {
		s.deliver(s.after(s.last))
		if len(s.entries) == 0 {
			continue
		}
		id := sessionID
		if s == top && alone != "" && sessionID != "" {
			id = sessionID + "-" + alone
		}
		if s.agent != "" {
			id = sessionID + "-" + s.agent
			if sessionID == "" {
				id = ""
			}
		}
		res.Sessions = append(res.Sessions, Session{Header: header(id, s.ts, cwd, opt), Entries: s.done(), Agent: s.agent})
	}
	res.Custom, res.Skipped = sorted(acc.custom), sorted(acc.skipped)
	return res, nil
}

func validTime(ts string) bool {
	return millis(ts) != 0 || strings.HasPrefix(ts, "1970-01-01T00:00:00")
}

// parent is the entry a record whose source parent is uuid goes after: a
// root for none, the newest entry for one this file does not hold.
func (s *claudeSession) parent(uuid string) string {
	if uuid == "" {
		return ""
	}
	if id, ok := s.alias[uuid]; ok {
		return s.after(id)
	}
	return s.after(s.last)
}

// skipped records pass their place in the tree on to their children.
func (s *claudeSession) passOn(r claudeRecord) {
	if r.UUID == "" {
		return
	}
	if r.ParentUUID == "" {
		s.alias[r.UUID] = ""
	} else if id, ok := s.alias[r.ParentUUID]; ok {
		s.alias[r.UUID] = id
	} else {
		s.alias[r.UUID] = s.last
	}
}

func (s *claudeSession) record(r claudeRecord, line []byte, n int, acc *accounts) {
	ts := isoOr(r.Timestamp, s.opt.Now)
	id := ""
	switch r.Type {
	case "user":
		id = s.user(r, ts, n, acc)
	case "assistant":
		id = s.assistant(r, ts, n, acc)
	case "attachment":
		var a struct {
			Type   string          `json:"type"`
			Prompt json.RawMessage `json:"prompt"`
		}
		json.Unmarshal(r.Attachment, &a)
		if a.Type == "queued_command" && len(a.Prompt) > 0 {
			// a prompt typed while the agent worked, delivered with the next request
			// they reach the model with the next request, after the pending tool results
			if content := claudeUserContent(a.Prompt, "queued prompt", n, acc); len(content) > 0 {
				s.queued = append(s.queued, queued{ts, content})
				s.passOn(r)
				return
			}
		}
		acc.kept("attachment", n)
		id = s.custom(ts, "claude-attachment", json.RawMessage(r.Attachment), s.parent(r.ParentUUID))
	case "system":
		if r.Subtype == "compact_boundary" {
			parent := r.ParentUUID
			if parent == "" {
				parent = r.LogicalParentUUID
			}
			id = s.add(ts, map[string]any{"type": "compaction", "summary": "", "firstKeptEntryId": "", "tokensBefore": r.CompactMetadata.PreTokens}, s.parent(parent))
			s.pending = id
			s.open = map[string]string{}
			break
		}
		acc.kept("system/"+r.Subtype, n)
		id = s.custom(ts, "claude-system", json.RawMessage(line), s.parent(r.ParentUUID))
	case "summary":
		acc.kept("summary", n)
		var text string
		json.Unmarshal(r.Summary, &text)
		id = s.custom(ts, "claude-summary", map[string]any{"summary": text, "leafUuid": r.LeafUUID}, s.last)
	case "progress":
		acc.skip("progress", whyProgress, n)
		s.passOn(r)
		return
	case "file-history-snapshot":
		acc.skip(r.Type, whySnapshot, n)
		s.passOn(r)
		return
	case "queue-operation":
		acc.skip(r.Type, whyQueue, n)
		s.passOn(r)
		return
	case "api-request", "api-request-blob", "api-request-shape":
		acc.skip(r.Type, whyRequest, n)
		s.passOn(r)
		return
	default:
		kind := r.Type
		if kind == "" {
			kind = "(no type)"
		}
		acc.kept(kind, n)
		parent := s.last
		if r.UUID != "" {
			parent = s.parent(r.ParentUUID)
		}
		id = s.custom(ts, "claude-"+r.Type, json.RawMessage(line), parent)
	}
	if r.UUID != "" {
		if id == "" {
			s.passOn(r)
		} else {
			s.alias[r.UUID] = id
		}
	}
}

// user converts a user record: tool results after their calls, then what
// the user wrote. It returns the last entry written.
func (s *claudeSession) user(r claudeRecord, ts string, n int, acc *accounts) string {
	if r.IsCompactSummary && s.pending != "" {
		var str string
		if json.Unmarshal(r.Message.Content, &str) != nil {
			var blocks []struct{ Type, Text string }
			json.Unmarshal(r.Message.Content, &blocks)
			var parts []string
			for _, b := range blocks {
				parts = append(parts, b.Text)
			}
			str = strings.Join(parts, "\n")
		}
		id := s.pending
		s.byID[id]["summary"] = str
		s.pending = ""
		return id
	}
	var str string
	if json.Unmarshal(r.Message.Content, &str) == nil {
		s.open = map[string]string{}
		return s.add(ts, userMessage(ts, []any{text(str)}), s.deliver(s.parent(r.ParentUUID)))
	}
	var blocks []json.RawMessage
	if json.Unmarshal(r.Message.Content, &blocks) != nil {
		acc.skip("user (content neither text nor blocks)", "", n)
		return ""
	}
	last := ""
	var content []any
	for _, raw := range blocks {
		var bl claudeBlock
		json.Unmarshal(raw, &bl)
		if bl.Type == "tool_result" {
			last = s.addResult(ts, bl.ToolUseID, claudeResultContent(bl.Content, n, acc), bl.IsError, s.parent(r.ParentUUID))
			continue
		}
		content = append(content, claudeBlocks([]json.RawMessage{raw}, "user", n, acc)...)
	}
	if len(content) > 0 {
		parent := last
		if parent == "" {
			parent = s.parent(r.ParentUUID)
		}
		last = s.add(ts, userMessage(ts, content), s.deliver(parent))
		s.open = map[string]string{}
	} else if last == "" {
		acc.skip("user (no content)", "an empty message", n)
	}
	return last
}

// claudeUserContent is a prompt given as a string or as blocks.
func claudeUserContent(raw json.RawMessage, where string, n int, acc *accounts) []any {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return []any{text(str)}
	}
	var blocks []json.RawMessage
	json.Unmarshal(raw, &blocks)
	return claudeBlocks(blocks, where, n, acc)
}

// claudeBlocks converts text and image blocks; others are counted.
func claudeBlocks(blocks []json.RawMessage, where string, n int, acc *accounts) []any {
	var out []any
	for _, raw := range blocks {
		var bl claudeBlock
		json.Unmarshal(raw, &bl)
		switch bl.Type {
		case "text":
			out = append(out, text(bl.Text))
		case "image":
			out = append(out, image(bl.Source.MediaType, bl.Source.Data, bl.Source.URL))
		default:
			acc.skip(where+" block "+bl.Type, "no counterpart in a session", n)
		}
	}
	return out
}

// image is an image block; one the transcript holds only by reference
// becomes a text note naming it.
func image(mime, data, ref string) map[string]any {
	if data == "" || mime == "" {
		if ref == "" {
			ref = "(none)"
		}
		return text("[image not in the transcript: " + ref + "]")
	}
	return map[string]any{"type": "image", "data": data, "mimeType": mime}
}

// claudeResultContent is a tool result's content: as a prompt's, with an
// empty text where nothing converts.
func claudeResultContent(raw json.RawMessage, n int, acc *accounts) []any {
	if out := claudeUserContent(raw, "tool result", n, acc); len(out) > 0 {
		return out
	}
	return []any{text("")}
}

// assistant converts an assistant record, adding it to the message of the
// same API message id when one is open.
func (s *claudeSession) assistant(r claudeRecord, ts string, n int, acc *accounts) string {
	var blocks []json.RawMessage
	var str string
	if json.Unmarshal(r.Message.Content, &str) == nil && str != "" {
		// content as a plain string (older and hand-written records), as
		// the API takes it: one text block
		b, _ := json.Marshal(map[string]string{"type": "text", "text": str})
		blocks = []json.RawMessage{b}
	} else {
		json.Unmarshal(r.Message.Content, &blocks)
	}
	id, merging := s.open[r.Message.ID]
	merging = merging && r.Message.ID != ""
	var msg map[string]any
	if merging {
		msg = s.byID[id]["message"].(map[string]any)
	} else {
		msg = map[string]any{"role": "assistant", "content": []any{}, "api": "anthropic-messages", "provider": "anthropic",
			"model": r.Message.Model, "stopReason": "stop", "usage": zeroUsage(), "timestamp": millis(r.Timestamp)}
		if r.Message.ID != "" {
			msg["responseId"] = r.Message.ID // the API message: lib/usage counts it once across files
		}
	}
	content := msg["content"].([]any)
	seen := map[string]bool{}
	for _, c := range content {
		if m, _ := c.(map[string]any); m["type"] == "toolCall" {
			seen[m["id"].(string)] = true
		}
	}
	var added []any
	for _, raw := range blocks {
		var bl claudeBlock
		json.Unmarshal(raw, &bl)
		switch bl.Type {
		case "text":
			added = append(added, text(bl.Text))
		case "thinking":
			added = append(added, map[string]any{"type": "thinking", "thinking": bl.Thinking, "thinkingSignature": bl.Signature})
		case "redacted_thinking":
			added = append(added, map[string]any{"type": "thinking", "thinking": "", "thinkingSignature": bl.Data, "redacted": true})
		case "tool_use", "server_tool_use":
			if seen[bl.ID] && bl.ID != "" {
				continue // the same block written again
			}
			seen[bl.ID] = true
			args := bl.Input
			if len(args) == 0 || args[0] != '{' {
				args = json.RawMessage(`{}`)
			}
			added = append(added, map[string]any{"type": "toolCall", "id": bl.ID, "name": bl.Name, "arguments": args})
		default:
			acc.skip("assistant block "+bl.Type, "no counterpart in a session", n)
		}
	}
	msg["content"] = append(content, added...)
	if r.Message.Model != "" {
		msg["model"] = r.Message.Model
	}
	if u := r.Message.Usage; u != nil { // each line repeats the message's usage so far: the last one counts, once
		cost, _ := msg["usage"].(map[string]any)["cost"]
		msg["usage"] = map[string]any{"input": u.Input, "output": u.Output, "cacheRead": u.CacheRead, "cacheWrite": u.CacheWrite,
			"totalTokens": u.Input + u.Output + u.CacheRead + u.CacheWrite, "cost": cost}
	}
	stop := ""
	if r.Message.Stop != nil {
		stop = map[string]string{"tool_use": "toolUse", "max_tokens": "length"}[*r.Message.Stop]
		if stop == "" {
			stop = "stop"
		}
	} else if len(s.callsOf(msg)) > 0 {
		stop = "toolUse"
	}
	if stop != "" {
		msg["stopReason"] = stop
	}
	if merging {
		s.calls(id, added)
		return id
	}
	id = s.addAssistant(ts, msg, s.deliver(s.parent(r.ParentUUID)))
	if r.Message.ID != "" {
		s.open[r.Message.ID] = id
	}
	return id
}

func (s *claudeSession) callsOf(msg map[string]any) []any {
	var out []any
	for _, c := range msg["content"].([]any) {
		if m, _ := c.(map[string]any); m["type"] == "toolCall" {
			out = append(out, m)
		}
	}
	return out
}
