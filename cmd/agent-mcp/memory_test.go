package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/fakellm"
)

// runMemory runs agent-mcp in-process with the server "mem" of its
// configuration connected to srv over the SDK's in-memory transports (a
// new pair per connection, so reconnects work too).
func runMemory(t *testing.T, home string, srv *mcp.Server, env map[string]string, args ...string) (code int, stdout, stderr string) {
	return runMemoryDrop(t, home, srv, nil, env, args...)
}

// dropper closes the client's end of the latest in-memory connection: the
// server "dies" for the client.
type dropper struct {
	mu   sync.Mutex
	conn mcp.Connection
}

func (d *dropper) drop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.conn.Close()
}

type droppable struct {
	mcp.Transport
	d *dropper
}

func (t droppable) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err == nil {
		t.d.mu.Lock()
		t.d.conn = c
		t.d.mu.Unlock()
	}
	return c, err
}

func runMemoryDrop(t *testing.T, home string, srv *mcp.Server, d *dropper, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cfg := `{"mcpServers":{"mem":{"command":"in-memory"}}}`
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	transports := func(name string) mcp.Transport {
		if name != "mem" {
			return nil
		}
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(ctx, st, nil); err != nil {
			t.Errorf("server connect: %v", err)
		}
		if d != nil {
			return droppable{ct, d}
		}
		return ct
	}
	var out, errb strings.Builder
	e := &app.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: home, Now: time.Now,
		Getenv: homeGetenv(home, env)}
	code = app.Run(ctx, withTransports(transports), e, append([]string{"agent-mcp"}, args...))
	return code, out.String(), errb.String()
}

// withTransports is agent-mcp whose servers' transports come from
// transports first (see cmdEnv.transport).
func withTransports(transports func(string) mcp.Transport) app.Spec {
	return func(env *app.Env) *cli.App { return newAppWith(&cmdEnv{Env: env, transport: transports}) }
}

const parisSSE = `event: message_start
data: {"type":"message_start","message":{"id":"m1","usage":{"input_tokens":12,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Paris"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":2}}

event: message_stop
data: {"type":"message_stop"}

`

// TestSamplingInMemory: the SDK's in-memory server asks for a completion
// with a conversation (text and an image), a system prompt, a token limit
// and a temperature; agent-mcp answers with the configured model through
// lib/llm, and declines when no model is configured.
func TestSamplingInMemory(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ask_model", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if len(req.Params.InputResponses) == 0 {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": &mcp.CreateMessageParams{
					SystemPrompt: "You are terse.", MaxTokens: 64, Temperature: 0.5,
					Messages: []*mcp.SamplingMessage{
						{Role: "user", Content: &mcp.TextContent{Text: "What is this a picture of?"}},
						{Role: "user", Content: &mcp.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG")}},
						{Role: "assistant", Content: &mcp.TextContent{Text: "A city."}},
						{Role: "user", Content: &mcp.TextContent{Text: "Which one?"}},
					}}}}, nil
			}
			res, ok := req.Params.InputResponses["q"].(*mcp.CreateMessageWithToolsResult)
			if !ok || len(res.Content) != 1 {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "bad answer"}}}, nil
			}
			text := res.Content[0].(*mcp.TextContent).Text
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text + " (" + res.Model + ", " + res.StopReason + ")"}}}, nil
		})

	home := t.TempDir()
	// No model: declined, exit 1, and the message says how to enable it.
	code, _, stderr := runMemory(t, home, srv, nil, "call", "mem", "ask_model")
	if code != 1 || !strings.Contains(stderr, "the server asked for sampling, declined: agent-mcp has no model for sampling (give --sampling-model") {
		t.Fatalf("no model: exit %d, stderr %s", code, stderr)
	}

	sse := filepath.Join(home, "paris.sse")
	if err := os.WriteFile(sse, []byte(parisSSE), 0o600); err != nil {
		t.Fatal(err)
	}
	llmSrv := fakellm.New(fakellm.Step{SSE: sse})
	defer llmSrv.Close()
	if err := os.WriteFile(filepath.Join(home, "models.toml"), []byte(llmSrv.ModelsTOML("fake", "anthropic-messages", "test-model")), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"FAKE_KEY": "sk-fake-secret-123456", "AGENT_MCP_SAMPLING_MODEL": "fake/test-model"}
	code, stdout, stderr := runMemory(t, home, srv, env, "call", "--text", "mem", "ask_model")
	if code != 0 || stdout != "Paris (test-model, maxTokens)\n" {
		t.Fatalf("with a model: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	reqs := llmSrv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	var body struct {
		System      any     `json:"system"`
		MaxTokens   int     `json:"max_tokens"`
		Temperature float64 `json:"temperature"`
		Messages    []struct {
			Role    string `json:"role"`
			Content []struct {
				Type   string `json:"type"`
				Text   string `json:"text"`
				Source struct {
					Data      string `json:"data"`
					MediaType string `json:"media_type"`
				} `json:"source"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	sys, _ := json.Marshal(body.System)
	if !strings.Contains(string(sys), "You are terse.") || body.MaxTokens != 64 || body.Temperature != 0.5 {
		t.Errorf("system %s, max_tokens %d, temperature %v", sys, body.MaxTokens, body.Temperature)
	}
	var got []string
	for _, m := range body.Messages {
		for _, c := range m.Content {
			got = append(got, m.Role+":"+c.Type+":"+c.Text+c.Source.MediaType+c.Source.Data)
		}
	}
	want := "user:text:What is this a picture of?|user:image:image/pngiVBORw==|assistant:text:A city.|user:text:Which one?"
	if strings.Join(got, "|") != want {
		t.Errorf("messages sent to the model:\n got %s\nwant %s", strings.Join(got, "|"), want)
	}
	if r := reqs[0].Header.Get("X-Api-Key"); r != "sk-fake-secret-123456" {
		t.Errorf("key header %q", r)
	}
}

// TestSamplingConcurrent: a server's two sampling requests at once reach
// the model at once (the fake provider holds the first answer until the
// second request has arrived, so a sampler that made them wait for each
// other would never finish); with a cassette they go one after the other,
// so the cassette's order is the calls' order.
func TestSamplingConcurrent(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ask_twice", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if len(req.Params.InputResponses) == 0 {
				ask := func(q string) *mcp.CreateMessageParams {
					return &mcp.CreateMessageParams{MaxTokens: 64, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: q}}}}
				}
				// The SDK's client fulfils a round's input requests concurrently.
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"a": ask("first?"), "b": ask("second?")}}, nil
			}
			var got []string
			for _, k := range []string{"a", "b"} {
				res, ok := req.Params.InputResponses[k].(*mcp.CreateMessageWithToolsResult)
				if !ok || len(res.Content) != 1 {
					return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "bad answer " + k}}}, nil
				}
				got = append(got, k+"="+res.Content[0].(*mcp.TextContent).Text)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(got, " ")}}}, nil
		})
	home := t.TempDir()
	sse := filepath.Join(home, "paris.sse")
	if err := os.WriteFile(sse, []byte(parisSSE), 0o600); err != nil {
		t.Fatal(err)
	}
	setup := func(steps ...fakellm.Step) *fakellm.Server {
		llmSrv := fakellm.New(steps...)
		t.Cleanup(llmSrv.Close)
		if err := os.WriteFile(filepath.Join(home, "models.toml"), []byte(llmSrv.ModelsTOML("fake", "anthropic-messages", "test-model")), 0o600); err != nil {
			t.Fatal(err)
		}
		return llmSrv
	}
	env := map[string]string{"FAKE_KEY": "sk-fake-secret-123456", "AGENT_MCP_SAMPLING_MODEL": "fake/test-model"}

	// No cassette: the first answer waits for the second request.
	llmSrv := setup(fakellm.Step{SSE: sse, AwaitRequests: 2}, fakellm.Step{SSE: sse, AwaitRequests: 2})
	code, stdout, stderr := runMemory(t, home, srv, env, "call", "--text", "mem", "ask_twice")
	if code != 0 || stdout != "a=Paris b=Paris\n" {
		t.Fatalf("concurrent sampling: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if reqs := llmSrv.Requests(); len(reqs) != 2 || reqs[1].Open != 1 {
		t.Fatalf("%d model requests; want 2, the second while the first was open", len(reqs))
	}

	// A cassette: the second request comes after the first was answered.
	llmSrv = setup(fakellm.Step{SSE: sse}, fakellm.Step{SSE: sse})
	cas := filepath.Join(home, "cas.jsonl")
	code, stdout, stderr = runMemory(t, home, srv, env, "call", "--text", "--record", cas, "mem", "ask_twice")
	if code != 0 || stdout != "a=Paris b=Paris\n" {
		t.Fatalf("recorded sampling: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	reqs := llmSrv.Requests()
	if len(reqs) != 2 || reqs[1].Open != 0 {
		t.Fatalf("recorded: %d model requests; want 2, the second after the first was answered", len(reqs))
	}
	if b, _ := os.ReadFile(cas); strings.Count(string(b), "\n") != 2 {
		t.Fatalf("cassette:\n%s", b)
	}
}

// TestInMemoryServer: pagination, tool errors, protocol errors, images, and a
// server session that dies during a call (not sent again; reconnect and one
// retry for a tool marked idempotent and not destructive), against
// the SDK's server over in-memory transports.
func TestInMemoryServer(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, &mcp.ServerOptions{PageSize: 1})
	obj := json.RawMessage(`{"type":"object"}`)
	srv.AddTool(&mcp.Tool{Name: "fails", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "disk full"}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "picture", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a dot"}, &mcp.ImageContent{MIMEType: "image/gif", Data: []byte("GIF8")}}}, nil
	})
	type nIn struct {
		N int `json:"n"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "schema"}, func(_ context.Context, _ *mcp.CallToolRequest, in nIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	// dies and dies_idempotent drop the connection during their first call;
	// runs counts the calls that reached them.
	d := &dropper{}
	runs := map[string]int{}
	var runsMu sync.Mutex
	dies := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runsMu.Lock()
		runs[req.Params.Name]++
		first := runs[req.Params.Name] == 1
		runsMu.Unlock()
		if first {
			d.drop() // the connection goes away mid-call
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "back"}}}, nil
	}
	srv.AddTool(&mcp.Tool{Name: "dies", InputSchema: obj}, dies)
	srv.AddTool(&mcp.Tool{Name: "dies_idempotent", InputSchema: obj,
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: new(false)}}, dies)
	home := t.TempDir()

	code, out, errs := runMemory(t, home, srv, nil, "tools", "--names", "raw", "mem")
	if code != 0 || strings.Count(out, "\n") != 5 || !strings.Contains(out, "dies") || !strings.Contains(out, "schema") {
		t.Fatalf("tools over 5 pages: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = runMemory(t, home, srv, nil, "call", "mem", "fails")
	if code != 1 || !strings.Contains(out, `"text":"Error: disk full"`) || !strings.Contains(out, `"isError":true`) {
		t.Fatalf("tool error: exit %d, %s", code, out)
	}
	code, out, _ = runMemory(t, home, srv, nil, "call", "mem", "picture")
	if code != 0 || !strings.Contains(out, `{"type":"image","data":"R0lGOA==","mimeType":"image/gif"}`) {
		t.Fatalf("image: exit %d, %s", code, out)
	}
	code, out, errs = runMemory(t, home, srv, nil, "call", "mem", "schema", `{"n":"x"}`)
	if code != 1 || !strings.Contains(out, "validating") || !strings.Contains(out, `"isError":true`) {
		t.Fatalf("arguments the server's schema refuses: exit %d, %s %s", code, out, errs)
	}
	// a call that may have run is not sent again, unless the tool is idempotent
	code, out, errs = runMemoryDrop(t, home, srv, d, nil, "call", "--text", "mem", "dies")
	if code != 1 || out != "" || runs["dies"] != 1 || !strings.Contains(errs, `MCP server "mem" exited or closed the connection during the call of "dies"; not sent again`) {
		t.Fatalf("death of a tool not marked idempotent: exit %d, %q, ran %d times, %s", code, out, runs["dies"], errs)
	}
	code, out, errs = runMemoryDrop(t, home, srv, d, nil, "call", "--text", "mem", "dies_idempotent")
	if code != 0 || out != "back\n" || runs["dies_idempotent"] != 2 || !strings.Contains(errs, "reconnecting") {
		t.Fatalf("death and reconnect: exit %d, %q, %s", code, out, errs)
	}
}

// TestBridgeInMemory: progress notifications become updates before the
// result, a tool added by the server (tools/list_changed) is offered again
// with replace: true and can be called, and a cancel reaches the server —
// the SDK's server over in-memory transports behind the bridge.
func TestBridgeInMemory(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, nil)
	obj := json.RawMessage(`{"type":"object"}`)
	release := make(chan struct{})
	srv.AddTool(&mcp.Tool{Name: "work", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 1, Total: 2, Message: "half"})
		<-release // the test has seen the update
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "worked"}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "grow", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		srv.AddTool(&mcp.Tool{Name: "grown", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "new"}}}, nil
		})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grew"}}}, nil
	})
	cancelled := make(chan struct{})
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 1, Message: "waiting"})
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	})
	transports := func(name string) mcp.Transport {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			t.Errorf("server connect: %v", err)
		}
		return ct
	}
	p := startBridgeWith(t, transports, `{"mcpServers":{"mem":{"command":"in-memory"}}}`, "mcp__mem__work")

	p.send(`{"type":"call","id":"w1","name":"mcp__mem__work","arguments":{}}`)
	if l := p.next(); l != `{"type":"update","id":"w1","partialResult":{"content":[{"type":"text","text":"1/2 half"}],"details":{"message":"half","progress":1,"total":2}}}` {
		t.Fatalf("want the progress update, got %s", l)
	}
	close(release)
	if l := p.next(); !strings.HasPrefix(l, `{"type":"result","id":"w1","content":[{"type":"text","text":"worked"}]`) {
		t.Fatalf("want the result, got %s", l)
	}

	p.send(`{"type":"call","id":"g1","name":"mcp__mem__grow","arguments":{}}`)
	sawResult, sawTools := false, false
	for !sawResult || !sawTools {
		l := p.next()
		switch {
		case strings.HasPrefix(l, `{"type":"result","id":"g1","content":[{"type":"text","text":"grew"}]`):
			sawResult = true
		case strings.HasPrefix(l, `{"type":"tools"`):
			if !strings.Contains(l, `"name":"mcp__mem__grown"`) || !strings.HasSuffix(l, `"replace":true}`) {
				t.Fatalf("tools update %s", l)
			}
			sawTools = true
		default:
			t.Fatalf("unexpected %s", l)
		}
	}
	p.send(`{"type":"call","id":"g2","name":"mcp__mem__grown","arguments":{}}`)
	if l := p.next(); !strings.HasPrefix(l, `{"type":"result","id":"g2","content":[{"type":"text","text":"new"}]`) {
		t.Fatalf("call of the new tool: %s", l)
	}

	p.send(`{"type":"call","id":"k1","name":"mcp__mem__wait","arguments":{}}`)
	if l := p.next(); !strings.HasPrefix(l, `{"type":"update","id":"k1"`) {
		t.Fatalf("want the waiting update, got %s", l)
	}
	p.send(`{"type":"cancel","id":"k1"}`)
	if l := p.next(); !strings.HasPrefix(l, `{"type":"result","id":"k1","content":[{"type":"text","text":"MCP error: cancelled"}],"isError":true`) {
		t.Fatalf("want a cancelled result, got %s", l)
	}
	<-cancelled // notifications/cancelled reached the server's handler
	p.close()
}
