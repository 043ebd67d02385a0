package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentutils/agentutils/internal/app"
)

// TestBridgeCancel runs the bridge in-process against mcptestserver: a
// cancel of a running call reaches the server as notifications/cancelled
// (the server's handler sees its context end) and the call still gets one
// error result.
func TestBridgeCancel(t *testing.T) {
	srv := filepath.Join(testServer(t), "mcptestserver")
	home := t.TempDir()
	marker := filepath.Join(home, "cancelled")
	cfg := `{"mcpServers":{"t":{"command":"` + srv + `","env":{"MCPTEST_CANCEL_FILE":"` + marker + `"}}}}`
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	env := &app.Env{
		Stdin: inR, Stdout: outW, Stderr: io.Discard, Dir: home, Now: time.Now,
		Getenv: func(k string) string {
			if k == "AGENTUTILS_HOME" || k == "HOME" {
				return home
			}
			return ""
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- app.Run(ctx, newApp, env, []string{"agent-mcp", "bridge"})
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	next := func() string {
		if !lines.Scan() {
			t.Fatalf("bridge output ended: %v", lines.Err())
		}
		return lines.Text()
	}
	io.WriteString(inW, `{"type":"hello","cwd":"`+home+`"}`+"\n")
	if l := next(); !strings.Contains(l, `"name":"mcp__t__slow"`) {
		t.Fatalf("first line %s", l)
	}
	io.WriteString(inW, `{"type":"call","id":"k1","name":"mcp__t__slow","arguments":{"ms":2000}}`+"\n")
	if l := next(); !strings.HasPrefix(l, `{"type":"update","id":"k1"`) {
		t.Fatalf("want a progress update, got %s", l)
	}
	io.WriteString(inW, `{"type":"cancel","id":"k1"}`+"\n")
	if l := next(); !strings.HasPrefix(l, `{"type":"result","id":"k1","content":[{"type":"text","text":"MCP error: cancelled"}],"isError":true`) {
		t.Fatalf("want a cancelled result, got %s", l)
	}
	inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(marker); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the server never saw the cancellation")
}
