package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/mcpclient"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/mcpconfig"
)

// protocolVersions are offered newest first when a server rejects the SDK's
// default; the SDK itself starts at its newest version.
var protocolVersions = []string{"", "2025-06-18", "2025-03-26"}

// session is one live connection to a server, able to reconnect.
type session struct {
	r    *runner
	e    mcpconfig.Entry
	opts *mcp.ClientOptions

	mu     sync.Mutex
	cs     *mcp.ClientSession
	http   *mcpclient.HTTPRecorder
	stderr *mcpclient.StderrTail
	// watch lets close wait for the notifications/cancelled of abandoned calls.
	watch *mcpclient.CancelWatch
	// reconnecting is closed when an in-flight reconnect ends.
	reconnecting chan struct{}
	// onReconnect runs after a successful reconnect (the bridge re-lists
	// in the background); it must not block.
	onReconnect func()
}

// authErr is the auth_required error of a server that answered 401/403.
func (s *session) authErr() error {
	if s.http == nil {
		return nil
	}
	if st := s.http.Status(); st == 401 || st == 403 {
		name := s.e.Name
		if scope := s.http.Scope(); scope != "" {
			return &mcpclient.ConnErr{Server: name, Kind: "auth_required", Err: fmt.Errorf("MCP server %q: HTTP %d: the token needs the scope %q (insufficient_scope): %s (run 'agent-mcp auth %s' to log in with it)", name, st, scope, s.http.Hint(), name)}
		}
		return &mcpclient.ConnErr{Server: name, Kind: "auth_required", Err: fmt.Errorf("MCP server %q: HTTP %d: %s (run 'agent-mcp auth %s')", name, st, s.http.Hint(), name)}
	}
	return nil
}

// open connects to a server within its connect timeout.
func (r *runner) open(ctx context.Context, e mcpconfig.Entry, opts *mcp.ClientOptions) (*session, error) {
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	s := &session{r: r, e: e, opts: opts, watch: mcpclient.NewCancelWatch()}
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *session) client() *mcp.Client {
	o := *s.opts
	if o.Capabilities == nil {
		o.Capabilities = &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}}
	}
	if s.r.sampler != nil {
		o.CreateMessageHandler = s.r.sampler.handler(s.e.Name)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "agent-mcp", Version: mcpclient.ImplVersion()}, &o)
	c.AddRoots(&mcp.Root{URI: "file://" + s.r.cwd, Name: filepath.Base(s.r.cwd)})
	if s.r.sampler == nil {
		c.AddReceivingMiddleware(declineSampling(s.e.Name, func(m string) { app.Warnf(s.r.c, "%s", m) }))
	}
	return c
}

func (s *session) connect(ctx context.Context) error {
	timeout := s.r.connectTimeoutFor(s.e)
	cctx, cancel := mcpclient.BoundCtx(ctx, timeout)
	defer cancel()
	var last error
	for _, v := range protocolVersions {
		cs, err := s.connectOnce(cctx, v, s.e.Server.Type)
		if err != nil && s.e.Server.Type == "http" && s.http != nil {
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

func (s *session) connectOnce(ctx context.Context, version, typ string) (*mcp.ClientSession, error) {
	t, err := s.transport(typ)
	if err != nil {
		return nil, err
	}
	var connected atomic.Bool
	k, _ := t.(*mcpclient.StdioTransport)
	if sse, ok := t.(*mcp.SSEClientTransport); ok {
		t = &mcpclient.Detached{Transport: sse, Connected: &connected}
	}
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
	}
	return cs, err
}

// classify turns a connect error into a mcpclient.ConnErr with a clear message.
func (s *session) classify(ctx, cctx context.Context, err error, timeout time.Duration) error {
	name := s.e.Name
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case cctx.Err() == context.DeadlineExceeded || errors.Is(err, context.DeadlineExceeded):
		return &mcpclient.ConnErr{Server: name, Kind: "timeout", Err: fmt.Errorf("connection to MCP server %q timed out after %s", name, timeout)}
	}
	if ae := s.authErr(); ae != nil {
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
	return &mcpclient.ConnErr{Server: name, Kind: "connection", Err: fmt.Errorf("MCP server %q: %s", name, msg)}
}

// transport builds the SDK transport of a server.
func (s *session) transport(typ string) (mcp.Transport, error) {
	if f := s.r.env.transport; f != nil {
		if t := f(s.e.Name); t != nil {
			return t, nil
		}
	}
	sv := s.e.Server
	switch typ {
	case "", "stdio":
		cmd := exec.Command(sv.Command, sv.Args...)
		cmd.Env = s.r.env.Environment()
		for _, k := range sv.EnvVars {
			if v := s.r.getenv(k); v != "" {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
		}
		for _, k := range sortedKeys(sv.Env) {
			v, ok := s.r.resolve(sv.Env[k])
			if ok {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
		}
		if tok := s.r.accessToken(s.e); tok != "" {
			cmd.Env = append(cmd.Env, "OAUTH_ACCESS_TOKEN="+tok)
		}
		cmd.Dir = s.r.cwd
		if sv.Cwd != "" {
			cmd.Dir = sv.Cwd
			if !filepath.IsAbs(cmd.Dir) {
				cmd.Dir = filepath.Join(s.r.cwd, cmd.Dir)
			}
		}
		w, err := s.r.serverStderr(s.e.Name)
		if err != nil {
			return nil, err
		}
		s.stderr = &mcpclient.StderrTail{W: w, Prefix: "[mcp:" + s.e.Name + "] "}
		cmd.Stderr = s.stderr
		s.watch.Observe()
		return &mcpclient.StdioTransport{Cmd: cmd, Terminate: s.r.terminate, Junk: s.stderr.Junk, Cancelled: s.watch.SentFunc()}, nil
	case "http", "sse":
		headers := map[string]string{}
		for k, v := range sv.Headers {
			if rv, ok := s.r.resolve(v); ok {
				headers[k] = rv
			}
		}
		for k, v := range sv.EnvHeaders {
			if strings.Contains(v, "${") {
				v = mcpconfig.Expand(v, s.r.getenv)
			} else {
				v = s.r.getenv(v)
			}
			if v != "" && !strings.Contains(v, "${") {
				headers[k] = v
			}
		}
		s.watch.Observe()
		s.http = &mcpclient.HTTPRecorder{Base: http.DefaultTransport, Headers: headers, Cancelled: s.watch.SentFunc()}
		client := &http.Client{Transport: s.http}
		if typ == "sse" {
			return &mcp.SSEClientTransport{Endpoint: sv.URL, HTTPClient: client}, nil
		}
		return &mcp.StreamableClientTransport{Endpoint: sv.URL, HTTPClient: client, MaxRetries: 2, OAuthHandler: s.r.oauthHandler(s.e)}, nil
	}
	return nil, exit.Errorf(exit.Usage, "server %q: unknown server type %q", s.e.Name, typ)
}

// resolve applies the connect-time rules of env and header values: "!cmd"
// runs a shell command (10 s), a value naming a set variable copies it, any
// other value is literal. ok is false when a command fails (drop the entry).
func (r *runner) resolve(v string) (string, bool) {
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
	if e := r.getenv(v); e != "" && !strings.ContainsAny(v, " =/:") {
		return e, true
	}
	return v, true
}

// serverStderr is where a stdio server's stderr goes.
func (r *runner) serverStderr(name string) (io.Writer, error) {
	if r.serverLog == "" {
		return r.env.Stderr, nil
	}
	if err := os.MkdirAll(r.serverLog, 0o755); err != nil {
		return nil, exit.Errorf(exit.Usage, "--server-log: %v", err)
	}
	f, err := os.OpenFile(filepath.Join(r.serverLog, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "--server-log: %v", err)
	}
	return f, nil
}

// backoff is the wait before each reconnect attempt.
var backoff = []time.Duration{0, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}

// reconnect replaces a broken connection; concurrent callers share one attempt.
func (s *session) reconnect(ctx context.Context) error {
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
			if s.onReconnect != nil {
				s.onReconnect()
			}
			return nil
		}
		var ce *mcpclient.ConnErr
		if errors.As(err, &ce) && ce.Kind == "auth_required" {
			return err
		}
	}
	return err
}

// do runs fn on the live connection and, on a connection-class failure,
// reconnects (with backoff) and runs it once more. Only for requests that
// may safely run twice (lists, reads); tools/call goes through doAgain.
func (s *session) do(ctx context.Context, fn func(*mcp.ClientSession) error) error {
	return s.doAgain(ctx, fn, nil)
}

// doAgain is do that, after the reconnect, asks again (when not nil) whether
// fn may run a second time; again gets the first failure and its error ends
// the attempt.
func (s *session) doAgain(ctx context.Context, fn func(*mcp.ClientSession) error, again func(first error) error) error {
	s.mu.Lock()
	cs := s.cs
	s.mu.Unlock()
	err := fn(cs)
	if !mcpclient.Retriable(err) || ctx.Err() != nil {
		return err
	}
	app.Warnf(s.r.c, "%s: %v; reconnecting", s.e.Name, err)
	tail := s.stderrLast() // the crash's last words, before a new process replaces them
	if rerr := s.reconnect(ctx); rerr != nil {
		return rerr
	}
	if again != nil {
		if aerr := again(err); aerr != nil {
			if tail != "" {
				aerr = &mcpclient.ConnErr{Server: s.e.Name, Kind: "connection", Err: fmt.Errorf("%w (server stderr: %s)", aerr, tail)}
			}
			return aerr
		}
	}
	s.mu.Lock()
	cs = s.cs
	s.mu.Unlock()
	return fn(cs)
}

// stderrLast is the last line a stdio server wrote on stderr.
func (s *session) stderrLast() string {
	s.mu.Lock()
	st := s.stderr
	s.mu.Unlock()
	if st == nil {
		return ""
	}
	return st.Last()
}

// current is the live connection (nil on a nil session or after close).
func (s *session) current() *mcp.ClientSession {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cs
}

func (s *session) close() {
	s.mu.Lock()
	cs := s.cs
	s.cs = nil
	s.mu.Unlock()
	if cs != nil {
		s.watch.Wait(cs) // the notifications/cancelled of abandoned calls go first
		_ = cs.Close()
	}
}

// listCtx bounds a list request by the connect timeout.
func (s *session) listCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return mcpclient.BoundCtx(ctx, s.r.connectTimeoutFor(s.e))
}

// oneServer is the sequence of every one-server command: the runner, the
// server named name, a connection, fn, and the close.
func oneServer(c *cli.Context, env *cmdEnv, name string, fn func(r *runner, s *session) error) error {
	r, e, err := namedServer(c, env, name)
	if err != nil {
		return err
	}
	return r.withSession(c.Context, e, nil, func(s *session) error { return fn(r, s) })
}

// oneArg refuses a command line that does not hold exactly the one
// argument the command's ArgsUsage names ("read: want one URI").
func oneArg(c *cli.Context) error {
	if c.NArg() != 1 {
		return exit.Errorf(exit.Usage, "%s: want one %s", c.Command.Name, c.Command.ArgsUsage)
	}
	return nil
}

// namedServer is the runner of a command and the configured server named name.
func namedServer(c *cli.Context, env *cmdEnv, name string) (*runner, mcpconfig.Entry, error) {
	r, err := newRunner(c, env)
	if err != nil {
		return nil, mcpconfig.Entry{}, err
	}
	e, err := r.server(name)
	return r, e, err
}

// withSession runs fn on a new connection to e and closes it after.
func (r *runner) withSession(ctx context.Context, e mcpconfig.Entry, opts *mcp.ClientOptions, fn func(*session) error) error {
	s, err := r.open(ctx, e, opts)
	if err != nil {
		return err
	}
	defer s.close()
	return fn(s)
}

// request runs one request that may safely run twice (a list, a read) within
// the connect timeout, reconnecting once on a lost connection; a deadline
// is a timeout error naming what.
func (s *session) request(ctx context.Context, what string, fn func(ctx context.Context, cs *mcp.ClientSession) error) error {
	return s.do(ctx, func(cs *mcp.ClientSession) error {
		lctx, cancel := s.listCtx(ctx)
		defer cancel()
		return mcpclient.TimeoutErr(lctx, fn(lctx, cs), what, s.r.connectTimeoutFor(s.e))
	})
}

// listEach writes each item of a paged list as a JSON line; nothing when the
// server lacks the capability (has false).
func listEach[T any](ctx context.Context, s *session, what string, has func(*mcp.ServerCapabilities) bool,
	items func(ctx context.Context, cs *mcp.ClientSession) iter.Seq2[T, error]) error {
	return s.request(ctx, what, func(lctx context.Context, cs *mcp.ClientSession) error {
		if ir := cs.InitializeResult(); ir != nil && ir.Capabilities != nil && !has(ir.Capabilities) {
			return nil
		}
		for it, err := range items(lctx, cs) {
			if err != nil {
				return err
			}
			if err := writeJSON(s.r, it); err != nil {
				return err
			}
		}
		return nil
	})
}
