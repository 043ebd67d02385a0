package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/internal/approval"
	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/lib/event"
)

func TestNewLines(t *testing.T) {
	for _, tc := range []struct {
		name           string
		was, now, want []string
	}{
		{"first", nil, []string{"a"}, []string{"a"}},
		{"grown", []string{"a"}, []string{"a", "b", "c"}, []string{"b", "c"}},
		{"the window slid", []string{"a", "b", "c"}, []string{"b", "c", "d"}, []string{"d"}},
		{"no change", []string{"a", "b"}, []string{"a", "b"}, []string{}},
		{"a repeated line", []string{"x"}, []string{"x", "x"}, []string{"x"}},
		{"no overlap", []string{"a"}, []string{"b", "c"}, []string{"b", "c"}},
	} {
		if d := cmp.Diff(tc.want, newLines(tc.was, tc.now)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

func taskEv(t *testing.T, v map[string]any) event.Event {
	t.Helper()
	b, _ := json.Marshal(v)
	ev, err := event.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return ev
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
	if got := ansi.Strip(m.expandTasks()); got != "  │ → ls\n  │ found a\n  │ → read a.go\n  │ → grep x\n" {
		t.Errorf("expanded: %q", got)
	}
	got := m.taskEvent(update(t, "→ ls\nfound a\n→ read a.go\n→ grep x\nDone.", map[string]any{"sessionId": "sub1", "turns": 3}))
	if got = ansi.Strip(got); got != "  │ Done.\n" {
		t.Errorf("followed: %q", got)
	}
	m.taskEvent(taskEv(t, map[string]any{"type": "tool_execution_end", "toolCallId": "c1", "toolName": "task", "isError": false, "result": map[string]any{"content": []any{}}}))
	if len(m.tasks) != 0 || m.asker() != "" {
		t.Errorf("the card outlived its call: %d cards, asker %q", len(m.tasks), m.asker())
	}
}
