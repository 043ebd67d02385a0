package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sawTools keeps the taskSupport of listed tools.
func (s *Session) sawTools(tools []RawTool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.taskSupport == nil {
		s.taskSupport = map[string]string{}
		s.outputSchema = map[string]json.RawMessage{}
	}
	for _, t := range tools {
		ts := "forbidden"
		if t.Execution != nil && t.Execution.TaskSupport != "" {
			ts = t.Execution.TaskSupport
		}
		s.taskSupport[t.Name] = ts
		s.outputSchema[t.Name] = t.OutputSchema
	}
}

// TaskSupport is a tool's execution.taskSupport as last listed
// ("forbidden", "optional", "required"), "" when the tool was not listed.
func (s *Session) TaskSupport(tool string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.taskSupport[tool]
}

// Raw is the live connection's carrier of requests the SDK does not know.
func (s *Session) Raw() *RawConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.raw
}

// Task is an MCP 2025-11-25 task as tasks/get and CreateTaskResult give it.
type Task struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	PollInterval  *int64 `json:"pollInterval,omitempty"` // milliseconds
}

// Terminal reports a status a task does not leave.
func (t *Task) Terminal() bool {
	return t.Status == "completed" || t.Status == "failed" || t.Status == "cancelled"
}

// PollWait is the wait before poll n (from 0) of a task: the server's
// pollInterval when it gives one, never less, and otherwise a backoff
// from 100 ms doubling to 2 s.
func PollWait(n int, pollInterval *int64) time.Duration {
	d := 100 * time.Millisecond
	for i := 0; i < n && d < 2*time.Second; i++ {
		d *= 2
	}
	d = min(d, 2*time.Second)
	if pollInterval != nil && time.Duration(*pollInterval)*time.Millisecond > d {
		d = time.Duration(*pollInterval) * time.Millisecond
	}
	return d
}

// CallTask runs tools/call as a task (MCP 2025-11-25): the call is
// task-augmented, the task polled with tasks/get (see PollWait) until it
// ends or needs input, and its result fetched with tasks/result (which a
// server holds open while it asks the client for input). A cancelled ctx
// sends tasks/cancel. The result is the server's CallToolResult JSON; a
// server that runs the call at once (no task) gives it directly.
func CallTask(ctx context.Context, c *RawConn, params *mcp.CallToolParams) (json.RawMessage, error) {
	if c == nil {
		return nil, mcp.ErrConnectionClosed
	}
	p := map[string]any{"name": params.Name, "arguments": params.Arguments, "task": map[string]any{}}
	if params.Meta != nil {
		p["_meta"] = params.Meta
	}
	raw, err := createTask(ctx, c, p)
	if err != nil {
		return nil, err
	}
	t := created(raw)
	if t == nil {
		return raw, nil // not a CreateTaskResult: the call's own result
	}
	interval := t.PollInterval
	for n := 0; !t.Terminal() && t.Status != "input_required"; n++ {
		select {
		case <-time.After(PollWait(n, interval)):
		case <-ctx.Done():
			return nil, cancelTask(ctx, c, t.TaskID)
		}
		raw, err := c.Call(ctx, "tasks/get", map[string]any{"taskId": t.TaskID})
		if err != nil {
			if ctx.Err() != nil {
				return nil, cancelTask(ctx, c, t.TaskID)
			}
			return nil, fmt.Errorf("tasks/get %s: %w", t.TaskID, err)
		}
		var next Task
		if err := json.Unmarshal(raw, &next); err != nil {
			return nil, fmt.Errorf("tasks/get %s: %w", t.TaskID, err)
		}
		t = &next
		if t.PollInterval != nil {
			interval = t.PollInterval
		}
	}
	if t.Status == "cancelled" {
		msg := "the server cancelled the task " + t.TaskID
		if t.StatusMessage != "" {
			msg += ": " + t.StatusMessage
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
	}
	raw, err = c.Call(ctx, "tasks/result", map[string]any{"taskId": t.TaskID})
	if err != nil && ctx.Err() != nil {
		return nil, cancelTask(ctx, c, t.TaskID)
	}
	return raw, err
}

// created is the task of a CreateTaskResult, nil for another result.
func created(raw json.RawMessage) *Task {
	var c struct {
		Task *Task `json:"task"`
	}
	if err := json.Unmarshal(raw, &c); err != nil || c.Task == nil || c.Task.TaskID == "" {
		return nil
	}
	return c.Task
}

// taskGrace is how long a call given up waits for the task it may have
// created, to cancel it.
const taskGrace = 2 * time.Second

// createTask sends a task-augmented tools/call. Given up before its answer,
// it waits a moment for it: a task created meanwhile is cancelled
// (tasks/cancel), not left running; a call with no answer by then is
// cancelled (notifications/cancelled).
func createTask(ctx context.Context, c *RawConn, p map[string]any) (json.RawMessage, error) {
	type answer struct {
		raw json.RawMessage
		err error
	}
	ch := make(chan answer, 1)
	cctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	go func() {
		raw, err := c.Call(cctx, "tools/call", p)
		ch <- answer{raw, err}
	}()
	select {
	case a := <-ch:
		return a.raw, a.err
	case <-ctx.Done():
	}
	select {
	case a := <-ch:
		if t := created(a.raw); a.err == nil && t != nil {
			return nil, cancelTask(ctx, c, t.TaskID)
		}
	case <-time.After(taskGrace):
		stop()
	}
	return nil, ctx.Err()
}

// cancelTask sends tasks/cancel for a task its caller gave up, and is the
// caller's error.
func cancelTask(ctx context.Context, c *RawConn, id string) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	_, _ = c.Call(cctx, "tasks/cancel", map[string]any{"taskId": id})
	return ctx.Err()
}
