package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentutils/agentutils/lib/render/show"
)

// messages are the messages of a chat-completions request body, one
// compact JSON object each with sorted keys, the system prompt (the two
// agents' own) left out, and normalised only where the wire allows two
// spellings: a string content is the one text part it stands for (an empty
// or null one, no parts), and a tool call's arguments string is the JSON
// it holds.
func messages(body []byte) ([]string, error) {
	var req struct {
		Messages []map[string]any `json:"messages"`
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&req); err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	var out []string
	for _, m := range req.Messages {
		if m["role"] == "system" || m["role"] == "developer" {
			continue
		}
		m["content"] = parts(m["content"])
		if calls, ok := m["tool_calls"].([]any); ok {
			for _, c := range calls {
				if f, ok := c.(map[string]any)["function"].(map[string]any); ok {
					if s, ok := f["arguments"].(string); ok {
						var v any
						d := json.NewDecoder(strings.NewReader(s))
						d.UseNumber()
						if d.Decode(&v) == nil {
							f["arguments"] = v
						}
					}
				}
			}
		}
		var b bytes.Buffer
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(false)
		if err := e.Encode(m); err != nil {
			return nil, err
		}
		out = append(out, strings.TrimSuffix(b.String(), "\n"))
	}
	return out, nil
}

// parts is a message content as a list of parts.
func parts(c any) any {
	switch c := c.(type) {
	case nil:
		return []any{}
	case string:
		if c == "" {
			return []any{}
		}
		return []any{map[string]any{"type": "text", "text": c}}
	}
	return c
}

// isFileMention reports whether a normalised message is the
// <system-reminder> agent-chat sends for a fileMention message (oh-my-pi's
// role, unknown to pi 0.73, which drops it).
func isFileMention(msg string) bool {
	var m struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	json.Unmarshal([]byte(msg), &m)
	return len(m.Content) > 0 && strings.HasPrefix(m.Content[0].Text, "<system-reminder>\n<file path=")
}

// roles counts normalised messages by role: "1 assistant, 3 user".
func roles(msgs []string) string {
	n := map[string]int{}
	for _, msg := range msgs {
		var m struct {
			Role string `json:"role"`
		}
		json.Unmarshal([]byte(msg), &m)
		n[m.Role]++
	}
	var out []string
	for r, k := range n {
		out = append(out, fmt.Sprintf("%d %s", k, r))
	}
	sort.Slice(out, func(i, j int) bool { return strings.Fields(out[i])[1] < strings.Fields(out[j])[1] })
	return strings.Join(out, ", ")
}

// firstDiff is the first message where a and b differ, each cut to n bytes.
func firstDiff(a, b []string, n int) (i int, x, y string) {
	for i = 0; i < len(a) || i < len(b); i++ {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			break
		}
	}
	at := func(l []string) string {
		if i < len(l) {
			return show.Clip(l[i], n)
		}
		return "(none)"
	}
	return i, at(a), at(b)
}
