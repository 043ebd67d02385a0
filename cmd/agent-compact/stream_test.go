package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/session"
)

// Pruning a stream whose path is not in stream order (children before
// their parents): each pruned record replaces its own line, every other
// line passes through as it came.
func TestPruneOutOfOrder(t *testing.T) {
	var lines []string
	lines = append(lines, `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`)
	// the path u0 t0 u1 t1 … u5 t5, written newest pair first
	big := strings.Repeat("x", 60000) // 15000 tokens
	for i := 5; i >= 0; i-- {
		parent := "null"
		if i > 0 {
			parent = fmt.Sprintf("%q", fmt.Sprint("t", i-1))
		}
		lines = append(lines,
			fmt.Sprintf(`{"type":"message","id":"u%d","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"go","timestamp":1}}`, i, parent),
			fmt.Sprintf(`{"type":"message","id":"t%d","parentId":"u%d","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":%q}],"isError":false,"timestamp":1}}`, i, i, big))
	}
	// the leaf last: the stream's last entry
	lines = append(lines, `{"type":"message","id":"a","parentId":"t5","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"done"}],"stopReason":"stop","timestamp":1}}`)
	in := strings.Join(lines, "\n") + "\n"
	var out, errb bytes.Buffer
	env := &app.Env{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" },
		Now: func() time.Time { return time.UnixMilli(1767225600000) }, Dir: t.TempDir()}
	if code := app.Run(context.Background(), newApp, env, []string{"agent-compact", "--context-window", "1000000"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != len(lines) {
		t.Fatalf("%d lines out, %d in", len(got), len(lines))
	}
	var pruned []string
	for i, l := range got {
		if l == lines[i] {
			continue
		}
		r, err := session.ParseRecord([]byte(l))
		want, _ := session.ParseRecord([]byte(lines[i]))
		if err != nil || r.ID != want.ID || !r.Pending || !strings.Contains(l, "[Output truncated - 15000 tokens]") {
			t.Fatalf("line %d changed to %.200s", i+1, l)
		}
		pruned = append(pruned, r.ID)
	}
	// the newest 40k of tool output (t5, t4, t3) is kept; t2, t1, t0 pruned, in stream order
	if strings.Join(pruned, " ") != "t2 t1 t0" {
		t.Errorf("pruned %v", pruned)
	}
}
