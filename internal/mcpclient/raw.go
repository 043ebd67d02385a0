package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RawTransport lets a session send requests the SDK does not know
// (tasks/get, task-augmented tools/call, logging/setLevel's peers) on the
// SDK's own connection: their responses are taken off the stream before the
// SDK sees them. It also watches tools/list answers for what the SDK drops
// (a tool's execution.taskSupport), and passes the initialize result on to
// the SDK's Streamable HTTP connection, which the wrapping would hide it
// from (see sessionUpdated).
type RawTransport struct {
	mcp.Transport
	// OnTools gets the tools of each tools/list page as sent.
	OnTools func([]RawTool)
	// LogLevel, when set, goes in the _meta of each request of protocol
	// 2026-07-28 and later (io.modelcontextprotocol/logLevel), which
	// replaces logging/setLevel.
	LogLevel string
	conn     *RawConn
}

// RawTool is what the SDK drops of a listed tool.
type RawTool struct {
	Name         string          `json:"name"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Execution    *struct {
		TaskSupport string `json:"taskSupport,omitempty"`
	} `json:"execution,omitempty"`
}

// Conn is the connection of the last Connect.
func (t *RawTransport) Conn() *RawConn { return t.conn }

func (t *RawTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn = &RawConn{Connection: c, onTools: t.OnTools, logLevel: t.LogLevel, waiting: map[string]chan *jsonrpc.Response{}, lists: map[any]bool{}}
	return t.conn, nil
}

// RawConn is a connection that can carry requests of its own.
type RawConn struct {
	mcp.Connection
	onTools  func([]RawTool)
	logLevel string
	mu       sync.Mutex
	next     int
	waiting  map[string]chan *jsonrpc.Response
	lists    map[any]bool // ids of tools/list requests in flight
	initID   any          // id of the initialize request in flight
}

func (c *RawConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		m, err := c.Connection.Read(ctx)
		if err != nil {
			c.fail()
			return m, err
		}
		r, ok := m.(*jsonrpc.Response)
		if !ok {
			return m, err
		}
		c.mu.Lock()
		id := r.ID.Raw()
		s, _ := id.(string)
		ch := c.waiting[s]
		delete(c.waiting, s)
		list := c.lists[id]
		delete(c.lists, id)
		isInit := c.initID != nil && c.initID == id
		if isInit {
			c.initID = nil
		}
		c.mu.Unlock()
		if isInit && r.Error == nil {
			sessionUpdated(c.Connection, r.Result)
		}
		if ch != nil {
			ch <- r
			continue
		}
		if list && c.onTools != nil && r.Error == nil {
			var page struct {
				Tools []RawTool `json:"tools"`
			}
			if json.Unmarshal(r.Result, &page) == nil {
				c.onTools(page.Tools)
			}
		}
		return m, nil
	}
}

func (c *RawConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() && (r.Method == "tools/list" || r.Method == "initialize") {
		c.mu.Lock()
		if r.Method == "initialize" {
			c.initID = r.ID.Raw()
		} else {
			c.lists[r.ID.Raw()] = true
		}
		c.mu.Unlock()
	}
	if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() && c.logLevel != "" {
		r.Params = withLogLevel(r.Params, c.logLevel)
	}
	return c.Connection.Write(ctx, m)
}

// metaLogLevel and metaProtocol are the _meta keys of protocol 2026-07-28.
const (
	metaLogLevel = "io.modelcontextprotocol/logLevel"
	metaProtocol = "io.modelcontextprotocol/protocolVersion"
)

// withLogLevel adds the log level to the _meta of a request's params that
// carry the protocol version there (2026-07-28 and later); other params are
// returned as they are.
func withLogLevel(params json.RawMessage, level string) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p["_meta"] == nil {
		return params
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(p["_meta"], &meta) != nil || meta[metaProtocol] == nil || meta[metaLogLevel] != nil {
		return params
	}
	meta[metaLogLevel], _ = json.Marshal(level)
	p["_meta"], _ = json.Marshal(meta)
	b, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return b
}

// fail ends the calls in flight: the connection is gone.
func (c *RawConn) fail() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, ch := range c.waiting {
		ch <- &jsonrpc.Response{Error: mcp.ErrConnectionClosed}
		delete(c.waiting, id)
	}
}

// Call sends a request and waits for its result; a JSON-RPC error comes
// back as a *jsonrpc.Error.
func (c *RawConn) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.next++
	id := fmt.Sprintf("agent-mcp-%d", c.next)
	ch := make(chan *jsonrpc.Response, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	jid, _ := jsonrpc.MakeID(id)
	if err := c.Connection.Write(ctx, &jsonrpc.Request{ID: jid, Method: method, Params: b}); err != nil {
		c.mu.Lock()
		delete(c.waiting, id)
		c.mu.Unlock()
		return nil, err
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return nil, r.Error
		}
		return r.Result, nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.waiting, id)
		c.mu.Unlock()
		if ctx.Err() == context.Canceled {
			// As the SDK does for its own calls: tell the server.
			n, _ := json.Marshal(map[string]any{"requestId": id, "reason": "cancelled by the client"})
			_ = c.Connection.Write(context.WithoutCancel(ctx), &jsonrpc.Request{Method: "notifications/cancelled", Params: n})
		}
		return nil, ctx.Err()
	}
}

// RPCCode is the JSON-RPC error code of err, or 0.
func RPCCode(err error) int64 {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je.Code
	}
	return 0
}
