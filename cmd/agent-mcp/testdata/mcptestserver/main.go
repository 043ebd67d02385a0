// Command mcptestserver is a small MCP server built with the official Go SDK
// for agent-mcp's script tests: stdio by default, Streamable HTTP with
// -http, legacy HTTP+SSE with -sse, and misbehaviours on request.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/agentutils/agentutils/internal/mcpserve"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	httpAddr := flag.String("http", "", "serve Streamable HTTP on this address")
	sse := flag.Bool("sse", false, "with -http: serve the legacy HTTP+SSE protocol instead")
	addrFile := flag.String("addr-file", "", "write the listening URL here")
	token := flag.String("token", "", "with -http: require this bearer token")
	mode := flag.String("mode", "", "misbehave: garbage, exit, hang, banner (a line of text on stdout first), old (protocol 2025-03-26 only); "+
		"tasks: MCP 2025-11-25 tasks (agent-mcp serve's), with a tool research that must be called as a task")
	pageSize := flag.Int("page-size", 2, "tools per tools/list page")
	rootsTool := flag.Bool("roots-tool", false, "add a tool roots that asks roots/list outside the call (over HTTP: on the standalone GET stream)")
	flag.Parse()

	switch *mode {
	case "garbage":
		fmt.Println("this is not JSON-RPC")
		os.Exit(0)
	case "exit":
		fmt.Fprintln(os.Stderr, "fatal: cannot open database")
		os.Exit(3)
	case "hang":
		time.Sleep(time.Hour)
	case "old":
		oldServer()
		return
	case "banner":
		fmt.Println("mcptestserver 1.0.0 starting on stdio")
	}

	if d, err := time.ParseDuration(os.Getenv("MCPTEST_START_DELAY")); err == nil {
		time.Sleep(d)
	}
	newServer := func() *mcp.Server { return server(*pageSize) }
	if *mode == "tasks" {
		protocols = []string{"2025-11-25"} // tasks' protocol, and elicitation/create requests
		newServer = func() *mcp.Server {
			s := server(*pageSize)
			s.AddTool(&mcp.Tool{Name: "research", Description: "Research a topic, slowly: a task.", InputSchema: obj(`"topic":{"type":"string"}`, "topic")},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					wait := 300 * time.Millisecond
					if args(req)["topic"] == "forever" {
						wait = time.Hour // until cancelled
					}
					select {
					case <-time.After(wait):
					case <-ctx.Done():
						if f := os.Getenv("MCPTEST_CANCEL_FILE"); f != "" {
							os.WriteFile(f, []byte("cancelled\n"), 0o644)
						}
						return nil, ctx.Err()
					}
					return text(fmt.Sprintf("findings on %v", args(req)["topic"])), nil
				})
			s.AddTool(&mcp.Tool{Name: "forecast", Description: "Ask the client's model, with a tool it must use (sampling with tools).", InputSchema: obj(``)},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					res, err := req.Session.CreateMessageWithTools(ctx, &mcp.CreateMessageWithToolsParams{MaxTokens: 100,
						Messages:   []*mcp.SamplingMessageV2{{Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: "Weather in Paris?"}}}},
						Tools:      []*mcp.Tool{{Name: "get_weather", Description: "The weather of a city.", InputSchema: obj(`"city":{"type":"string"}`, "city")}},
						ToolChoice: &mcp.ToolChoice{Mode: "required"}})
					if err != nil {
						return nil, err
					}
					var out []string
					for _, c := range res.Content {
						if u, ok := c.(*mcp.ToolUseContent); ok {
							out = append(out, fmt.Sprintf("tool_use %s %v", u.Name, u.Input))
						}
					}
					return text(res.StopReason + ": " + strings.Join(out, ", ")), nil
				})
			s.AddTool(&mcp.Tool{Name: "stats", Description: "Count things (structured output; bad: one that does not match its schema).",
				InputSchema: obj(`"bad":{"type":"boolean"}`), OutputSchema: obj(`"count":{"type":"integer"}`, "count")},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					r := text("counted")
					r.StructuredContent = map[string]any{"count": 3}
					if bad, _ := args(req)["bad"].(bool); bad {
						r.StructuredContent = map[string]any{"count": "many"}
					}
					return r, nil
				})
			s.AddTool(&mcp.Tool{Name: "login", Description: "Needs a login in the browser first (-32042).", InputSchema: obj(``)},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					data, _ := json.Marshal(map[string]any{"elicitations": []any{map[string]any{"mode": "url", "elicitationId": "e1",
						"url": "https://auth.example/login?s=1", "message": "Log in to Example"}}})
					return nil, &jsonrpc.Error{Code: mcp.CodeURLElicitationRequired, Message: "This request requires more information.", Data: data}
				})
			s.AddTool(&mcp.Tool{Name: "browse", Description: "Asks the person to open a URL (URL elicitation).", InputSchema: obj(``)},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "url", ElicitationID: "e2", URL: "https://pay.example/checkout", Message: "Pay there"})
					if err != nil {
						return nil, err
					}
					_ = req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: "e2"})
					return text("elicitation: " + res.Action), nil
				})
			return s
		}
	}
	if *httpAddr == "" {
		var t mcp.Transport = &mcp.StdioTransport{}
		if f := os.Getenv("MCPTEST_RECORD"); f != "" {
			// every line the client sends, for tests of what reached the server
			rec, err := os.Create(f)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			defer rec.Close()
			t = &mcp.IOTransport{Reader: readCloser{io.TeeReader(os.Stdin, rec), os.Stdin}, Writer: os.Stdout}
		}
		if *mode == "tasks" {
			t = mcpserve.TaskTransport{Transport: t, Required: []string{"research"}}
		}
		if err := newServer().Run(context.Background(), t); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s := newServer()
	if *rootsTool {
		addRoots(s)
	}
	var h http.Handler
	path := "/mcp"
	if *sse {
		path = "/sse"
		h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
	} else {
		h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
		if *mode == "tasks" {
			h = mcpserve.NewTaskHandler(s, []string{"research"}, false)
		}
	}
	mux := http.NewServeMux()
	mux.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if *token != "" && r.Header.Get("Authorization") != "Bearer "+*token {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+ln.Addr().String()+`/.well-known/oauth-protected-resource"`)
			http.Error(w, "missing or bad token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	if *addrFile != "" {
		url := "http://" + ln.Addr().String() + path
		if err := os.WriteFile(*addrFile+".tmp", []byte(url), 0o644); err == nil {
			os.Rename(*addrFile+".tmp", *addrFile)
		}
	}
	http.Serve(ln, mux)
}

// addRoots adds the tool roots, which asks the client's roots outside the
// call: over HTTP, on the standalone GET stream.
func addRoots(s *mcp.Server) {
	s.AddTool(&mcp.Tool{Name: "roots", Description: "List the client's roots, asked outside the call (over HTTP: on the standalone GET stream).", InputSchema: obj(``)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// A context of no request: the SDK sends roots/list on the
			// standalone stream, as server-everything's get-roots-list does.
			lctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := req.Session.ListRoots(lctx, nil)
			if err != nil {
				return nil, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.Name+" "+r.URI)
			}
			return text(strings.Join(uris, "\n")), nil
		})
}

type readCloser struct {
	io.Reader
	io.Closer
}

func obj(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	if required == nil {
		req = []byte("[]")
	}
	return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func args(req *mcp.CallToolRequest) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(req.Params.Arguments, &m)
	return m
}

// protocols are the protocol versions offered (none: the SDK's).
var protocols []string

func server(pageSize int) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptestserver", Version: "1.0.0",
		Icons: []mcp.Icon{{Source: "data:image/png;base64,iVBORw0KGgo=", MIMEType: "image/png", Sizes: []string{"16x16"}}, {Source: "https://example.com/t.svg", Theme: "dark"}}},
		&mcp.ServerOptions{Instructions: "Use echo to repeat a message.", PageSize: pageSize, SupportedProtocolVersions: protocols,
			CompletionHandler: complete})
	s.AddTool(&mcp.Tool{Name: "echo", Description: "Repeat a message.\nSecond line.", InputSchema: obj(`"message":{"type":"string"}`, "message"),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			msg := fmt.Sprint(args(req)["message"])
			if msg == "log" { // notifications/message, sent only at the level the client set
				_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "debug", Data: map[string]any{"step": 1}})
				_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Logger: "echo", Data: "about to echo log"})
				_ = req.Session.Ping(ctx, nil) // answered after the client handled the notifications above
			}
			return text(msg), nil
		})
	s.AddTool(&mcp.Tool{Name: "add", Description: "Add two numbers.", InputSchema: obj(`"a":{"type":"number"},"b":{"type":"number","nullable":true}`, "a", "b")},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a := args(req)
			x, _ := a["a"].(float64)
			y, _ := a["b"].(float64)
			r := text(fmt.Sprint(x + y))
			r.StructuredContent = map[string]any{"sum": x + y}
			return r, nil
		})
	s.AddTool(&mcp.Tool{Name: "image", Description: "A 1x1 PNG.", InputSchema: obj(``), Icons: []mcp.Icon{{Source: "https://example.com/image.png", MIMEType: "image/png"}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG")}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "Always fails.", InputSchema: obj(``)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r := text("it broke")
			r.IsError = true
			return r, nil
		})
	s.AddTool(&mcp.Tool{Name: "slow", Description: "Sleep ms milliseconds with progress; stops when cancelled.", InputSchema: obj(`"ms":{"type":"number"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ms, _ := args(req)["ms"].(float64)
			steps := 4
			for i := 1; i <= steps; i++ {
				select {
				case <-ctx.Done():
					if f := os.Getenv("MCPTEST_CANCEL_FILE"); f != "" {
						os.WriteFile(f, []byte("cancelled\n"), 0o644)
					}
					return nil, ctx.Err()
				case <-time.After(time.Duration(ms/float64(steps)) * time.Millisecond):
				}
				if tok := req.Params.GetProgressToken(); tok != nil {
					req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(steps), Message: "step"})
				}
			}
			return text("done"), nil
		})
	s.AddTool(&mcp.Tool{Name: "mixed", Description: "Every kind of content block.", InputSchema: obj(``)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://hello", MIMEType: "text/plain", Text: "hello world"}},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://bin", MIMEType: "application/octet-stream", Blob: []byte{1, 2, 3}}},
				&mcp.ResourceLink{URI: "test://hello", Name: "hello", Description: "a greeting"},
				&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte{0}},
			}}, nil
		})
	die := &mcp.ToolAnnotations{DestructiveHint: new(true)}
	if os.Getenv("MCPTEST_DIE_IDEMPOTENT") != "" { // safe to call again after a crash
		die = &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: new(false)}
	}
	s.AddTool(&mcp.Tool{Name: "die", Description: "Exit the server process.", InputSchema: obj(``), Annotations: die},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if os.Getenv("MCPTEST_DIE_ONCE") != "" {
				if _, err := os.Stat(os.Getenv("MCPTEST_DIE_ONCE")); err != nil {
					os.WriteFile(os.Getenv("MCPTEST_DIE_ONCE"), nil, 0o644)
					os.Exit(1)
				}
				return text("survived"), nil
			}
			os.Exit(1)
			return nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "env", Description: "Print an environment variable and the working directory.", InputSchema: obj(`"name":{"type":"string"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			wd, _ := os.Getwd()
			n, _ := args(req)["name"].(string)
			return text(n + "=" + os.Getenv(n) + " cwd=" + wd[strings.LastIndex(wd, "/")+1:]), nil
		})
	s.AddTool(&mcp.Tool{Name: "ask", Description: "Ask the user for a name (elicitation).", InputSchema: obj(``)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// The multi round-trip form (SEP-2322); the SDK turns it into an
			// elicitation/create request for clients of older protocols.
			if len(req.Params.InputResponses) == 0 {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Your name?",
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}}}, nil
			}
			res, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult)
			if !ok {
				return text("no answer"), nil
			}
			if res.Action != "accept" {
				return text(res.Action), nil
			}
			return text(fmt.Sprint("hello ", res.Content["name"])), nil
		})
	s.AddTool(&mcp.Tool{Name: "big", Description: "Print n numbered lines.", InputSchema: obj(`"n":{"type":"number"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n, _ := args(req)["n"].(float64)
			var b strings.Builder
			for i := 1; i <= int(n); i++ {
				fmt.Fprintf(&b, "line %d\n", i)
			}
			return text(strings.TrimSuffix(b.String(), "\n")), nil
		})
	s.AddTool(&mcp.Tool{Name: "grow", Description: "Add the tool extra (the server sends tools/list_changed).", InputSchema: obj(``)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddTool(&mcp.Tool{Name: "extra", Description: "Added by grow.", InputSchema: obj(``)},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("extra"), nil })
			return text("grown"), nil
		})
	s.AddTool(&mcp.Tool{Name: "sample", Description: "Ask the client's model (sampling).", InputSchema: obj(`"prompt":{"type":"string"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// Multi round-trip, as for ask.
			if len(req.Params.InputResponses) == 0 {
				prompt, _ := args(req)["prompt"].(string)
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"s": &mcp.CreateMessageParams{MaxTokens: 100,
					SystemPrompt: "Answer in one word.", Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: prompt}}}}}}, nil
			}
			var model, stop string
			var content mcp.Content
			switch res := req.Params.InputResponses["s"].(type) {
			case *mcp.CreateMessageResult:
				model, stop, content = res.Model, res.StopReason, res.Content
			case *mcp.CreateMessageWithToolsResult:
				model, stop = res.Model, res.StopReason
				if len(res.Content) == 1 {
					content = res.Content[0]
				}
			default:
				return text(fmt.Sprintf("no answer (%T)", res)), nil
			}
			t, _ := content.(*mcp.TextContent)
			if t == nil {
				return text("not text"), nil
			}
			return text("the model (" + model + ", " + stop + ") said: " + t.Text), nil
		})
	s.AddResource(&mcp.Resource{URI: "test://hello", Name: "hello", MIMEType: "text/plain", Icons: []mcp.Icon{{Source: "https://example.com/hello.png"}}},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "hello world"}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "test://bin", Name: "bin", MIMEType: "application/octet-stream"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/octet-stream", Blob: []byte{1, 2, 3, 4}}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{kind}/{id}", Name: "item", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "item " + req.Params.URI}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greet someone.", Icons: []mcp.Icon{{Source: "https://example.com/greet.png"}}, Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Say hello to " + req.Params.Arguments["name"] + "."}},
				{Role: "assistant", Content: &mcp.TextContent{Text: "Hello, " + req.Params.Arguments["name"] + "!"}},
			}}, nil
		})
	return s
}

// complete answers completion/complete: names for greet's name, ids of
// the item template's kind (given in the context) for id; the values that
// start with the partial value.
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	var all []string
	switch {
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == "greet" && p.Argument.Name == "name":
		all = []string{"Alice", "Albert", "Bob"}
	case p.Ref.Type == "ref/resource" && p.Ref.URI == "test://items/{kind}/{id}" && p.Argument.Name == "kind":
		all = []string{"book", "disc"}
	case p.Ref.Type == "ref/resource" && p.Ref.URI == "test://items/{kind}/{id}" && p.Argument.Name == "id":
		kind := ""
		if p.Context != nil {
			kind = p.Context.Arguments["kind"]
		}
		all = []string{kind + "-1", kind + "-2"}
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "nothing to complete for " + p.Argument.Name}
	}
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	for _, v := range all {
		if strings.HasPrefix(v, p.Argument.Value) {
			res.Completion.Values = append(res.Completion.Values, v)
		}
	}
	res.Completion.Total = len(res.Completion.Values)
	return res, nil
}

// oldServer speaks only protocol 2025-03-26, by hand: it knows neither
// server/discover nor newer versions, as an old server would.
func oldServer() {
	sc := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	var sampling json.RawMessage // the id of a tools/call waiting for sampling
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
				Name            string `json:"name"`
			} `json:"params"`
			Result *struct {
				Content struct{ Text string } `json:"content"`
				Model   string                `json:"model"`
			} `json:"result"`
			Error *struct{ Message string } `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue // notifications
		}
		if m.Method == "" && string(m.ID) == `"sample-1"` && sampling != nil {
			// The client's answer to our sampling/createMessage.
			text, isErr := "", false
			if m.Error != nil {
				text, isErr = "sampling failed: "+m.Error.Message, true
			} else if m.Result != nil {
				text = "the model (" + m.Result.Model + ") said: " + m.Result.Content.Text
			}
			out.Encode(map[string]any{"jsonrpc": "2.0", "id": sampling, "result": map[string]any{
				"content": []any{map[string]any{"type": "text", "text": text}}, "isError": isErr}})
			sampling = nil
			continue
		}
		if m.Method == "tools/call" && m.Params.Name == "sample" {
			// A server of 2025-03-26 asks the client's model with a request.
			sampling = m.ID
			out.Encode(map[string]any{"jsonrpc": "2.0", "id": "sample-1", "method": "sampling/createMessage", "params": map[string]any{
				"maxTokens": 50, "messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Say hi."}}}}})
			continue
		}
		reply := map[string]any{"jsonrpc": "2.0", "id": m.ID}
		switch m.Method {
		case "initialize":
			reply["result"] = map[string]any{"protocolVersion": "2025-03-26", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "old", "version": "0.1"}}
		case "tools/list":
			reply["result"] = map[string]any{"tools": []any{map[string]any{"name": "hello", "inputSchema": map[string]any{"type": "object"}},
				map[string]any{"name": "sample", "inputSchema": map[string]any{"type": "object"}}}}
		case "tools/call":
			reply["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": "hello from 2025-03-26"}}}
			if m.Params.Name != "hello" { // as the TypeScript SDK's McpServer answers an unknown tool
				reply["result"] = map[string]any{"isError": true, "content": []any{map[string]any{"type": "text",
					"text": "MCP error -32602: Tool " + m.Params.Name + " not found"}}}
			}
		default:
			reply["error"] = map[string]any{"code": -32601, "message": "Method not found: " + m.Method}
		}
		out.Encode(reply)
	}
}
