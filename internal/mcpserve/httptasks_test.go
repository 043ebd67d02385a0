package mcpserve

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/agentutils/agentutils/internal/mcpclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestTaskHandler: tasks over Streamable HTTP in one process (for -race):
// a required tool refuses a plain call; a task that asks the client
// (elicitation) is input_required until the answer, which it gets on the
// tasks/result stream with its progress; a task cancelled before or while
// it runs is cancelled.
func TestTaskHandler(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	started := make(chan struct{}, 1)
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 1, Message: "asking"})
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Name?", RequestedSchema: map[string]any{"type": "object",
			"properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + res.Content["name"].(string)}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		<-ctx.Done()
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "stopped"}}}, nil
	})
	hs := httptest.NewServer(NewTaskHandler(srv, []string{"ask"}, true))
	defer hs.Close()

	var status []string
	progress := make(chan string, 4)
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { progress <- r.Params.Message },
	})
	rt := &mcpclient.RawTransport{Transport: &mcp.StreamableClientTransport{Endpoint: hs.URL}}
	ctx := context.Background()
	cs, err := client.Connect(ctx, rt, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	raw := rt.Conn()

	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"}); err == nil {
		t.Error("a plain call of a required tool succeeded")
	}
	if _, err := cs.ListResources(ctx, nil); mcpclient.RPCCode(err) != -32601 {
		t.Errorf("resources/list of a tools-only server: %v", err)
	}
	p := &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}}
	p.SetProgressToken("p")
	res, err := mcpclient.CallTask(ctx, raw, p)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Content []struct{ Text string } `json:"content"`
		Meta    map[string]any          `json:"_meta"`
	}
	json.Unmarshal(res, &r)
	if len(r.Content) != 1 || r.Content[0].Text != "hello Ada" || r.Meta[relatedTask] == nil {
		t.Errorf("result %s", res)
	}
	if got := <-progress; got != "asking" {
		t.Errorf("progress %q", got)
	}

	// cancelled while it runs
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := mcpclient.CallTask(cctx, raw, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
		done <- err
	}()
	<-started
	cancel()
	<-done
	b, err := raw.Call(ctx, "tasks/result", map[string]any{"taskId": "task-2"})
	if err != nil || !json.Valid(b) {
		t.Fatal(err)
	}
	json.Unmarshal(b, &r)
	if r.Content[0].Text != "stopped" {
		t.Errorf("cancelled task's result %s", b)
	}
	b, _ = raw.Call(ctx, "tasks/list", map[string]any{})
	var list struct{ Tasks []task }
	json.Unmarshal(b, &list)
	for _, tk := range list.Tasks {
		status = append(status, tk.ID+" "+tk.Status)
	}
	if len(status) != 2 || status[0] != "task-1 completed" || status[1] != "task-2 cancelled" {
		t.Errorf("tasks/list: %q", status)
	}
}
