package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/lib/event"
)

type todo struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"`
}

// todoTool is the reference's v12 todo_write: the whole list replaced on
// each call, completed in order, saved as {updatedAt, todos} in the state dir.
func todoTool() Tool {
	return Tool{
		Def: def("todo_write", "Replace the task list for this session. Each todo has content and a status (pending, in_progress, completed); complete them in order and keep at most the current one in_progress. An empty list clears it.",
			`{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"content":{"type":"string"},"status":{"type":"string","description":"pending, in_progress or completed"}},"required":["content","status"]}}},"required":["todos"],"additionalProperties":false}`),
		Run: func(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
			var a struct{ Todos []todo }
			if err := decode(args, &a); err != nil {
				return event.ToolOutput{}, err
			}
			todos, msg, err := checkTodos(a.Todos)
			if err != nil {
				return event.ToolOutput{}, err
			}
			d, err := env.stateDir()
			if err != nil {
				return event.ToolOutput{}, err
			}
			b, _ := json.MarshalIndent(map[string]any{"updatedAt": env.Now().UTC().Format("2006-01-02T15:04:05.000Z"), "todos": todos}, "", "  ")
			if err := atomicfile.Write(filepath.Join(d, "todos.json"), append(b, '\n'), 0o644); err != nil {
				return event.ToolOutput{}, err
			}
			return event.ToolOutput{Content: []event.Content{event.Text(msg)}, Details: details(map[string]any{"todos": todos})}, nil
		},
	}
}

// checkTodos normalises statuses, fills ids and enforces sequential
// completion, with the reference's texts.
func checkTodos(in []todo) ([]todo, string, error) {
	out := make([]todo, 0, len(in))
	var p, ip, c int
	firstOpen, firstPending := "", ""
	for i, t := range in {
		t.Content = strings.TrimSpace(t.Content)
		if t.Content == "" {
			return nil, "", fmt.Errorf("Error: todo %d has empty content.", i+1)
		}
		switch strings.ToLower(t.Status) {
		case "completed", "done", "complete":
			t.Status = "completed"
		case "in_progress":
			t.Status = "in_progress"
		default:
			t.Status = "pending"
		}
		if t.ID == "" {
			t.ID = fmt.Sprintf("todo-%d", i+1)
		}
		switch t.Status {
		case "completed":
			if firstOpen != "" {
				return nil, "", fmt.Errorf("Error: Cannot complete %q before completing %q. Todos must be completed sequentially.", t.Content, firstOpen)
			}
			c++
		case "in_progress":
			if firstPending != "" {
				return nil, "", fmt.Errorf("Error: Cannot start %q while earlier tasks are still pending.", t.Content)
			}
			if firstOpen == "" {
				firstOpen = t.Content
			}
			ip++
		default:
			if firstOpen == "" {
				firstOpen = t.Content
			}
			if firstPending == "" {
				firstPending = t.Content
			}
			p++
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return out, "Todo list cleared.", nil
	}
	return out, fmt.Sprintf("Saved %d todos (%d pending, %d in progress, %d completed).", len(out), p, ip, c), nil
}
