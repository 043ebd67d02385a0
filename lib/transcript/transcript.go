// Package transcript converts other agents' session transcripts into pi
// session v3 records: Claude Code project JSONL (~/.claude/projects/…),
// Codex rollout JSONL (~/.codex/sessions/…), Gemini CLI chat recordings
// and checkpoints (~/.gemini/tmp/…) and opencode sessions (its storage's
// files or an export). Every record of the source is
// accounted for: converted to a message, kept as a custom entry (not sent to
// the model), or counted in Result.Skipped by kind; a line that is not JSON
// is a Problem. Nothing is guessed.
package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
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

// Problem is a line that was skipped because it could not be read.
type Problem struct {
	Line int
	Err  error
}

// Session is one converted session. Header.ParentSession is left to the
// caller, who knows where the main session is written.
type Session struct {
	Header  session.Header
	Entries [][]byte
	Agent   string // the sub-agent's name for a sub-agent's session, "" for the main one
}

// delegations are the names of the tools that start a sub-agent: Claude
// Code's Task (Agent since 2.1).
var delegations = map[string]bool{"Task": true, "Agent": true}

// LinkSubagents sets the header's ParentToolCallID of each sub-agent
// session: the delegating call of main whose prompt argument is the
// sub-agent's first prompt, each call taken once, in order. It returns
// the agents of the sessions no call matched.
func LinkSubagents(main Session, subs []Session) (unlinked []string) {
	type call struct{ id, prompt string }
	var calls []call
	for _, e := range main.Entries {
		var v struct {
			Message struct {
				Role    string `json:"role"`
				Content []struct {
					Type, ID, Name string
					Arguments      struct {
						Prompt string `json:"prompt"`
					} `json:"arguments"`
				} `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(e, &v) != nil || v.Message.Role != "assistant" {
			continue
		}
		for _, b := range v.Message.Content {
			if b.Type == "toolCall" && delegations[b.Name] && b.Arguments.Prompt != "" {
				calls = append(calls, call{b.ID, strings.TrimSpace(b.Arguments.Prompt)})
			}
		}
	}
	used := map[int]bool{}
	for i := range subs {
		prompt := strings.TrimSpace(firstPrompt(subs[i].Entries))
		found := false
		for j, c := range calls {
			if !used[j] && prompt != "" && c.prompt == prompt {
				used[j], found = true, true
				subs[i].Header.ParentToolCallID = c.id
				break
			}
		}
		if !found {
			unlinked = append(unlinked, subs[i].Agent)
		}
	}
	return unlinked
}

// NoteSubagent adds to the result of the call callID in entries what a
// task call's result holds of its sub-agent (formats/session,
// "Sub-agents"): details.session (its file), details.sessionId and
// details.agent. It returns false when no result of the call is there.
func NoteSubagent(entries [][]byte, callID, file, id, agent string) bool {
	for i, e := range entries {
		if !bytes.Contains(e, []byte(`"toolCallId"`)) {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(e))
		dec.UseNumber()
		var v map[string]any
		if dec.Decode(&v) != nil {
			continue
		}
		m, _ := v["message"].(map[string]any)
		if m == nil || m["role"] != "toolResult" || m["toolCallId"] != callID {
			continue
		}
		d, _ := m["details"].(map[string]any)
		if d == nil {
			d = map[string]any{}
		}
		d["session"], d["sessionId"], d["agent"] = file, id, agent
		m["details"] = d
		entries[i] = marshalOrdered(v)
		return true
	}
	return false
}

// firstPrompt is the text of a session's first user message.
func firstPrompt(entries [][]byte) string {
	for _, e := range entries {
		var v struct {
			Message struct {
				Role    string `json:"role"`
				Content []struct{ Type, Text string }
			} `json:"message"`
		}
		if json.Unmarshal(e, &v) != nil || v.Message.Role != "user" {
			continue
		}
		var parts []string
		for _, b := range v.Message.Content {
			if b.Type == "text" {
				parts = append(parts, b.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// Tally counts the records of one kind that were not converted to messages.
type Tally struct {
	Kind  string // record type, "type/subtype" where that says more
	Count int
	First int    // line of the first one
	Why   string // for Skipped: why nothing of it is needed
}

// Result is a converted transcript: Sessions[0] is the main session, the
// others are its sub-agents' sessions (Claude Code sidechains).
type Result struct {
	Sessions []Session
	Custom   []Tally   // records kept as custom entries (not sent to the model)
	Skipped  []Tally   // records not imported, with why
	Problems []Problem // lines that are not JSON
}

// Detect names the format of a transcript from its first line: "claude",
// "codex", "gemini" (a chat recording's metadata line), "pi" or "". Files
// that are one JSON document (Gemini CLI's legacy sessions and
// checkpoints, opencode's) are told by IsGemini and IsOpencode.
func Detect(first []byte) string {
	var v struct {
		Type         string          `json:"type"`
		UUID         string          `json:"uuid"`
		SessionID    string          `json:"sessionId"`
		ID           string          `json:"id"`
		Timestamp    string          `json:"timestamp"`
		Payload      json.RawMessage `json:"payload"`
		Instructions json.RawMessage `json:"instructions"`
		Git          json.RawMessage `json:"git"`
		ProjectHash  *string         `json:"projectHash"`
	}
	if json.Unmarshal(first, &v) != nil {
		return ""
	}
	switch {
	case v.Type == "session":
		return "pi"
	case v.ProjectHash != nil && v.SessionID != "":
		return "gemini"
	case len(v.Payload) > 0:
		return "codex"
	case v.Type == "" && v.ID != "" && v.Timestamp != "" && (len(v.Instructions) > 0 || len(v.Git) > 0):
		return "codex" // the early rollout format: {"id","timestamp","instructions","git"}
	case v.UUID != "" || v.SessionID != "" || v.Type == "summary" || v.Type == "file-history-snapshot":
		return "claude"
	}
	return ""
}

// accounts tallies records by kind.
type accounts struct {
	custom, skipped map[string]*Tally
}

func (a *accounts) tally(m *map[string]*Tally, kind, why string, line int) {
	if *m == nil {
		*m = map[string]*Tally{}
	}
	t := (*m)[kind]
	if t == nil {
		t = &Tally{Kind: kind, First: line, Why: why}
		(*m)[kind] = t
	}
	t.Count++
}

func (a *accounts) kept(kind string, line int)      { a.tally(&a.custom, kind, "", line) }
func (a *accounts) skip(kind, why string, line int) { a.tally(&a.skipped, kind, why, line) }

func sorted(m map[string]*Tally) []Tally {
	var out []Tally
	for _, t := range m {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].First < out[j].First })
	return out
}

// builder assembles one session's entries. Entries stay maps until done, so
// an assistant message written over several lines grows in place.
type builder struct {
	opt      Options
	entries  []map[string]any
	byID     map[string]map[string]any
	last     string            // the newest entry
	alias    map[string]string // source record id → entry id
	group    map[string]string // assistant entry or one of its results → the assistant entry
	tail     map[string]string // assistant entry → its newest result (or itself)
	owner    map[string]string // tool call id → assistant entry
	names    map[string]string // tool call id → tool name
	messages int
}

func newBuilder(opt Options) *builder {
	return &builder{opt: opt, byID: map[string]map[string]any{}, alias: map[string]string{}, group: map[string]string{},
		tail: map[string]string{}, owner: map[string]string{}, names: map[string]string{}}
}

// after is where an entry whose source parent resolved to id goes: after
// the results of an assistant message, so they stay on the active path.
func (b *builder) after(id string) string {
	if g, ok := b.group[id]; ok {
		return b.tail[g]
	}
	return id
}

// add appends an entry under parent ("" for a root) and returns its id.
func (b *builder) add(ts string, fields map[string]any, parent string) string {
	id := b.opt.NewID()
	e := map[string]any{"id": id, "parentId": nil, "timestamp": ts}
	if parent != "" {
		e["parentId"] = parent
	}
	for k, v := range fields {
		e[k] = v
	}
	b.entries = append(b.entries, e)
	b.byID[id] = e
	b.last = id
	if e["type"] == "message" {
		b.messages++
	}
	return id
}

// addAssistant appends an assistant message whose tool calls later results
// follow.
func (b *builder) addAssistant(ts string, msg map[string]any, parent string) string {
	id := b.add(ts, map[string]any{"type": "message", "message": msg}, parent)
	b.group[id], b.tail[id] = id, id
	b.calls(id, msg["content"])
	return id
}

// calls records which assistant entry holds each tool call of content.
func (b *builder) calls(id string, content any) {
	blocks, _ := content.([]any)
	for _, bl := range blocks {
		if m, _ := bl.(map[string]any); m["type"] == "toolCall" {
			cid, _ := m["id"].(string)
			name, _ := m["name"].(string)
			b.owner[cid], b.names[cid] = id, name
		}
	}
}

// addResult appends a tool result after its call's assistant message and
// the results already there; fallback is the parent when the call is
// unknown.
func (b *builder) addResult(ts string, callID string, content []any, isErr bool, fallback string) string {
	parent := fallback
	owner, ok := b.owner[callID]
	if ok {
		parent = b.tail[owner]
	}
	name := b.names[callID]
	if name == "" {
		name = "unknown"
	}
	id := b.add(ts, map[string]any{"type": "message", "message": map[string]any{"role": "toolResult", "toolCallId": callID,
		"toolName": name, "content": content, "isError": isErr, "timestamp": millis(ts)}}, parent)
	if ok {
		b.group[id], b.tail[owner] = owner, id
	}
	return id
}

func (b *builder) custom(ts, kind string, data any, parent string) string {
	return b.add(ts, map[string]any{"type": "custom", "customType": kind, "data": data}, parent)
}

func (b *builder) done() [][]byte {
	out := make([][]byte, len(b.entries))
	for i, e := range b.entries {
		out[i] = marshalOrdered(e)
	}
	return out
}

func userMessage(ts string, content []any) map[string]any {
	return map[string]any{"type": "message", "message": map[string]any{"role": "user", "content": content, "timestamp": millis(ts)}}
}

func text(s any) map[string]any { return map[string]any{"type": "text", "text": s} }

// isoOr is ts as an entry timestamp, now when ts is not a time.
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

func header(id, ts, cwd string, opt Options) session.Header {
	if id == "" {
		id = opt.NewID() + opt.NewID()
	}
	if cwd == "" {
		cwd = opt.Cwd
	}
	return session.Header{Type: "session", Version: 3, ID: id, Timestamp: isoOr(ts, opt.Now), Cwd: cwd}
}

func zeroUsage() map[string]any {
	return map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
		"cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
}

// lines calls f with each non-blank line and its number; a line that is not
// a JSON object is a problem.
func eachLine(lines [][]byte, problems *[]Problem, f func(n int, line []byte)) {
	for i, line := range lines {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' || !json.Valid(line) {
			var v any
			err := json.Unmarshal(line, &v)
			if err == nil {
				err = fmt.Errorf("not a JSON object")
			}
			*problems = append(*problems, Problem{i + 1, fmt.Errorf("not JSON: %v", err)})
			continue
		}
		f(i+1, line)
	}
}
