package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

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
	tc := &taskConn{Connection: c, required: requiredSet(t.Required), toolsOnly: t.ToolsOnly,
		edits: map[any]string{}, asks: map[any]*task{}, inject: make(chan jsonrpc.Message, 16), closed: make(chan struct{})}
	// Each change of a task's status is told (notifications/tasks/status).
	tc.table = newTaskTable(func(_ *task, params json.RawMessage) {
		_ = c.Write(context.Background(), &jsonrpc.Request{Method: "notifications/tasks/status", Params: params})
	})
	return tc, nil
}

func requiredSet(names []string) map[string]bool {
	req := map[string]bool{}
	for _, n := range names {
		req[n] = true
	}
	return req
}

// unoffered are the methods serve does not offer.
var unoffered = map[string]bool{"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"resources/subscribe": true, "resources/unsubscribe": true, "prompts/list": true, "prompts/get": true, "completion/complete": true}

// unofferedErr is the answer to one of them.
func unofferedErr(method string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + method + " (agent-mcp serve offers tools only)"}
}

// requiredErr is the answer to a plain call of a tool that must run as a task.
func requiredErr(name string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("tool %q must be called as a task (execution.taskSupport is \"required\")", name)}
}

type taskConn struct {
	mcp.Connection
	required  map[string]bool
	toolsOnly bool
	table     *taskTable
	mu        sync.Mutex
	edits     map[any]string // ids of responses to edit: initialize, tools/list, lists
	asks      map[any]*task  // our requests to the client on behalf of a task
	version   string
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
		t := c.asks[r.ID.Raw()]
		delete(c.asks, r.ID.Raw())
		c.mu.Unlock()
		if t != nil {
			c.table.setStatus(t, "working")
		}
		return m
	}
	r, ok := m.(*jsonrpc.Request)
	if !ok || !r.IsCall() {
		return m
	}
	switch r.Method {
	case "initialize":
		c.mu.Lock()
		c.version = protocolOf(r.Params)
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
			c.answer(ctx, r.ID, nil, unofferedErr(r.Method))
			return nil
		}
	}
	return m
}

// protocolOf is the protocolVersion of initialize's params.
func protocolOf(params json.RawMessage) string {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p)
	return p.ProtocolVersion
}

// splitTask takes the task out of a tools/call's params: the params
// without it, the task's params (nil when the call is plain) and the
// tool's name.
func splitTask(params json.RawMessage) (plain, meta json.RawMessage, name string) {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params, nil, ""
	}
	_ = json.Unmarshal(p["name"], &name)
	meta = p["task"]
	if meta == nil {
		return params, nil, name
	}
	delete(p, "task")
	plain, _ = json.Marshal(p)
	return plain, meta, name
}

// augmented starts a task-augmented tools/call: the client gets its
// CreateTaskResult, the SDK the call without task under an id of ours.
func (c *taskConn) augmented(ctx context.Context, r *jsonrpc.Request) jsonrpc.Message {
	params, meta, name := splitTask(r.Params)
	if meta == nil {
		if c.required[name] {
			c.answer(ctx, r.ID, nil, requiredErr(name))
			return nil
		}
		return r
	}
	t, created := c.table.start(meta)
	c.answer(ctx, r.ID, created, nil)
	id, _ := jsonrpc.MakeID(t.internal)
	return &jsonrpc.Request{ID: id, Method: r.Method, Params: params, Extra: r.Extra}
}

// taskRequest answers tasks/*; tasks/result waits for its task's end.
func (c *taskConn) taskRequest(ctx context.Context, r *jsonrpc.Request) {
	res, rerr, t := c.table.request(r.Method, r.Params)
	switch {
	case rerr != nil:
		go c.answer(ctx, r.ID, nil, rerr)
	case r.Method == "tasks/cancel":
		n, _ := json.Marshal(map[string]any{"requestId": t.internal, "reason": "tasks/cancel"})
		go func() {
			select {
			case c.inject <- &jsonrpc.Request{Method: "notifications/cancelled", Params: n}:
			case <-c.closed:
			}
			c.answer(ctx, r.ID, res, nil)
		}()
	case r.Method == "tasks/result":
		go func() {
			select {
			case <-t.done:
			case <-c.closed:
				return
			}
			res, err := c.table.outcome(t)
			c.answer(ctx, r.ID, res, err)
		}()
	default:
		go c.answer(ctx, r.ID, res, nil)
	}
}

// answer writes a response to the client.
func (c *taskConn) answer(ctx context.Context, id jsonrpc.ID, result json.RawMessage, err error) {
	_ = c.Connection.Write(context.WithoutCancel(ctx), &jsonrpc.Response{ID: id, Result: result, Error: err})
}

func (c *taskConn) Write(ctx context.Context, m jsonrpc.Message) error {
	switch r := m.(type) {
	case *jsonrpc.Response:
		if t := c.table.byInternal(r.ID); t != nil {
			c.table.finish(t, r.Result, r.Error)
			return nil
		}
		c.mu.Lock()
		edit := c.edits[r.ID.Raw()]
		delete(c.edits, r.ID.Raw())
		version := c.version
		c.mu.Unlock()
		if edit != "" && r.Error == nil && r.Result != nil {
			r.Result = editResult(edit, version, r.Result, c.required)
		}
	case *jsonrpc.Request:
		if r.IsCall() && asksClient[r.Method] {
			if t := c.table.running(); t != nil {
				c.mu.Lock()
				c.asks[r.ID.Raw()] = t
				c.mu.Unlock()
				c.table.setStatus(t, "input_required")
				r.Params = withMeta(r.Params, relatedTask, map[string]any{"taskId": t.ID})
			}
		}
	}
	return c.Connection.Write(ctx, m)
}

// asksClient are the requests to the client a task waits on: while one is
// unanswered the task is input_required.
var asksClient = map[string]bool{"elicitation/create": true, "sampling/createMessage": true}

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
