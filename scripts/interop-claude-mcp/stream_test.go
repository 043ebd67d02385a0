package main

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/internal/fakellm"
)

func TestReadmeExamples(t *testing.T) {
	readme := "text `claude mcp add agentutils -- agent-mcp serve --allow-write` more\n" +
		"  # {\"mcpServers\": {\"agentutils\": {\"command\": \"agent-mcp\", \"args\": [\"serve\"]}}}\n"
	add, js := readmeExamples(readme)
	if diff := cmp.Diff("claude mcp add agentutils -- agent-mcp serve --allow-write", add); diff != "" {
		t.Errorf("add (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(`{"mcpServers": {"agentutils": {"command": "agent-mcp", "args": ["serve"]}}}`, js); diff != "" {
		t.Errorf("json (-want +got):\n%s", diff)
	}
	if add, js := readmeExamples("nothing here"); add != "" || js != "" {
		t.Errorf("readmeExamples(nothing) = %q, %q", add, js)
	}
}

// TestReadmeHasExamples keeps the README's two lines findable.
func TestReadmeHasExamples(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Skip(err)
	}
	if add, js := readmeExamples(string(b)); add == "" || js == "" {
		t.Errorf("README.md: claude mcp add line %q, .mcp.json %q", add, js)
	}
}

func TestBashCalls(t *testing.T) {
	stream := `{"type":"system","subtype":"init"}
{"type":"assistant","message":{"content":[{"type":"tool_use","name":"mcp__agentutils__bash","input":{"command":"ls"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"a.go"},{"type":"text","text":"b.go"}]}]}}
{"type":"user","message":{"content":[{"type":"tool_result","content":"plain"}]}}
not json
`
	called, results := bashCalls(stream)
	if !called {
		t.Error("no call seen")
	}
	if diff := cmp.Diff([]string{"a.go", "b.go", "plain"}, results); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if called, _ := bashCalls(`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash"}]}}`); called {
		t.Error("another tool counted as mcp__agentutils__bash")
	}
}

func TestRequestSummary(t *testing.T) {
	reqs := []fakellm.Request{
		{Method: "HEAD", Path: "/api/hello"},
		{Method: "POST", Path: "/v1/messages", Body: []byte(`{"model":"m1"}`)},
		{Method: "POST", Path: "/v1/messages", Body: []byte(`{"model":"m1"}`)},
	}
	want := "3 requests: 1×HEAD /api/hello; 2×POST /v1/messages; models 2×m1"
	if diff := cmp.Diff(want, requestSummary(reqs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestOnlyLoopback(t *testing.T) {
	lo := "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN\\    link/loopback 00:00:00:00:00:00\n"
	if !onlyLoopback("") || !onlyLoopback(lo) || onlyLoopback(lo+"2: eth0: <BROADCAST,UP> mtu 1500\n") {
		t.Error("onlyLoopback wrong")
	}
}
