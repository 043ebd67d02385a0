package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/mcpconfig"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Dialer is what a connection needs from its command: the project
// directory, the environment, where a server's stderr goes, time limits,
// credentials and the answer to sampling requests.
type Dialer struct {
	Cwd     string
	Environ func() []string
	Getenv  func(string) string
	// Transport, when set, gives the transport of a server by name; nil
	// from it means the configured one (tests use in-memory servers).
	Transport func(server string) mcp.Transport
	// Warn writes a warning line.
	Warn func(string)
	// ServerStderr is where a stdio server's stderr goes.
	ServerStderr func(name string) (io.Writer, error)
	// Terminate is how long a stdio server gets to exit after its stdin
	// is closed, and again after SIGTERM, before it is killed.
	Terminate      time.Duration
	ConnectTimeout func(mcpconfig.Entry) time.Duration
	AccessToken    func(mcpconfig.Entry) string
	OAuthHandler   func(mcpconfig.Entry) auth.OAuthHandler
	// Sampler answers a server's sampling requests (nil: declined).
	// It gets tools and toolChoice too (sampling.tools is advertised).
	Sampler func(server string) func(context.Context, *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error)
	// LogLevel, when set, is sent as logging/setLevel to each server that
	// advertises logging.
	LogLevel string
	// Log gets each notifications/message line (LogLine); nil: dropped.
	Log func(string)
}

// Open connects to a server within its connect timeout.
func (d *Dialer) Open(ctx context.Context, e mcpconfig.Entry, opts *mcp.ClientOptions) (*Session, error) {
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	s := &Session{d: d, Entry: e, opts: opts, Watch: NewCancelWatch()}
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// ConnectWith connects to e with the OAuth handler h, which runs the
// login when the server asks for it, and closes the connection.
func (d *Dialer) ConnectWith(ctx context.Context, e mcpconfig.Entry, h auth.OAuthHandler, wait time.Duration) error {
	s := &Session{d: d, Entry: e, opts: &mcp.ClientOptions{}}
	t, err := s.transport(e.Server.Type)
	if err != nil {
		return err
	}
	st, ok := t.(*mcp.StreamableClientTransport)
	if !ok {
		return exit.Errorf(exit.Usage, "server %q: OAuth needs a Streamable HTTP server (type \"http\")", e.Name)
	}
	st.OAuthHandler = h
	cs, err := s.client().Connect(ctx, t, nil)
	if err != nil {
		return s.classify(context.Background(), ctx, err, wait)
	}
	_ = cs.Close()
	return nil
}

// protocolVersions are offered newest first when a server rejects the SDK's
// default; the SDK itself starts at its newest version.
var protocolVersions = []string{"", "2025-06-18", "2025-03-26"}

// Session is one live connection to a server, able to reconnect.
type Session struct {
	d     *Dialer
	Entry mcpconfig.Entry
	opts  *mcp.ClientOptions

	mu     sync.Mutex
	cs     *mcp.ClientSession
	http   *HTTPRecorder
	stderr *StderrTail
	// watch lets close wait for the notifications/cancelled of abandoned calls.
	Watch *CancelWatch
	// reconnecting is closed when an in-flight reconnect ends.
	reconnecting chan struct{}
	// OnReconnect runs after a successful reconnect (the bridge re-lists
	// in the background); it must not block.
	OnReconnect func()
	// raw carries the requests the SDK does not know.
	raw *RawConn
	// taskSupport is each listed tool's execution.taskSupport.
	taskSupport map[string]string
	// outputSchema is each listed tool's outputSchema (nil: none).
	outputSchema map[string]json.RawMessage
}

// AuthErr is the auth_required error of a server that answered 401/403.
func (s *Session) AuthErr() error {
	if s.http == nil {
		return nil
	}
	if st := s.http.Status(); st == 401 || st == 403 {
		name := s.Entry.Name
		if scope := s.http.Scope(); scope != "" {
			return &ConnErr{Server: name, Kind: "auth_required", Err: fmt.Errorf("MCP server %q: HTTP %d: the token needs the scope %q (insufficient_scope): %s (run 'agent-mcp auth %s' to log in with it)", name, st, scope, s.http.Hint(), name)}
		}
		return &ConnErr{Server: name, Kind: "auth_required", Err: fmt.Errorf("MCP server %q: HTTP %d: %s (run 'agent-mcp auth %s')", name, st, s.http.Hint(), name)}
	}
	return nil
}

func (s *Session) client() *mcp.Client {
	o := *s.opts
	if o.Capabilities == nil {
		o.Capabilities = &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}}
	} else {
		c := *o.Capabilities
		o.Capabilities = &c
	}
	s.elicitation(&o)
	if s.d.Log != nil && o.LoggingMessageHandler == nil {
		name := s.Entry.Name
		o.LoggingMessageHandler = func(_ context.Context, r *mcp.LoggingMessageRequest) { s.d.Log(LogLine(name, r.Params)) }
	}
	if s.d.Sampler != nil {
		o.CreateMessageWithToolsHandler = s.d.Sampler(s.Entry.Name)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "agent-mcp", Version: ImplVersion()}, &o)
	c.AddRoots(&mcp.Root{URI: "file://" + s.d.Cwd, Name: filepath.Base(s.d.Cwd)})
	if s.d.Sampler == nil {
		c.AddReceivingMiddleware(declineSampling(s.Entry.Name, func(m string) { s.d.Warn(m) }))
	}
	return c
}

func (s *Session) connect(ctx context.Context) error {
	timeout := s.d.ConnectTimeout(s.Entry)
	cctx, cancel := BoundCtx(ctx, timeout)
	defer cancel()
	var last error
	for _, v := range protocolVersions {
		cs, err := s.connectOnce(cctx, v, s.Entry.Server.Type)
		if err != nil && s.Entry.Server.Type == "http" && s.http != nil {
			// The spec's back-compat rule: a Streamable HTTP initialize that
			// fails with 400/404/405 may be an old HTTP+SSE server.
			switch s.http.Status() {
			case 400, 404, 405:
				if cs2, err2 := s.connectOnce(cctx, v, "sse"); err2 == nil {
					cs, err = cs2, nil
				}
			}
		}
		if err == nil {
			s.setLogLevel(cctx, cs)
			s.mu.Lock()
			s.cs = cs
			s.mu.Unlock()
			return nil
		}
		last = err
		if !strings.Contains(strings.ToLower(err.Error()), "protocol version") {
			break
		}
	}
	return s.classify(ctx, cctx, last, timeout)
}

func (s *Session) connectOnce(ctx context.Context, version, typ string) (*mcp.ClientSession, error) {
	t, err := s.transport(typ)
	if err != nil {
		return nil, err
	}
	var connected atomic.Bool
	k, _ := t.(*StdioTransport)
	if sse, ok := t.(*mcp.SSEClientTransport); ok {
		t = &Detached{Transport: sse, Connected: &connected}
	}
	rt := &RawTransport{Transport: t, OnTools: s.sawTools, LogLevel: s.d.LogLevel}
	t = rt
	// A server that does not answer in time is killed at once: the SDK's
	// polite close (stdin, then 5 s, then SIGTERM) would outlast the timeout.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-ctx.Done():
			if !connected.Load() && k != nil {
				k.Kill()
			}
		case <-stop:
		}
	}()
	cs, err := s.client().Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err == nil {
		connected.Store(true)
		s.mu.Lock()
		s.raw = rt.Conn()
		s.mu.Unlock()
	}
	return cs, err
}

// classify turns a connect error into a ConnErr with a clear message.
func (s *Session) classify(ctx, cctx context.Context, err error, timeout time.Duration) error {
	name := s.Entry.Name
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case cctx.Err() == context.DeadlineExceeded || errors.Is(err, context.DeadlineExceeded):
		return &ConnErr{Server: name, Kind: "timeout", Err: fmt.Errorf("connection to MCP server %q timed out after %s", name, timeout)}
	}
	if ae := s.AuthErr(); ae != nil {
		return ae
	}
	msg := err.Error()
	if s.stderr != nil {
		if tail := s.stderr.Last(); tail != "" {
			msg += " (server stderr: " + tail + ")"
		}
		if junk := s.stderr.LastJunk(); junk != "" {
			msg += " (server stdout, not JSON-RPC: " + junk + ")"
		}
	}
	return &ConnErr{Server: name, Kind: "connection", Err: fmt.Errorf("MCP server %q: %s", name, msg)}
}

// transport builds the SDK transport of a server.
func (s *Session) transport(typ string) (mcp.Transport, error) {
	if f := s.d.Transport; f != nil {
		if t := f(s.Entry.Name); t != nil {
			return t, nil
		}
	}
	sv := s.Entry.Server
	switch typ {
	case "", "stdio":
		cmd := exec.Command(sv.Command, sv.Args...)
		cmd.Env = s.d.Environ()
		for _, k := range sv.EnvVars {
			if v := s.d.Getenv(k); v != "" {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(sv.Env)) {
			v, ok := s.d.resolve(sv.Env[k])
			if ok {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
		}
		if tok := s.d.AccessToken(s.Entry); tok != "" {
			cmd.Env = append(cmd.Env, "OAUTH_ACCESS_TOKEN="+tok)
		}
		cmd.Dir = s.d.Cwd
		if sv.Cwd != "" {
			cmd.Dir = sv.Cwd
			if !filepath.IsAbs(cmd.Dir) {
				cmd.Dir = filepath.Join(s.d.Cwd, cmd.Dir)
			}
		}
		w, err := s.d.ServerStderr(s.Entry.Name)
		if err != nil {
			return nil, err
		}
		s.stderr = &StderrTail{W: w, Prefix: "[mcp:" + s.Entry.Name + "] "}
		cmd.Stderr = s.stderr
		s.Watch.Observe()
		return &StdioTransport{Cmd: cmd, Terminate: s.d.Terminate, Junk: s.stderr.Junk, Cancelled: s.Watch.SentFunc()}, nil
	case "http", "sse":
		headers := map[string]string{}
		for k, v := range sv.Headers {
			if rv, ok := s.d.resolve(v); ok {
				headers[k] = rv
			}
		}
		for k, v := range sv.EnvHeaders {
			if strings.Contains(v, "${") {
				v = mcpconfig.Expand(v, s.d.Getenv)
			} else {
				v = s.d.Getenv(v)
			}
			if v != "" && !strings.Contains(v, "${") {
				headers[k] = v
			}
		}
		s.Watch.Observe()
		s.http = &HTTPRecorder{Base: http.DefaultTransport, Headers: headers, Cancelled: s.Watch.SentFunc()}
		client := &http.Client{Transport: s.http}
		if typ == "sse" {
			return &mcp.SSEClientTransport{Endpoint: sv.URL, HTTPClient: client}, nil
		}
		return &mcp.StreamableClientTransport{Endpoint: sv.URL, HTTPClient: client, MaxRetries: 2, OAuthHandler: s.d.OAuthHandler(s.Entry)}, nil
	}
	return nil, exit.Errorf(exit.Usage, "server %q: unknown server type %q", s.Entry.Name, typ)
}

// resolve applies the connect-time rules of env and header values: "!cmd"
// runs a shell command (10 s), a value naming a set variable copies it, any
// other value is literal. ok is false when a command fails (drop the entry).
func (d *Dialer) resolve(v string) (string, bool) {
	if cmd, ok := strings.CutPrefix(v, "!"); ok {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "sh", "-c", cmd).Output()
		s := strings.TrimSpace(string(out))
		if err != nil || s == "" {
			return "", false
		}
		return s, true
	}
	if e := d.Getenv(v); e != "" && !strings.ContainsAny(v, " =/:") {
		return e, true
	}
	return v, true
}

// backoff is the wait before each reconnect attempt.
var backoff = []time.Duration{0, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}

// reconnect replaces a broken connection; concurrent callers share one attempt.
func (s *Session) reconnect(ctx context.Context) error {
	s.mu.Lock()
	if ch := s.reconnecting; ch != nil {
		s.mu.Unlock()
		select {
		case <-ch:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	ch := make(chan struct{})
	s.reconnecting = ch
	old := s.cs
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.reconnecting = nil
		s.mu.Unlock()
		close(ch)
	}()
	if old != nil {
		go old.Close() // a DELETE may take long; do not wait for it
	}
	var err error
	for _, d := range backoff {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return ctx.Err()
		}
		if err = s.connect(ctx); err == nil {
			if s.OnReconnect != nil {
				s.OnReconnect()
			}
			return nil
		}
		var ce *ConnErr
		if errors.As(err, &ce) && ce.Kind == "auth_required" {
			return err
		}
	}
	return err
}

// Do runs fn on the live connection and, on a connection-class failure,
// reconnects (with backoff) and runs it once more. Only for requests that
// may safely run twice (lists, reads); tools/call goes through doAgain.
func (s *Session) Do(ctx context.Context, fn func(*mcp.ClientSession) error) error {
	return s.DoAgain(ctx, fn, nil)
}

// DoAgain is do that, after the reconnect, asks again (when not nil) whether
// fn may run a second time; again gets the first failure and its error ends
// the attempt.
func (s *Session) DoAgain(ctx context.Context, fn func(*mcp.ClientSession) error, again func(first error) error) error {
	s.mu.Lock()
	cs := s.cs
	s.mu.Unlock()
	err := fn(cs)
	if !Retriable(err) || ctx.Err() != nil {
		return err
	}
	s.d.Warn(fmt.Sprintf("%s: %v; reconnecting", s.Entry.Name, err))
	tail := s.StderrLast() // the crash's last words, before a new process replaces them
	if rerr := s.reconnect(ctx); rerr != nil {
		return rerr
	}
	if again != nil {
		if aerr := again(err); aerr != nil {
			if tail != "" {
				aerr = &ConnErr{Server: s.Entry.Name, Kind: "connection", Err: fmt.Errorf("%w (server stderr: %s)", aerr, tail)}
			}
			return aerr
		}
	}
	s.mu.Lock()
	cs = s.cs
	s.mu.Unlock()
	return fn(cs)
}

// StderrLast is the last line a stdio server wrote on stderr.
func (s *Session) StderrLast() string {
	s.mu.Lock()
	st := s.stderr
	s.mu.Unlock()
	if st == nil {
		return ""
	}
	return st.Last()
}

// Current is the live connection (nil on a nil session or after close).
func (s *Session) Current() *mcp.ClientSession {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cs
}

func (s *Session) Close() {
	s.mu.Lock()
	cs := s.cs
	s.cs = nil
	s.mu.Unlock()
	if cs != nil {
		s.Watch.Wait(cs) // the notifications/cancelled of abandoned calls go first
		_ = cs.Close()
	}
}

// ListCtx bounds a list request by the connect timeout.
func (s *Session) ListCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return BoundCtx(ctx, s.d.ConnectTimeout(s.Entry))
}

// Request runs one request that may safely run twice (a list, a read) within
// the connect timeout, reconnecting once on a lost connection; a deadline
// is a timeout error naming what.
func (s *Session) Request(ctx context.Context, what string, fn func(ctx context.Context, cs *mcp.ClientSession) error) error {
	return s.Do(ctx, func(cs *mcp.ClientSession) error {
		lctx, cancel := s.ListCtx(ctx)
		defer cancel()
		return TimeoutErr(lctx, fn(lctx, cs), what, s.d.ConnectTimeout(s.Entry))
	})
}
