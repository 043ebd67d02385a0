package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
