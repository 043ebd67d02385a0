// Package mcpclient is agent-mcp's side of its connections to MCP servers:
// sessions that connect (stdio, Streamable HTTP, legacy SSE, negotiating
// the protocol version) and reconnect, a stdio transport that skips
// non-JSON stdout lines and stops a server politely, the headers and last
// failure of HTTP, a server's stderr tail, the wait for the
// notifications/cancelled of abandoned calls, the refusal of sampling, and
// the classified connection errors (exit codes); and what the SDK lacks of
// MCP 2025-11-25: tasks (requests of its own on the SDK's connection), URL
// elicitation, and the check of structuredContent against outputSchema.
package mcpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/mcptool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// ConnErr classifies a failure for exit codes and --json.
type ConnErr struct {
	Server string
	Kind   string // connection | auth_required | timeout | tool_error | protocol
	Err    error
}

func (e *ConnErr) Error() string { return e.Err.Error() }
func (e *ConnErr) Unwrap() error { return e.Err }
func (e *ConnErr) ExitCode() int {
	switch e.Kind {
	case "timeout":
		return exit.Timeout
	case "auth_required":
		return exit.Auth
	}
	return exit.Failure
}

// Detached runs a legacy SSE transport's long-lived GET stream on a context
// that outlives the connect timeout once the connection is up (the SDK ties
// the stream to the context given to Connect).
type Detached struct {
	mcp.Transport
	Connected *atomic.Bool
}

func (d *Detached) Connect(ctx context.Context) (mcp.Connection, error) {
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		<-ctx.Done()
		if !d.Connected.Load() {
			cancel()
		}
	}()
	c, err := d.Transport.Connect(bg)
	if err != nil {
		cancel()
	}
	return c, err
}

// StderrTail copies a server's stderr line by line with a prefix, keeps the
// Last line for error messages, and stops copying after maxLines so a chatty
// server cannot flood the terminal.
type StderrTail struct {
	W      io.Writer
	Prefix string
	mu     sync.Mutex
	buf    []byte
	tail   string
	stdout string // the last line skipped on stdout
	lines  int
}

const maxStderrLines = 1000

func (t *StderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimRight(string(t.buf[:i]), "\r")
		t.buf = t.buf[i+1:]
		if strings.TrimSpace(line) != "" {
			t.tail = line
		}
		t.lines++
		switch {
		case t.lines < maxStderrLines:
			fmt.Fprintf(t.W, "%s%s\n", t.Prefix, line)
		case t.lines == maxStderrLines:
			fmt.Fprintf(t.W, "%s(more output dropped)\n", t.Prefix)
		}
	}
	return len(p), nil
}

// Junk reports a line of the server's stdout that is not JSON-RPC: it is
// skipped, shown like a stderr line, and kept for error messages.
func (t *StderrTail) Junk(line string) {
	line = mcptool.Clip(line, 200)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stdout = line
	t.lines++
	if t.lines < maxStderrLines {
		fmt.Fprintf(t.W, "%snot JSON-RPC on stdout, skipped: %s\n", t.Prefix, line)
	}
}

// LastJunk is the last line skipped on stdout.
func (t *StderrTail) LastJunk() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stdout
}

func (t *StderrTail) Last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tail == "" && len(t.buf) > 0 {
		return strings.TrimSpace(string(t.buf))
	}
	return t.tail
}

// HTTPRecorder adds the configured headers and remembers the last failed
// response, so a 401 can be told from other failures.
type HTTPRecorder struct {
	Base      http.RoundTripper
	Headers   map[string]string
	Cancelled func() // called for each notifications/cancelled POSTed
	mu        sync.Mutex
	code      int
	auth      string
	stepUp    string // the scope of a 403 insufficient_scope
	body      string
}

// Scope is the scope a 403 insufficient_scope asked for, else "".
func (h *HTTPRecorder) Scope() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stepUp
}

func (h *HTTPRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range h.Headers {
		if req.Header.Get(k) == "" || !strings.EqualFold(k, "Authorization") {
			req.Header.Set(k, v)
		}
	}
	resp, err := h.Base.RoundTrip(req)
	if h.Cancelled != nil && req.Method == http.MethodPost && req.GetBody != nil {
		if body, berr := req.GetBody(); berr == nil {
			b, _ := io.ReadAll(io.LimitReader(body, 4096))
			body.Close()
			if bytes.Contains(b, cancelledMethod) {
				h.Cancelled()
			}
		}
	}
	if err != nil || resp.StatusCode < 300 {
		return resp, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if req.Method == http.MethodGet && resp.StatusCode == http.StatusMethodNotAllowed {
		return resp, nil // no standalone SSE stream: fine
	}
	h.code = resp.StatusCode
	h.auth = resp.Header.Get("WWW-Authenticate")
	h.stepUp = InsufficientScope(resp)
	if mas := resp.Header.Get("Mcp-Auth-Server"); mas != "" {
		h.auth = strings.TrimSpace(h.auth + "; Mcp-Auth-Server: " + mas)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
	resp.Body.Close()
	h.body = strings.TrimSpace(string(b))
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

func (h *HTTPRecorder) Status() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.code
}

// Hint is the body and WWW-Authenticate of the failed response.
func (h *HTTPRecorder) Hint() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.body
	if s == "" {
		s = http.StatusText(h.code)
	}
	if h.auth != "" {
		s += " [WWW-Authenticate: " + h.auth + "]"
	}
	return s
}

// Retriable reports a connection-class failure worth one reconnect.
func Retriable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, mcp.ErrSessionMissing) || errors.Is(err, io.EOF) {
		return true
	}
	// A pipe closed under a call (in-memory and stdio transports) surfaces as
	// the write's own error when it loses the race with the reader's EOF.
	if errors.Is(err, io.ErrClosedPipe) || errors.Is(err, os.ErrClosed) {
		return true
	}
	m := strings.ToLower(err.Error())
	for _, s := range []string{"connection refused", "connection reset", "broken pipe", "network is unreachable", "no route to host", "connection closed", "transport closed", "session not found"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// BoundCtx is ctx with timeout d, or without one when d is 0.
func BoundCtx(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}

// TimeoutErr maps a deadline to exit 124 with what ran out.
func TimeoutErr(ctx context.Context, err error, what string, d time.Duration) error {
	if err != nil && (errors.Is(err, context.DeadlineExceeded) || ctx.Err() == context.DeadlineExceeded) {
		return &ConnErr{Kind: "timeout", Err: fmt.Errorf("%s timed out after %s", what, d)}
	}
	return err
}

// ImplVersion is the version we announce in MCP's implementation info.
func ImplVersion() string {
	if app.Version != "" {
		return app.Version
	}
	return "dev"
}

// InsufficientScope is the scope a 403 insufficient_scope challenge names
// (RFC 6750 section 3.1; MCP's step-up authorization), else "".
func InsufficientScope(resp *http.Response) string {
	if resp == nil || resp.StatusCode != http.StatusForbidden {
		return ""
	}
	cs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return ""
	}
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params["error"] == "insufficient_scope" {
			return strings.Join(strings.Fields(c.Params["scope"]), " ")
		}
	}
	return ""
}
