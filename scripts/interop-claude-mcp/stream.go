package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/agentutils/agentutils/internal/fakellm"
)

var (
	addRE  = regexp.MustCompile("claude mcp add agentutils -- agent-mcp serve[^`\n]*")
	jsonRE = regexp.MustCompile(`\{"mcpServers": \{"agentutils".*`)
)

// readmeExamples are the README's two ways of giving Claude Code our MCP
// server, as written there: the `claude mcp add` line and the .mcp.json
// object ("" when missing).
func readmeExamples(readme string) (add, mcpJSON string) {
	return strings.TrimRight(addRE.FindString(readme), " "), jsonRE.FindString(readme)
}

// bashCalls reads Claude Code's stream-json output: whether the model
// called mcp__agentutils__bash, and the text of the tool results it got.
func bashCalls(stream string) (called bool, results []string) {
	sc := bufio.NewScanner(strings.NewReader(stream))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var ev struct {
			Type    string `json:"type"`
			Message struct {
				Content []struct {
					Type    string          `json:"type"`
					Name    string          `json:"name"`
					Content json.RawMessage `json:"content"`
				} `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		for _, c := range ev.Message.Content {
			switch {
			case ev.Type == "assistant" && c.Type == "tool_use" && c.Name == "mcp__agentutils__bash":
				called = true
			case ev.Type == "user" && c.Type == "tool_result":
				results = append(results, resultText(c.Content)...)
			}
		}
	}
	return called, results
}

// resultText is a tool result's content: the string, or the text of its
// parts.
func resultText(c json.RawMessage) []string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return []string{s}
	}
	var parts []struct {
		Text *string `json:"text"`
	}
	json.Unmarshal(c, &parts)
	var texts []string
	for _, p := range parts {
		if p.Text != nil {
			texts = append(texts, *p.Text)
		}
	}
	return texts
}

// requestSummary says what the fake provider received: "26 requests: 10×HEAD
// /api/hello; 16×POST /v1/messages; models 16×claude-sonnet-4-5".
func requestSummary(reqs []fakellm.Request) string {
	paths, models := map[string]int{}, map[string]int{}
	for _, r := range reqs {
		paths[r.Method+" "+r.Path]++
		var b struct {
			Model string `json:"model"`
		}
		if json.Unmarshal(r.Body, &b) == nil && b.Model != "" {
			models[b.Model]++
		}
	}
	counts := func(m map[string]int) string {
		var s []string
		for k, n := range m {
			s = append(s, fmt.Sprintf("%d×%s", n, k))
		}
		sort.Slice(s, func(i, j int) bool { return s[i][strings.Index(s[i], "×"):] < s[j][strings.Index(s[j], "×"):] })
		return strings.Join(s, "; ")
	}
	return fmt.Sprintf("%d requests: %s; models %s", len(reqs), counts(paths), counts(models))
}
