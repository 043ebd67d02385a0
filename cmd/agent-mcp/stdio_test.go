package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentutils/agentutils/internal/app"
)

// TestStdioFilter: lines of a server's stdout that are not JSON are
// skipped and reported, also when they start with '{' (a console.log of
// an object); JSON lines pass as they are.
func TestStdioFilter(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var junk []string
	tr := &stdioTransport{junk: func(l string) { junk = append(junk, l) }}
	pr, pw := io.Pipe()
	go func() {
		w.WriteString("server starting\n{ level: 'info', msg: 'ready' }\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n[\n")
		w.Close()
	}()
	go tr.filter(r, pw)
	got, _ := io.ReadAll(pr)
	if d := cmp.Diff("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n", string(got)); d != "" {
		t.Errorf("passed (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"server starting", "{ level: 'info', msg: 'ready' }", "["}, junk); d != "" {
		t.Errorf("junk (-want +got):\n%s", d)
	}
}

// TestCallProgress: on a terminal, agent-mcp call shows each progress
// notification as one redrawn stderr line and erases it at the end.
func TestCallProgress(t *testing.T) {
	var b strings.Builder
	p := &progressLine{w: &b, prefix: "t slow"}
	p.handle(context.Background(), &mcp.ProgressNotificationClientRequest{Params: &mcp.ProgressNotificationParams{Progress: 1, Total: 4, Message: "step"}})
	p.handle(context.Background(), &mcp.ProgressNotificationClientRequest{Params: &mcp.ProgressNotificationParams{Progress: 2, Total: 4}})
	p.clear()
	want := "\r\x1b[Kagent-mcp: t slow: 1/4 step\r\x1b[Kagent-mcp: t slow: 2/4\r\x1b[K"
	if b.String() != want {
		t.Errorf("stderr %q, want %q", b.String(), want)
	}
	// and the call itself runs with it (the notifications may come after the result)
	home := t.TempDir()
	b2, _ := json.Marshal(map[string]any{"command": filepath.Join(testServer(t), "mcptestserver")})
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), []byte(`{"mcpServers":{"t":`+string(b2)+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	env := &app.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: new(strings.Builder), Dir: home, Now: time.Now,
		Getenv: homeGetenv(home, nil), StderrTTY: true}
	if code := app.Run(context.Background(), newApp, env, []string{"agent-mcp", "call", "t", "slow", `{"ms":4}`, "--text"}); code != 0 || out.String() != "done\n" {
		t.Errorf("call on a terminal: exit %d, %q", code, out.String())
	}
}
