package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentutils/agentutils/internal/app"
)

// bridgeProc runs the bridge in-process on pipes with one server t.
type bridgeProc struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan int
	home string
}

func startBridge(t *testing.T, serverEnv string) *bridgeProc {
	srv := filepath.Join(testServer(t), "mcptestserver")
	return startBridgeConfig(t, `{"mcpServers":{"t":{"command":"`+srv+`","env":{`+serverEnv+`}}}}`)
}

func startBridgeConfig(t *testing.T, cfg string) *bridgeProc {
	return startBridgeWith(t, nil, cfg, "mcp__t__slow")
}

// startBridgeWith starts the bridge with transports (nil: the configured
// ones; see cmdEnv.transport) and checks that its first tools message
// names firstTool.
func startBridgeWith(t *testing.T, transports func(string) mcp.Transport, cfg, firstTool string) *bridgeProc {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	env := &app.Env{
		Stdin: inR, Stdout: outW, Stderr: io.Discard, Dir: home, Now: time.Now,
		Getenv: homeGetenv(home, nil),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	p := &bridgeProc{t: t, in: inW, out: bufio.NewScanner(outR), done: make(chan int, 1), home: home}
	p.out.Buffer(make([]byte, 1<<20), 1<<20)
	go func() {
		p.done <- app.Run(ctx, withTransports(transports), env, []string{"agent-mcp", "bridge", "--start-wait", "1m"})
		outW.Close()
	}()
	p.send(`{"type":"hello","cwd":"` + home + `"}`)
	if l := p.next(); !strings.Contains(l, `"name":"`+firstTool+`"`) {
		t.Fatalf("first line %s", l)
	}
	return p
}

func (p *bridgeProc) send(line string) { io.WriteString(p.in, line+"\n") }

func (p *bridgeProc) next() string {
	if !p.out.Scan() {
		p.t.Fatalf("bridge output ended: %v", p.out.Err())
	}
	return p.out.Text()
}

func (p *bridgeProc) close() {
	p.in.Close()
	for p.out.Scan() {
	}
	if code := <-p.done; code != 0 {
		p.t.Fatalf("exit %d", code)
	}
}

// TestBridgeListChanged: a server's tools/list_changed makes the bridge send
// the new list with replace: true.
func TestBridgeListChanged(t *testing.T) {
	p := startBridge(t, "")
	p.send(`{"type":"call","id":"g1","name":"mcp__t__grow","arguments":{}}`)
	sawResult, sawTools := false, false
	for !sawResult || !sawTools {
		l := p.next()
		switch {
		case strings.HasPrefix(l, `{"type":"result","id":"g1"`):
			sawResult = true
		case strings.HasPrefix(l, `{"type":"tools"`):
			if !strings.Contains(l, `"name":"mcp__t__extra"`) || !strings.HasSuffix(l, `"replace":true}`) {
				t.Fatalf("tools update %s", l)
			}
			sawTools = true
		}
	}
	p.send(`{"type":"call","id":"g2","name":"mcp__t__extra","arguments":{}}`)
	if l := p.next(); !strings.HasPrefix(l, `{"type":"result","id":"g2","content":[{"type":"text","text":"extra"}]`) {
		t.Fatalf("call of the new tool: %s", l)
	}
	p.close()
}

// TestBridgeCancel runs the bridge in-process against mcptestserver: a
// cancel of a running call reaches the server as notifications/cancelled
// (the server's handler sees its context end) and the call still gets one
// error result.
func TestBridgeCancel(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "cancelled")
	p := startBridge(t, `"MCPTEST_CANCEL_FILE":"`+marker+`"`)
	p.send(`{"type":"call","id":"k1","name":"mcp__t__slow","arguments":{"ms":2000}}`)
	if l := p.next(); !strings.HasPrefix(l, `{"type":"update","id":"k1"`) {
		t.Fatalf("want a progress update, got %s", l)
	}
	p.send(`{"type":"cancel","id":"k1"}`)
	if l := p.next(); !strings.HasPrefix(l, `{"type":"result","id":"k1","content":[{"type":"text","text":"MCP error: cancelled"}],"isError":true`) {
		t.Fatalf("want a cancelled result, got %s", l)
	}
	p.close()
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(marker); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the server never saw the cancellation")
}

// TestBridgeStaleSession: the HTTP server forgets the session (a restart);
// the next call gets 404, and the bridge re-initializes and retries it.
func TestBridgeStaleSession(t *testing.T) {
	newHandler := func() http.Handler {
		s := mcp.NewServer(&mcp.Implementation{Name: "restarting", Version: "1"}, nil)
		s.AddTool(&mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil
			})
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	}
	var mu sync.Mutex
	h := newHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		cur := h
		mu.Unlock()
		cur.ServeHTTP(w, r)
	}))
	defer srv.Close()
	p := startBridgeConfig(t, `{"mcpServers":{"t":{"url":"`+srv.URL+`"}}}`)
	call := func(id string) string {
		p.send(`{"type":"call","id":"` + id + `","name":"mcp__t__slow","arguments":{}}`)
		for {
			if l := p.next(); strings.HasPrefix(l, `{"type":"result"`) {
				return l
			}
		}
	}
	if l := call("a"); !strings.Contains(l, `"text":"pong"`) {
		t.Fatalf("first call: %s", l)
	}
	mu.Lock()
	h = newHandler() // the old session id is unknown now
	mu.Unlock()
	if l := call("b"); !strings.Contains(l, `"text":"pong"`) || strings.Contains(l, `"isError":true`) {
		t.Fatalf("call after the restart: %s", l)
	}
	p.close()
}
