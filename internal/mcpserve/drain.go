package mcpserve

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DrainTransport answers every request read before the input ended: the
// SDK ends a session at the end of its input and drops the answers not
// yet written (a client that writes its requests and closes stdin, as
// `printf … | agent-mcp serve` does, got nothing, not even initialize's).
// Its connection holds the end of input back until each call read has
// had its response written (or the connection is closed).
type DrainTransport struct{ mcp.Transport }

func (t DrainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: c, closed: make(chan struct{}), idle: make(chan struct{})}, nil
}

type drainConn struct {
	mcp.Connection
	mu      sync.Mutex
	pending int           // calls read and not answered
	idle    chan struct{} // closed when pending falls to 0 after the end of input
	eof     bool
	closed  chan struct{}
	once    sync.Once
}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Request); ok && err == nil && r.IsCall() {
		c.mu.Lock()
		c.pending++
		c.mu.Unlock()
	}
	if !errors.Is(err, io.EOF) {
		return m, err
	}
	c.mu.Lock()
	c.eof = true
	if c.pending == 0 {
		c.closeIdle()
	}
	c.mu.Unlock()
	select {
	case <-c.idle:
	case <-c.closed:
	case <-ctx.Done():
	}
	return m, err
}

func (c *drainConn) Write(ctx context.Context, m jsonrpc.Message) error {
	err := c.Connection.Write(ctx, m)
	if _, ok := m.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if c.pending > 0 {
			c.pending--
		}
		if c.eof && c.pending == 0 {
			c.closeIdle()
		}
		c.mu.Unlock()
	}
	return err
}

// closeIdle closes idle once; c.mu is held.
func (c *drainConn) closeIdle() {
	select {
	case <-c.idle:
	default:
		close(c.idle)
	}
}

func (c *drainConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Connection.Close()
}
