package fakellm

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The agent mode answers MCPBASH `CMD` with a call of the MCP server's bash
// tool as Claude Code names it, when that tool is offered, and a greeting
// when it is not; RUN `CMD` with a call of agentutils' bash tool.
func TestAgentMCPBash(t *testing.T) {
	s := New()
	s.Agent = t.TempDir()
	defer s.Close()
	for _, tc := range []struct {
		tools  []string
		prompt string
		want   []map[string]any
	}{
		{[]string{"Bash", "mcp__other__read", "mcp__agentutils__bash"}, "MCPBASH `echo in > in.txt` please",
			[]map[string]any{{"type": "tool_use", "name": "mcp__agentutils__bash", "input": map[string]any{"command": "echo in > in.txt"}}}},
		{[]string{"Bash"}, "MCPBASH `echo in > in.txt` please", []map[string]any{{"type": "text", "text": "Hello from the fake model."}}},
		{[]string{"bash"}, "RUN `ls -l` please", []map[string]any{{"type": "text", "text": "Let me look."},
			{"type": "tool_use", "name": "bash", "input": map[string]any{"command": "ls -l"}}}},
		{[]string{"bash", "write"}, "EDIT it", []map[string]any{
			{"type": "tool_use", "name": "write", "input": map[string]any{"path": "note.txt", "content": "hello\n"}}}},
		{[]string{"write", "edit"}, "EDIT `a.go` `f(\"x\")` `f(1)`", []map[string]any{
			{"type": "tool_use", "name": "edit", "input": map[string]any{"path": "a.go", "old_text": "f(\"x\")", "new_text": "f(1)"}}}},
		{[]string{"web_search"}, "SEARCH `go 1.26` now", []map[string]any{
			{"type": "tool_use", "name": "web_search", "input": map[string]any{"query": "go 1.26", "count": float64(3)}}}},
		{[]string{"write", "edit"}, "EDIT `a.go` only", []map[string]any{
			{"type": "tool_use", "name": "write", "input": map[string]any{"path": "note.txt", "content": "hello\n"}}}},
	} {
		var tools []map[string]string
		for _, n := range tc.tools {
			tools = append(tools, map[string]string{"name": n})
		}
		req, _ := json.Marshal(map[string]any{"model": "m", "tools": tools, "messages": []any{map[string]any{"role": "user",
			"content": []any{map[string]string{"type": "text", "text": tc.prompt}}}}})
		resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(string(req)))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var got struct{ Content []map[string]any }
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		for _, c := range got.Content {
			delete(c, "id")
		}
		if d := cmp.Diff(tc.want, got.Content); d != "" {
			t.Errorf("tools %v (-want +got):\n%s", tc.tools, d)
		}
	}
}
