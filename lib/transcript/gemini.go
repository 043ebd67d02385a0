package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Gemini CLI keeps a session as a chat recording in
// ~/.gemini/tmp/<project hash>/chats/: since 0.40 a JSONL file
// (session-<time>-<id>.jsonl) whose first line is the metadata
// {sessionId, projectHash, startTime, …}, then message records (a record
// with the id of an earlier one replaces it: tool calls and tokens are
// added to a message by writing it again), {"$set": {…}} metadata updates
// and {"$rewindTo": id} rewinds; before that one JSON object (.json) with
// the metadata and "messages". `/chat save TAG` writes checkpoint-TAG.json,
// the API history: [{role, parts}] or {"history": […], "authType"}.

// geminiMessage is a message record of a chat recording.
type geminiMessage struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Model     string          `json:"model"`
	Thoughts  []struct {
		Subject     string `json:"subject"`
		Description string `json:"description"`
	} `json:"thoughts"`
	Tokens *struct {
		Input    int `json:"input"`
		Output   int `json:"output"`
		Cached   int `json:"cached"`
		Thoughts int `json:"thoughts"`
		Tool     int `json:"tool"`
		Total    int `json:"total"`
	} `json:"tokens"`
	ToolCalls []struct {
		ID     string          `json:"id"`
		Name   string          `json:"name"`
		Args   json.RawMessage `json:"args"`
		Result json.RawMessage `json:"result"`
		Status string          `json:"status"`
	} `json:"toolCalls"`
}

// geminiPart is a part of the Gemini API's content.
type geminiPart struct {
	Text             *string `json:"text"`
	Thought          bool    `json:"thought"`
	ThoughtSignature string  `json:"thoughtSignature"`
	InlineData       *struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
	FileData *struct {
		MimeType string `json:"mimeType"`
		FileURI  string `json:"fileUri"`
	} `json:"fileData"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

// geminiMeta is the metadata of a chat recording.
type geminiMeta struct {
	SessionID   string   `json:"sessionId"`
	ProjectHash string   `json:"projectHash"`
	StartTime   string   `json:"startTime"`
	Kind        string   `json:"kind"`
	Directories []string `json:"directories"`
}

// IsGemini tells a Gemini CLI chat recording or checkpoint by its bytes.
func IsGemini(data []byte) bool {
	data = bytes.TrimSpace(data)
	first := data
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[0] == '{' {
		first = data[:i]
	}
	var m struct {
		SessionID   *string         `json:"sessionId"`
		ProjectHash *string         `json:"projectHash"`
		History     json.RawMessage `json:"history"`
	}
	if json.Unmarshal(first, &m) == nil && m.SessionID != nil && m.ProjectHash != nil {
		return true
	}
	if json.Unmarshal(data, &m) == nil && (m.SessionID != nil && m.ProjectHash != nil || len(m.History) > 0 && m.History[0] == '[') {
		return true
	}
	var h []struct {
		Role  string            `json:"role"`
		Parts []json.RawMessage `json:"parts"`
	}
	return len(data) > 0 && data[0] == '[' && json.Unmarshal(data, &h) == nil && len(h) > 0 && h[0].Role != "" && h[0].Parts != nil
}

// FromGemini converts a Gemini CLI chat recording (JSONL or the legacy
// JSON object) or a /chat save checkpoint. A rewind keeps the messages it
// took back on a branch of their own, and the conversation goes on from
// the message before them (a gemini-rewind custom entry marks the point).
func FromGemini(data []byte, opt Options) (Result, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return geminiCheckpoint(trimmed, opt)
	}
	var whole struct {
		geminiMeta
		Messages json.RawMessage `json:"messages"`
		History  json.RawMessage `json:"history"`
	}
	if json.Unmarshal(trimmed, &whole) == nil { // one object: the legacy form or a checkpoint
		if len(whole.History) > 0 && whole.SessionID == "" {
			return geminiCheckpoint(whole.History, opt)
		}
		var msgs []json.RawMessage
		if err := json.Unmarshal(whole.Messages, &msgs); err != nil {
			return Result{}, fmt.Errorf("messages: %v", err)
		}
		var fields map[string]json.RawMessage
		json.Unmarshal(trimmed, &fields)
		delete(fields, "messages")
		meta, _ := json.Marshal(fields)
		lines := [][]byte{meta}
		for _, m := range msgs {
			lines = append(lines, m)
		}
		return geminiRecording(lines, opt, true)
	}
	return geminiRecording(bytes.Split(bytes.TrimRight(data, "\n"), []byte{'\n'}), opt, false)
}

// geminiRecording converts the records of a chat recording; legacy marks
// the one-object form, whose record numbers are not lines.
func geminiRecording(lines [][]byte, opt Options, legacy bool) (Result, error) {
	var res Result
	var acc accounts
	type rec struct {
		n      int
		raw    []byte
		id     string
		rewind *string
		set    map[string]json.RawMessage
		meta   bool
	}
	var recs []rec
	final := map[string]json.RawMessage{} // message id → its last version
	var meta geminiMeta
	eachLine(lines, &res.Problems, func(n int, line []byte) {
		var v struct {
			ID          *string                    `json:"id"`
			Rewind      *string                    `json:"$rewindTo"`
			Set         map[string]json.RawMessage `json:"$set"`
			SessionID   *string                    `json:"sessionId"`
			ProjectHash *string                    `json:"projectHash"`
		}
		if err := json.Unmarshal(line, &v); err != nil {
			res.Problems = append(res.Problems, Problem{n, err})
			return
		}
		r := rec{n: n, raw: line, rewind: v.Rewind, set: v.Set}
		switch {
		case v.Rewind != nil, v.Set != nil:
		case v.ID != nil:
			r.id = *v.ID
			final[r.id] = line
		case v.SessionID != nil && v.ProjectHash != nil:
			r.meta = true
			if meta.SessionID == "" {
				json.Unmarshal(line, &meta)
			}
		}
		recs = append(recs, r)
	})
	b := newBuilder(opt)
	g := &geminiSession{builder: b, acc: &acc, done: map[string]bool{}, end: map[string]string{}, answered: map[string]bool{}}
	var path []string // the active messages' ids
	first := ""
	for _, r := range recs {
		ts := isoOr("", opt.Now)
		switch {
		case r.meta:
			acc.kept("metadata", r.n)
			id := b.custom(ts, "gemini-session", json.RawMessage(r.raw), g.leaf(path))
			if g.base == "" {
				g.base = id // the conversation follows it
			}
		case r.rewind != nil:
			i := indexOf(path, *r.rewind)
			if i < 0 {
				i = 0
			}
			path = path[:i]
			acc.kept("$rewindTo", r.n)
			b.custom(ts, "gemini-rewind", map[string]any{"rewindTo": *r.rewind}, g.leaf(path))
			g.rewound = b.last
		case r.set != nil:
			if msgs, ok := r.set["messages"]; ok {
				var list []json.RawMessage
				json.Unmarshal(msgs, &list)
				path = path[:0]
				for _, m := range list {
					var v struct{ ID string }
					json.Unmarshal(m, &v)
					if _, seen := final[v.ID]; !seen {
						final[v.ID] = m
					}
					if g.message(final[v.ID], r.n, g.leaf(path)) {
						path = append(path, v.ID)
					}
				}
			}
			_, rebuilt := r.set["messages"]
			delete(r.set, "messages")
			delete(r.set, "lastUpdated") // written after every message: nothing to keep
			switch {
			case len(r.set) > 0:
				acc.kept("$set", r.n)
				b.custom(ts, "gemini-set", r.set, b.last)
			case !rebuilt:
				acc.skip("$set lastUpdated", "the time of the last update, written after every message", r.n)
			}
		case r.id != "":
			if g.done[r.id] {
				continue // a message written again: its last version was converted
			}
			if g.message(final[r.id], r.n, g.leaf(path)) {
				path = append(path, r.id)
			}
			if first == "" {
				var v struct{ Timestamp string }
				json.Unmarshal(r.raw, &v)
				first = v.Timestamp
			}
		default:
			acc.kept("(unknown record)", r.n)
			b.custom(ts, "gemini-record", json.RawMessage(r.raw), g.leaf(path))
		}
	}
	if b.messages == 0 {
		return res, errors.New("no messages found in the chat recording")
	}
	if meta.StartTime != "" {
		first = meta.StartTime
	}
	cwd := ""
	if len(meta.Directories) > 0 {
		cwd = meta.Directories[0]
	}
	res.Sessions = []Session{{Header: header(meta.SessionID, first, cwd, opt), Entries: b.done()}}
	res.Custom, res.Skipped = sorted(acc.custom), sorted(acc.skipped)
	if legacy { // record numbers, not lines
		for i := range res.Problems {
			res.Problems[i].Err = fmt.Errorf("message %d: %v", res.Problems[i].Line-1, res.Problems[i].Err)
		}
	}
	return res, nil
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// geminiSession converts messages of a chat recording.
type geminiSession struct {
	*builder
	acc      *accounts
	done     map[string]bool   // message ids converted
	answered map[string]bool   // call ids whose result is written
	end      map[string]string // message id → its last entry (its last tool result)
	rewound  string            // the rewind entry the next message follows, if any
	base     string            // the metadata entry the first message follows
}

// leaf is the entry the next message of path follows.
func (g *geminiSession) leaf(path []string) string {
	if g.rewound != "" {
		return g.rewound
	}
	if len(path) == 0 {
		return g.base
	}
	return g.end[path[len(path)-1]]
}

// message converts one message record after parent; false when it is not
// a message of the conversation (kept or skipped).
func (g *geminiSession) message(raw []byte, n int, parent string) bool {
	var m geminiMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			g.acc.skip("message (unreadable)", err.Error(), n)
			return false
		}
	}
	g.done[m.ID] = true
	ts := isoOr(m.Timestamp, g.opt.Now)
	switch m.Type {
	case "user":
		last, content, responses := g.responses(m, ts, n, parent)
		if len(content) > 0 {
			last = g.add(ts, userMessage(m.Timestamp, content), last)
		}
		if last == parent {
			if !responses { // else counted as they were
				g.acc.skip("user (no content)", "an empty message", n)
			}
			return false
		}
		g.end[m.ID] = last
	case "gemini":
		g.end[m.ID] = g.assistant(m, ts, n, parent)
	default:
		kind := m.Type
		if kind == "" {
			kind = "(no type)"
		}
		g.acc.kept(kind, n)
		g.end[m.ID] = g.custom(ts, "gemini-"+m.Type, json.RawMessage(raw), parent)
	}
	g.rewound = ""
	return true
}

// responses converts the function responses of a user message (since
// 0.5x Gemini CLI also records a call's response as the user message the
// model got): the result of a call its gemini message already gave is not
// written again. It returns the entry the rest follows, the other parts,
// and whether the message held responses.
func (g *geminiSession) responses(m geminiMessage, ts string, n int, parent string) (string, []any, bool) {
	var parts []json.RawMessage
	if json.Unmarshal(m.Content, &parts) != nil {
		return parent, geminiContent(m.Content, "user", n, g.acc), false
	}
	last, held := parent, false
	var rest []json.RawMessage
	for _, p := range parts {
		var gp geminiPart
		json.Unmarshal(p, &gp)
		fr := gp.FunctionResponse
		held = held || fr != nil
		switch {
		case fr == nil:
			rest = append(rest, p)
		case g.answered[fr.ID]:
			g.acc.skip("user functionResponse", "a call's result, converted with its call", n)
		default:
			g.answered[fr.ID] = true
			last = g.addResult(ts, fr.ID, []any{text(responseText(fr.Response))}, false, last)
		}
	}
	if len(rest) == 0 {
		return last, nil, held
	}
	raw, _ := json.Marshal(rest)
	return last, geminiContent(raw, "user", n, g.acc), held
}

// assistant converts a gemini message: its thoughts, text and tool calls,
// then the calls' results.
func (g *geminiSession) assistant(m geminiMessage, ts string, n int, parent string) string {
	var content []any
	for _, th := range m.Thoughts {
		s := th.Description
		if th.Subject != "" {
			s = "**" + th.Subject + "** " + s
		}
		content = append(content, map[string]any{"type": "thinking", "thinking": s, "thinkingSignature": ""})
	}
	content = append(content, geminiContent(m.Content, "gemini", n, g.acc)...)
	for _, tc := range m.ToolCalls {
		content = append(content, map[string]any{"type": "toolCall", "id": tc.ID, "name": tc.Name, "arguments": objectOr(tc.Args)})
	}
	usage := zeroUsage()
	if t := m.Tokens; t != nil {
		usage = map[string]any{"input": t.Input - t.Cached + t.Tool, "output": t.Output + t.Thoughts, "cacheRead": t.Cached,
			"cacheWrite": 0, "totalTokens": t.Total, "cost": zeroUsage()["cost"]}
	}
	stop := "stop"
	if len(m.ToolCalls) > 0 {
		stop = "toolUse"
	}
	msg := map[string]any{"role": "assistant", "content": content, "api": "google-generative-ai", "provider": "google",
		"model": m.Model, "stopReason": stop, "usage": usage, "timestamp": millis(m.Timestamp)}
	if m.ID != "" {
		msg["responseId"] = m.ID // lib/usage counts a message once across files
	}
	id := g.addAssistant(ts, msg, parent)
	last := id
	for _, tc := range m.ToolCalls {
		if len(tc.Result) == 0 || string(tc.Result) == "null" {
			g.acc.skip("tool call without a result", "the call did not run (status "+tc.Status+")", n)
			continue
		}
		out := geminiContent(tc.Result, "tool result", n, g.acc)
		if len(out) == 0 {
			out = []any{text("")}
		}
		last = g.addResult(ts, tc.ID, out, tc.Status == "error" || tc.Status == "cancelled", last)
		g.answered[tc.ID] = true
	}
	return last
}

// objectOr is args as a call's arguments: an object, else {}.
func objectOr(args json.RawMessage) json.RawMessage {
	if len(args) > 0 && args[0] == '{' {
		return args
	}
	return json.RawMessage(`{}`)
}

// geminiContent converts a PartListUnion: a string, a part or a list of
// them (strings among them too). A function response becomes its output
// text (its response's "output", else the response as JSON).
func geminiContent(raw json.RawMessage, where string, n int, acc *accounts) []any {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return nil
		}
		return []any{text(s)}
	}
	var items []json.RawMessage
	if raw[0] != '[' {
		items = []json.RawMessage{raw}
	} else if json.Unmarshal(raw, &items) != nil {
		acc.skip(where+" content (unreadable)", "", n)
		return nil
	}
	var out []any
	for _, it := range items {
		if json.Unmarshal(it, &s) == nil {
			out = append(out, text(s))
			continue
		}
		var p geminiPart
		json.Unmarshal(it, &p)
		switch {
		case p.Text != nil && p.Thought:
			out = append(out, map[string]any{"type": "thinking", "thinking": *p.Text, "thinkingSignature": p.ThoughtSignature})
		case p.Text != nil:
			out = append(out, text(*p.Text))
		case p.InlineData != nil:
			if where == "gemini" {
				acc.skip("inlineData in a gemini message", "a session's assistant messages hold no images", n)
				continue
			}
			out = append(out, image(p.InlineData.MimeType, p.InlineData.Data, "inlineData"))
		case p.FileData != nil:
			out = append(out, image("", "", p.FileData.FileURI))
		case p.FunctionResponse != nil:
			out = append(out, text(responseText(p.FunctionResponse.Response)))
		default:
			acc.skip(where+" part "+partKind(it), "no counterpart in a session", n)
		}
	}
	return out
}

// responseText is a function response as the model reads it: its "output"
// or "error" string, else the response as JSON.
func responseText(resp json.RawMessage) string {
	var r struct {
		Output *string `json:"output"`
		Error  *string `json:"error"`
	}
	json.Unmarshal(resp, &r)
	var obj map[string]json.RawMessage
	json.Unmarshal(resp, &obj)
	if r.Output != nil && len(obj) == 1 {
		return *r.Output
	}
	if r.Error != nil && len(obj) == 1 {
		return *r.Error
	}
	return string(resp)
}

// partKind names a part by its first member.
func partKind(raw json.RawMessage) string {
	var obj map[string]json.RawMessage
	json.Unmarshal(raw, &obj)
	var keys []string
	for k := range obj {
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return "(empty)"
	}
	return strings.Join(sortedKeys(keys), "+")
}

func sortedKeys(keys []string) []string {
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// geminiCheckpoint converts a /chat save checkpoint: the API history, user
// and model turns of parts. Calls without ids are paired with the
// responses of their name in order.
func geminiCheckpoint(raw json.RawMessage, opt Options) (Result, error) {
	var res Result
	var acc accounts
	var raws []json.RawMessage
	if err := json.Unmarshal(raw, &raws); err != nil {
		return res, fmt.Errorf("history: %v", err)
	}
	b := newBuilder(opt)
	ts := isoOr("", opt.Now)
	unanswered := map[string][]string{} // tool name → call ids waiting for a response
	calls := 0
	for i, tr := range raws {
		n := i + 1
		var t struct {
			Role  string            `json:"role"`
			Parts []json.RawMessage `json:"parts"`
		}
		if err := json.Unmarshal(tr, &t); err != nil {
			res.Problems = append(res.Problems, Problem{n, fmt.Errorf("turn %d: %v", n, err)})
			continue
		}
		switch t.Role {
		case "user":
			var content []any
			for _, p := range t.Parts {
				var gp geminiPart
				json.Unmarshal(p, &gp)
				if fr := gp.FunctionResponse; fr != nil {
					id := fr.ID
					if q := unanswered[fr.Name]; id == "" && len(q) > 0 {
						id, unanswered[fr.Name] = q[0], q[1:]
					}
					b.addResult(ts, id, []any{text(responseText(fr.Response))}, false, b.after(b.last))
					continue
				}
				content = append(content, geminiContent(p, "user", n, &acc)...)
			}
			if len(content) > 0 {
				b.add(ts, userMessage("", content), b.after(b.last))
			}
		case "model":
			var content []any
			for _, p := range t.Parts {
				var gp geminiPart
				json.Unmarshal(p, &gp)
				if fc := gp.FunctionCall; fc != nil {
					id := fc.ID
					if id == "" {
						calls++
						id = fmt.Sprintf("%s-%d", fc.Name, calls)
						unanswered[fc.Name] = append(unanswered[fc.Name], id)
					}
					call := map[string]any{"type": "toolCall", "id": id, "name": fc.Name, "arguments": objectOr(fc.Args)}
					if gp.ThoughtSignature != "" {
						call["thoughtSignature"] = gp.ThoughtSignature
					}
					content = append(content, call)
					continue
				}
				content = append(content, geminiContent(p, "gemini", n, &acc)...)
			}
			stop := "stop"
			for _, c := range content {
				if c.(map[string]any)["type"] == "toolCall" {
					stop = "toolUse"
				}
			}
			b.addAssistant(ts, map[string]any{"role": "assistant", "content": content, "api": "google-generative-ai",
				"provider": "google", "model": "", "stopReason": stop, "usage": zeroUsage(), "timestamp": opt.Now.UnixMilli()}, b.after(b.last))
		default:
			acc.kept("turn/"+t.Role, n)
			b.custom(ts, "gemini-turn", tr, b.last)
		}
	}
	if b.messages == 0 {
		return res, errors.New("no messages found in the checkpoint")
	}
	res.Sessions = []Session{{Header: header("", opt.Now.Format(time.RFC3339Nano), "", opt), Entries: b.done()}}
	res.Custom, res.Skipped = sorted(acc.custom), sorted(acc.skipped)
	return res, nil
}
