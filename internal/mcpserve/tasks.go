package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TaskTransport gives a stdio server what the SDK lacks of MCP 2025-11-25,
// on its connection: tasks (a task-augmented tools/call answers a
// CreateTaskResult at once and runs in the background as an ordinary call
// of the SDK's under an id of ours; tasks/get, tasks/result, tasks/list and
// tasks/cancel are answered here), the tasks capability and each tool's
// execution.taskSupport in what the SDK sends, and (ToolsOnly) -32601 for
// the methods a tools-only server does not offer (resources, prompts,
// completion), which the SDK would answer with empty lists. tools/list
// results for clients of protocols before 2026-07-28 lose that version's
// cache fields (ttlMs, cacheScope). Tools named in Required are listed with
// taskSupport "required" and a plain call of one gets -32601, as the spec
// says; the others are "optional".
type TaskTransport struct {
	mcp.Transport
	Required  []string
	ToolsOnly bool
}

func (t TaskTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	req := map[string]bool{}
	for _, n := range t.Required {
		req[n] = true
	}
	return &taskConn{Connection: c, required: req, toolsOnly: t.ToolsOnly, tasks: map[string]*task{}, internal: map[string]*task{},
		edits: map[any]string{}, asks: map[any]*task{}, inject: make(chan jsonrpc.Message, 16), closed: make(chan struct{})}, nil
}

// taskPoll is the pollInterval (ms) serve suggests.
const taskPoll = 500

// unoffered are the methods serve does not offer.
var unoffered = map[string]bool{"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"resources/subscribe": true, "resources/unsubscribe": true, "prompts/list": true, "prompts/get": true, "completion/complete": true}

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

type taskConn struct {
	mcp.Connection
	required  map[string]bool
	toolsOnly bool
	mu        sync.Mutex
	tasks     map[string]*task
	internal  map[string]*task // by the id of the call of ours
	order     []string
	edits     map[any]string // ids of responses to edit: initialize, tools/list, lists
	asks      map[any]*task  // our requests to the client on behalf of a task
	version   string
	n         int
	inject    chan jsonrpc.Message
	closed    chan struct{}
	once      sync.Once
	pump      chan readResult
	start     sync.Once
}

type readResult struct {
	m   jsonrpc.Message
	err error
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

func (c *taskConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	c.start.Do(func() {
		c.pump = make(chan readResult)
		go func() {
			for {
				m, err := c.Connection.Read(context.Background())
				select {
				case c.pump <- readResult{m, err}:
				case <-c.closed:
					return
				}
				if err != nil {
					return
				}
			}
		}()
	})
	for {
		select {
		case m := <-c.inject:
			return m, nil
		case r := <-c.pump:
			if r.err != nil {
				return r.m, r.err
			}
			if m := c.receive(ctx, r.m); m != nil {
				return m, nil
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, mcp.ErrConnectionClosed
		}
	}
}

// receive handles what comes in: nil when answered here.
func (c *taskConn) receive(ctx context.Context, m jsonrpc.Message) jsonrpc.Message {
	if r, ok := m.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if t := c.asks[r.ID.Raw()]; t != nil {
			delete(c.asks, r.ID.Raw())
			if t.Status == "input_required" {
				t.Status, t.LastUpdatedAt = "working", now()
			}
		}
		c.mu.Unlock()
		return m
	}
	r, ok := m.(*jsonrpc.Request)
	if !ok || !r.IsCall() {
		return m
	}
	switch r.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(r.Params, &p)
		c.mu.Lock()
		c.version = p.ProtocolVersion
		c.edits[r.ID.Raw()] = r.Method
		c.mu.Unlock()
	case "tools/list":
		c.mu.Lock()
		c.edits[r.ID.Raw()] = r.Method
		c.mu.Unlock()
	case "tools/call":
		return c.augmented(ctx, r)
	case "tasks/get", "tasks/result", "tasks/cancel", "tasks/list":
		c.taskRequest(ctx, r)
		return nil
	default:
		if c.toolsOnly && unoffered[r.Method] {
			c.answer(ctx, r.ID, nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + r.Method + " (agent-mcp serve offers tools only)"})
			return nil
		}
	}
	return m
}

// augmented starts a task-augmented tools/call: the client gets its
// CreateTaskResult, the SDK the call without task under an id of ours.
func (c *taskConn) augmented(ctx context.Context, r *jsonrpc.Request) jsonrpc.Message {
	var p map[string]json.RawMessage
	if json.Unmarshal(r.Params, &p) != nil {
		return r
	}
	if p["task"] == nil {
		var name string
		_ = json.Unmarshal(p["name"], &name)
		if c.required[name] {
			c.answer(ctx, r.ID, nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("tool %q must be called as a task (execution.taskSupport is \"required\")", name)})
			return nil
		}
		return r
	}
	var meta struct {
		TTL *int64 `json:"ttl"`
	}
	_ = json.Unmarshal(p["task"], &meta)
	delete(p, "task")
	params, _ := json.Marshal(p)
	c.mu.Lock()
	c.n++
	// One client per connection: a number is unique enough.
	t := &task{ID: fmt.Sprintf("task-%d", c.n), Status: "working", CreatedAt: now(), TTL: meta.TTL, PollInterval: taskPoll,
		internal: fmt.Sprintf("agent-mcp-task-%d", c.n), done: make(chan struct{})}
	t.LastUpdatedAt = t.CreatedAt
	c.tasks[t.ID] = t
	c.internal[t.internal] = t
	c.order = append(c.order, t.ID)
	created, _ := json.Marshal(map[string]any{"task": t})
	c.mu.Unlock()
	c.answer(ctx, r.ID, created, nil)
	id, _ := jsonrpc.MakeID(t.internal)
	return &jsonrpc.Request{ID: id, Method: r.Method, Params: params, Extra: r.Extra}
}

// taskRequest answers tasks/*; tasks/result waits for its task's end.
func (c *taskConn) taskRequest(ctx context.Context, r *jsonrpc.Request) {
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(r.Params, &p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.Method == "tasks/list" {
		list := []*task{}
		for _, id := range c.order {
			list = append(list, c.tasks[id])
		}
		b, _ := json.Marshal(map[string]any{"tasks": list})
		go c.answer(ctx, r.ID, b, nil)
		return
	}
	t := c.tasks[p.TaskID]
	if t == nil {
		go c.answer(ctx, r.ID, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no task %q", p.TaskID)})
		return
	}
	switch r.Method {
	case "tasks/get":
		b, _ := json.Marshal(t)
		go c.answer(ctx, r.ID, b, nil)
	case "tasks/cancel":
		if t.terminal() {
			go c.answer(ctx, r.ID, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("task %q is already %s", t.ID, t.Status)})
			return
		}
		t.Status, t.StatusMessage, t.LastUpdatedAt = "cancelled", "The task was cancelled by request.", now()
		b, _ := json.Marshal(t)
		n, _ := json.Marshal(map[string]any{"requestId": t.internal, "reason": "tasks/cancel"})
		go func() {
			select {
			case c.inject <- &jsonrpc.Request{Method: "notifications/cancelled", Params: n}:
			case <-c.closed:
			}
			c.answer(ctx, r.ID, b, nil)
		}()
	case "tasks/result":
		go func() {
			select {
			case <-t.done:
			case <-c.closed:
				return
			}
			c.mu.Lock()
			res, err := t.result, t.rpcErr
			c.mu.Unlock()
			if res != nil {
				res = withMeta(res, "io.modelcontextprotocol/related-task", map[string]any{"taskId": t.ID})
			}
			c.answer(ctx, r.ID, res, err)
		}()
	}
}

// answer writes a response to the client.
func (c *taskConn) answer(ctx context.Context, id jsonrpc.ID, result json.RawMessage, err error) {
	_ = c.Connection.Write(context.WithoutCancel(ctx), &jsonrpc.Response{ID: id, Result: result, Error: err})
}

func (c *taskConn) Write(ctx context.Context, m jsonrpc.Message) error {
	switch r := m.(type) {
	case *jsonrpc.Response:
		s, _ := r.ID.Raw().(string)
		c.mu.Lock()
		t := c.internal[s]
		edit := c.edits[r.ID.Raw()]
		delete(c.edits, r.ID.Raw())
		version := c.version
		c.mu.Unlock()
		if t != nil {
			c.finish(t, r)
			return nil
		}
		if edit != "" && r.Error == nil && r.Result != nil {
			r.Result = editResult(edit, version, r.Result, c.required)
		}
	case *jsonrpc.Request:
		if r.IsCall() && (r.Method == "elicitation/create" || r.Method == "sampling/createMessage") {
			c.relate(r)
		}
	}
	return c.Connection.Write(ctx, m)
}

// relate ties a request to the client to the one task running, if one is:
// it is input_required until the answer, and the request says so.
func (c *taskConn) relate(r *jsonrpc.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var running *task
	for _, t := range c.tasks {
		if !t.terminal() {
			if running != nil {
				return
			}
			running = t
		}
	}
	if running == nil {
		return
	}
	running.Status, running.LastUpdatedAt = "input_required", now()
	c.asks[r.ID.Raw()] = running
	r.Params = withMeta(r.Params, "io.modelcontextprotocol/related-task", map[string]any{"taskId": running.ID})
}

// finish keeps a task's result: a JSON-RPC error or isError fails it; a
// cancelled task stays cancelled.
func (c *taskConn) finish(t *task, r *jsonrpc.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.internal, t.internal)
	t.result, t.rpcErr = r.Result, r.Error
	if t.Status != "cancelled" {
		var res struct {
			IsError bool `json:"isError"`
		}
		_ = json.Unmarshal(r.Result, &res)
		t.Status = "completed"
		if r.Error != nil || res.IsError {
			t.Status = "failed"
		}
		if r.Error != nil {
			t.StatusMessage = r.Error.Error()
		}
		t.LastUpdatedAt = now()
	}
	close(t.done)
}

// editResult adds what the SDK leaves out to initialize's and tools/list's
// results, and drops 2026-07-28's cache fields for older clients.
func editResult(method, version string, res json.RawMessage, required map[string]bool) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(res, &m) != nil {
		return res
	}
	switch method {
	case "initialize":
		var caps map[string]any
		_ = json.Unmarshal(m["capabilities"], &caps)
		if caps == nil {
			caps = map[string]any{}
		}
		caps["tasks"] = map[string]any{"list": map[string]any{}, "cancel": map[string]any{},
			"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
		m["capabilities"], _ = json.Marshal(caps)
	case "tools/list":
		var tools []map[string]any
		if json.Unmarshal(m["tools"], &tools) == nil {
			for _, t := range tools {
				ts := "optional"
				if name, _ := t["name"].(string); required[name] {
					ts = "required"
				}
				t["execution"] = map[string]any{"taskSupport": ts}
			}
			m["tools"], _ = json.Marshal(tools)
		}
	}
	if version < "2026-07-28" {
		delete(m, "ttlMs")
		delete(m, "cacheScope")
	}
	b, err := json.Marshal(m)
	if err != nil {
		return res
	}
	return b
}

// withMeta sets _meta[key] of a JSON object.
func withMeta(obj json.RawMessage, key string, v any) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return obj
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	var meta map[string]any
	_ = json.Unmarshal(m["_meta"], &meta)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[key] = v
	m["_meta"], _ = json.Marshal(meta)
	b, err := json.Marshal(m)
	if err != nil {
		return obj
	}
	return b
}

func (c *taskConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Connection.Close()
}
