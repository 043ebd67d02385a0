package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/internal/approval"
	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/lib/event"
)

func taskEv(t *testing.T, v map[string]any) event.Event {
	t.Helper()
	b, _ := json.Marshal(v)
	ev, err := event.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestTaskCardConversation: expanded (ctrl+o), a running task's card puts
// its sub-agent's conversation into the scrollback, read from its session
// file and drawn as the agent's own entries are, and follows it as the
// file grows (at its updates and between them); a line not yet whole
// waits; its end draws what came last.
func TestTaskCardConversation(t *testing.T) {
	m, _ := testModel(t)
	file := filepath.Join(t.TempDir(), "sub.jsonl")
	write := func(s string) {
		f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	write(`{"type":"session","version":3,"id":"sub1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"Find the parser"}],"timestamp":1}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Let me look."},{"type":"toolCall","id":"t1","name":"bash","arguments":{"command":"ls lib"}}],"stopReason":"toolUse","timestamp":2}}
`)
	m.taskEvent(taskEv(t, map[string]any{"type": "tool_execution_start", "toolCallId": "c1", "toolName": "task", "args": map[string]any{"prompt": "Find it"}}))
	m.taskEvent(update(t, "→ ls lib", map[string]any{"session": file, "sessionId": "sub1", "turns": 1}))
	m.expanded = true
	got := ansi.Strip(m.expandTasks())
	for _, want := range []string{"  │ > Find the parser\n", "  │ Let me look.\n", "  │ ● $ ls lib\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("expanded: no %q in\n%s", want, got)
		}
	}
	write(`{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"bash","content":[{"type":"text","text":"parse.go\nlex.go\n"}],"isError":false,"timestamp":3}}
{"type":"message","id":"a4","parentId":"a3","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"It is lib/parse.go."}],"stopReason":"stop","timestamp":4}}
{"type":"message","id":"a5"`)
	got = ansi.Strip(m.followedTasks()) // the look between events (followMsg)
	if again := m.taskEvent(update(t, "→ ls lib\nIt is lib/parse.go.", map[string]any{"session": file, "sessionId": "sub1", "turns": 2})); again != "" {
		t.Errorf("an update drew again: %q", again)
	}
	for _, want := range []string{"  │   parse.go\n", "  │   lex.go\n", "  │ It is lib/parse.go.\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("followed: no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "Find the parser") {
		t.Errorf("followed: the prompt again:\n%s", got)
	}
	write(`,"parentId":"a4","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"and the lexer?"}],"timestamp":5}}
`)
	end := taskEv(t, map[string]any{"type": "tool_execution_end", "toolCallId": "c1", "toolName": "task", "isError": false,
		"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "It is lib/parse.go."}}, "details": map[string]any{"session": file}}})
	if got := ansi.Strip(m.taskEvent(end)); got != "  │ > and the lexer?\n" {
		t.Errorf("at its end: %q", got)
	}
	// ctrl+o after it ended: the whole conversation, from its file.
	if got := ansi.Strip(m.taskConversation(end)); !strings.Contains(got, "  │ > Find the parser\n") || !strings.Contains(got, "  │ > and the lexer?\n") {
		t.Errorf("the finished call's conversation:\n%s", got)
	}
}

func update(t *testing.T, log string, details map[string]any) event.Event {
	return taskEv(t, map[string]any{"type": "tool_execution_update", "toolCallId": "c1", "toolName": "task",
		"partialResult": map[string]any{"content": []any{map[string]any{"type": "text", "text": log}}, "details": details}})
}

// TestTaskCardFolded: a running task's card shows what it runs now, its
// spend and its last lines; an approval of its sub-agent says who asks;
// expanded, its progress goes into the scrollback once; its end drops it.
func TestTaskCardFolded(t *testing.T) {
	m, _ := testModel(t)
	m.taskEvent(taskEv(t, map[string]any{"type": "tool_execution_start", "toolCallId": "c1", "toolName": "task", "args": map[string]any{"prompt": "Find it", "agent": "explore"}}))
	m.taskEvent(update(t, "→ ls\nfound a\n→ read a.go\n→ grep x", map[string]any{"sessionId": "sub1", "turns": 2, "usage": map[string]any{"input": 300, "output": 50}, "running": "grep x"}))
	want := "  ⋯ task explore: Find it · 2 turns · ↑300 ↓50 · → grep x\n    found a\n    → read a.go\n    → grep x\n"
	if d := cmp.Diff(want, ansi.Strip(m.tasks.view(80, false))); d != "" {
		t.Errorf("folded (-want +got):\n%s", d)
	}
	m.approve.add(&pending{req: approval.NewRequest(hooks.Input{SessionID: "sub1", ToolName: "ls"})}, m.now())
	if got := ansi.Strip(m.approve.view(80, true, true, m.asker())); !strings.HasPrefix(got, "sub-agent task explore: Find it asks:\nAllow ls") {
		t.Errorf("approval: %q", got)
	}
	m.expanded = true
	if got := ansi.Strip(m.expandTasks()); got != "" {
		t.Errorf("expanded without a session file: %q", got)
	}
	m.taskEvent(taskEv(t, map[string]any{"type": "tool_execution_end", "toolCallId": "c1", "toolName": "task", "isError": false, "result": map[string]any{"content": []any{}}}))
	if len(m.tasks) != 0 || m.asker() != "" {
		t.Errorf("the card outlived its call: %d cards, asker %q", len(m.tasks), m.asker())
	}
}
