package mcpserve

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// taskPoll is the pollInterval (ms) serve suggests.
const taskPoll = 500

// relatedTask is the _meta key that ties a message to its task.
const relatedTask = "io.modelcontextprotocol/related-task"

type task struct {
	ID            string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  int64  `json:"pollInterval"`

	internal string
	result   json.RawMessage
	rpcErr   error
	done     chan struct{}
}

func (t *task) terminal() bool {
	return t.Status == "completed" || t.Status == "failed" || t.Status == "cancelled"
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// taskTable is the tasks of one client (a stdio connection, an HTTP
// session): each runs as an ordinary call under an id of ours (internal),
// and the table answers tasks/get, tasks/list and tasks/cancel, and keeps
// each task's result for tasks/result. Every change of status goes to
// notify (a notifications/tasks/status's params), outside the lock.
type taskTable struct {
	mu       sync.Mutex
	tasks    map[string]*task
	internal map[string]*task // by the id of the call of ours
	order    []string
	n        int
	notify   func(t *task, params json.RawMessage)
}

func newTaskTable(notify func(*task, json.RawMessage)) *taskTable {
	return &taskTable{tasks: map[string]*task{}, internal: map[string]*task{}, notify: notify}
}

// start makes a working task for a task-augmented call whose task params
// are meta ({"ttl": …}), and its CreateTaskResult.
func (tt *taskTable) start(meta json.RawMessage) (*task, json.RawMessage) {
	var m struct {
		TTL *int64 `json:"ttl"`
	}
	_ = json.Unmarshal(meta, &m)
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.n++
	// One client per table: a number is unique enough.
	t := &task{ID: fmt.Sprintf("task-%d", tt.n), Status: "working", CreatedAt: now(), TTL: m.TTL, PollInterval: taskPoll,
		internal: fmt.Sprintf("agent-mcp-task-%d", tt.n), done: make(chan struct{})}
	t.LastUpdatedAt = t.CreatedAt
	tt.tasks[t.ID] = t
	tt.internal[t.internal] = t
	tt.order = append(tt.order, t.ID)
	created, _ := json.Marshal(map[string]any{"task": t})
	return t, created
}

// byInternal is the task of a call of ours, nil for other ids.
func (tt *taskTable) byInternal(id jsonrpc.ID) *task {
	s, _ := id.Raw().(string)
	return tt.byInternalID(s)
}

// byInternalID is byInternal by the id's string.
func (tt *taskTable) byInternalID(id string) *task {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.internal[id]
}

// cancelled reports a task cancelled by request.
func (tt *taskTable) cancelled(t *task) bool {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return t.Status == "cancelled"
}

// request answers tasks/get, tasks/list and tasks/cancel (res or err); for
// tasks/result and tasks/cancel it also gives the task (a cancelled one's
// call is to be cancelled by the caller, with notifications/cancelled for
// its internal id; tasks/result waits for t.done, then outcome).
func (tt *taskTable) request(method string, params json.RawMessage) (res json.RawMessage, err *jsonrpc.Error, t *task) {
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(params, &p)
	tt.mu.Lock()
	if method == "tasks/list" {
		list := []*task{}
		for _, id := range tt.order {
			list = append(list, tt.tasks[id])
		}
		b, _ := json.Marshal(map[string]any{"tasks": list})
		tt.mu.Unlock()
		return b, nil, nil
	}
	t = tt.tasks[p.TaskID]
	if t == nil {
		tt.mu.Unlock()
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no task %q", p.TaskID)}, nil
	}
	switch method {
	case "tasks/get":
		res, _ = json.Marshal(t)
	case "tasks/cancel":
		if t.terminal() {
			err = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("task %q is already %s", t.ID, t.Status)}
			tt.mu.Unlock()
			return nil, err, nil
		}
		t.Status, t.StatusMessage, t.LastUpdatedAt = "cancelled", "The task was cancelled by request.", now()
		res, _ = json.Marshal(t)
		tt.mu.Unlock()
		tt.notifyOf(t, res)
		return res, nil, t
	}
	tt.mu.Unlock()
	return res, nil, t
}

// setStatus moves a task that has not ended to status (input_required,
// working); false when it was already so or has ended.
func (tt *taskTable) setStatus(t *task, status string) bool {
	tt.mu.Lock()
	if t.terminal() || t.Status == status {
		tt.mu.Unlock()
		return false
	}
	t.Status, t.LastUpdatedAt = status, now()
	b, _ := json.Marshal(t)
	tt.mu.Unlock()
	tt.notifyOf(t, b)
	return true
}

// running is the one task that has not ended, nil when none or several.
func (tt *taskTable) running() *task {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	var r *task
	for _, t := range tt.tasks {
		if !t.terminal() {
			if r != nil {
				return nil
			}
			r = t
		}
	}
	return r
}

// finish keeps a task's result: a JSON-RPC error or isError fails it; a
// cancelled task stays cancelled.
func (tt *taskTable) finish(t *task, result json.RawMessage, rpcErr error) {
	tt.mu.Lock()
	if _, ok := tt.internal[t.internal]; !ok {
		tt.mu.Unlock()
		return // finished already
	}
	delete(tt.internal, t.internal)
	t.result, t.rpcErr = result, rpcErr
	changed := false
	if t.Status != "cancelled" {
		var res struct {
			IsError bool `json:"isError"`
		}
		_ = json.Unmarshal(result, &res)
		t.Status = "completed"
		if rpcErr != nil || res.IsError {
			t.Status = "failed"
		}
		if rpcErr != nil {
			t.StatusMessage = rpcErr.Error()
		}
		t.LastUpdatedAt = now()
		changed = true
	}
	b, _ := json.Marshal(t)
	close(t.done)
	tt.mu.Unlock()
	if changed {
		tt.notifyOf(t, b)
	}
}

// outcome is an ended task's answer to tasks/result: the call's result
// with the task in its _meta, or its error.
func (tt *taskTable) outcome(t *task) (json.RawMessage, error) {
	tt.mu.Lock()
	res, err := t.result, t.rpcErr
	tt.mu.Unlock()
	if res != nil {
		res = withMeta(res, relatedTask, map[string]any{"taskId": t.ID})
	}
	return res, err
}

func (tt *taskTable) notifyOf(t *task, params json.RawMessage) {
	if tt.notify != nil {
		tt.notify(t, params)
	}
}
