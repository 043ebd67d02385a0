package render

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTaskSummary: a task's details as the end of its call shows them.
func TestTaskSummary(t *testing.T) {
	for _, tc := range []struct {
		name, details, want string
	}{
		{"one turn, no cost", `{"turns":1,"usage":{"input":100,"output":20}}`, "1 turn · ↑100 ↓20"},
		{"cache and cost", `{"turns":3,"usage":{"input":1000,"cacheRead":2500,"output":300,"cost":{"total":0.0042}}}`, "3 turns · ↑3.5k ↓300 · $0.0042"},
		{"stopped", `{"turns":2,"usage":{},"stopped":"tokens"}`, "2 turns · ↑0 ↓0 · stopped: tokens"},
	} {
		d, ok := ParseTask(json.RawMessage(tc.details))
		if !ok {
			t.Fatalf("%s: not parsed", tc.name)
		}
		if diff := cmp.Diff(tc.want, d.Summary()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if _, ok := ParseTask(nil); ok {
		t.Error("no details parsed as a task's")
	}
}

// TestTaskEnd: a task call's end shows its result and then its spend.
func TestTaskEnd(t *testing.T) {
	r := New(Options{Width: 80})
	start := ev(t, map[string]any{"type": "tool_execution_start", "toolCallId": "c1", "toolName": "task", "args": map[string]any{"prompt": "Find the parser", "agent": "explore"}})
	end := ev(t, map[string]any{"type": "tool_execution_end", "toolCallId": "c1", "toolName": "task", "isError": false,
		"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "In parse.go."}}, "details": map[string]any{"turns": 2, "usage": map[string]any{"input": 200, "output": 40}}}})
	a, _ := r.Event(start)
	b, _ := r.Event(end)
	if diff := cmp.Diff("● task explore: Find the parser\n  In parse.go.\n  2 turns · ↑200 ↓40\n", a+b); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
