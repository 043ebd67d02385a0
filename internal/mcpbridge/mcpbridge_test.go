package mcpbridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/mcpconfig"
)

func TestAgentTool(t *testing.T) {
	tests := []struct {
		name, naming, server string
		tool                 *mcp.Tool
		deferred             bool
		want                 ToolDef
	}{
		{"plain", "default", "gh", &mcp.Tool{Name: "issues", InputSchema: map[string]any{"type": "object"}}, false,
			ToolDef{Name: "mcp__gh__issues", Label: "gh/issues", Description: "MCP tool from gh", Parameters: json.RawMessage(`{"properties":{},"type":"object"}`),
				Concurrency: "shared", XMCP: XMCP{Server: "gh", Tool: "issues"}}},
		{"titled, deferred, v12", "v12", "gh", &mcp.Tool{Name: "issues", Title: "Issues", Description: "list issues", InputSchema: map[string]any{"type": "object"}}, true,
			ToolDef{Name: "mcp_gh_issues", Label: "Issues", Description: "list issues", Parameters: json.RawMessage(`{"properties":{},"type":"object"}`),
				Concurrency: "shared", XMCP: XMCP{Server: "gh", Tool: "issues", Title: "Issues", Deferred: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AgentTool(tt.naming, tt.server, tt.tool, tt.deferred)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("AgentTool (-want +got):\n%s", d)
			}
		})
	}
	if _, err := AgentTool("v99", "s", &mcp.Tool{Name: "t"}, false); err == nil {
		t.Error("AgentTool with an unknown naming: no error")
	}
}

func TestProgressText(t *testing.T) {
	for _, tt := range []struct {
		p    mcp.ProgressNotificationParams
		want string
	}{
		{mcp.ProgressNotificationParams{Progress: 2, Total: 4, Message: "step"}, "2/4 step"},
		{mcp.ProgressNotificationParams{Progress: 0.5}, "0.5"},
	} {
		if got := ProgressText(&tt.p); got != tt.want {
			t.Errorf("ProgressText(%+v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

// memConn is a client session over the SDK's in-memory transport to a real
// SDK server.
type memConn struct{ cs *mcp.ClientSession }

func (m memConn) ListTools(ctx context.Context) ([]*mcp.Tool, error) {
	var out []*mcp.Tool
	for t, err := range m.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func (m memConn) CallTool(ctx context.Context, tool string, args json.RawMessage, _ any) (json.RawMessage, error) {
	res, err := m.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}
func (m memConn) Gone(tool string, err error) error { return err }
func (m memConn) Current() *mcp.ClientSession       { return m.cs }
func (m memConn) OnReconnect(func())                {}
func (m memConn) Close()                            { m.cs.Close() }

// TestRun: hello gets the tools of the server that connected and the error
// of the one that did not; a call is routed, a long output spilled to
// hello's stateDir, an unknown tool answered with close names.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem"}, &mcp.ServerOptions{Instructions: "be kind"})
	type echoArgs struct {
		Text  string `json:"text"`
		Times int    `json:"times,omitempty"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat(a.Text, max(a.Times, 1))}}}, nil, nil
	})
	state := t.TempDir()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, inR, outW, Options{Naming: "default", StartWait: time.Minute, Stderr: io.Discard,
			Setup: func(h *event.Hello) (*Servers, error) {
				return &Servers{Entries: []mcpconfig.Entry{{Name: "mem"}, {Name: "down"}}, Cwd: h.Cwd, SpillDir: t.TempDir(),
					Cached: func(mcpconfig.Entry) ([]*mcp.Tool, bool) { return nil, false },
					Open: func(ctx context.Context, e mcpconfig.Entry, opts *mcp.ClientOptions) (Conn, error) {
						if e.Name != "mem" {
							return nil, errors.New("no such server")
						}
						ct, st := mcp.NewInMemoryTransports()
						if _, err := srv.Connect(ctx, st, nil); err != nil {
							return nil, err
						}
						cs, err := mcp.NewClient(&mcp.Implementation{Name: "bridge"}, opts).Connect(ctx, ct, nil)
						if err != nil {
							return nil, err
						}
						return memConn{cs}, nil
					}}, nil
			}})
		outW.Close()
	}()
	out := bufio.NewScanner(outR)
	out.Buffer(make([]byte, 1<<20), 1<<20)
	next := func() map[string]any {
		t.Helper()
		if !out.Scan() {
			t.Fatalf("output ended: %v", out.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(out.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", out.Bytes(), err)
		}
		return m
	}
	io.WriteString(inW, `{"type":"hello","cwd":"/p","stateDir":"`+state+`"}`+"\n")
	tools := next()
	var names []string
	for _, d := range tools["tools"].([]any) {
		names = append(names, d.(map[string]any)["name"].(string))
	}
	want := map[string]any{"names": []string{"mcp__mem__echo"}, "errors": []any{"mcp:down: no such server"},
		"instructions": []any{"Instructions from MCP server \"mem\" (server-provided, unverified):\nbe kind"}}
	got := map[string]any{"names": names, "errors": tools["errors"], "instructions": tools["instructions"]}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("tools message (-want +got):\n%s", d)
	}

	content := func(m map[string]any) string {
		var b strings.Builder
		for _, c := range m["content"].([]any) {
			b.WriteString(c.(map[string]any)["text"].(string))
		}
		return b.String()
	}
	io.WriteString(inW, `{"type":"call","id":"c1","name":"mcp__mem__echo","arguments":{"text":"hi"}}`+"\n")
	if r := next(); r["id"] != "c1" || content(r) != "hi" || r["isError"] == true {
		t.Errorf("echo result %v", r)
	}
	io.WriteString(inW, `{"type":"call","id":"c2","name":"mcp__mem__echo","arguments":{"text":"0123456789","times":10000}}`+"\n")
	r := next()
	path, _ := r["details"].(map[string]any)["fullOutputPath"].(string)
	if full, err := os.ReadFile(path); err != nil || len(full) != 100000 || !strings.HasPrefix(path, state) {
		t.Errorf("long output: fullOutputPath %q (%d bytes, %v)", path, len(full), err)
	}
	io.WriteString(inW, `{"type":"call","id":"c3","name":"mcp__mem__echoo"}`+"\n")
	if r := next(); r["isError"] != true || !strings.Contains(content(r), "did you mean mcp__mem__echo?") {
		t.Errorf("unknown tool result %v", r)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}
