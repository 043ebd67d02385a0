package provider

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// A model call's connection is dialed (and for https, its TLS handshake
// done) while the run gets ready, not after its request is built: agent-chat
// starts the dial once it knows the model, so it overlaps the tools'
// start-up, the system prompt and, for a run started ahead of its prompt
// (agent-chat … -- -), the wait for the prompt. The first dial to that
// server takes the connection, or the first direct request (direct.go)
// when it speaks HTTP/1.1; every other dial is an ordinary one.

// warmAge is how long a warmed connection is kept for its request: the
// idle time http.DefaultTransport keeps a pooled connection
// (IdleConnTimeout). An older one is closed, and the request dials anew.
const warmAge = 90 * time.Second

// warmWriteBuffer is the size of the transport's write buffer (4 KiB by
// default): a first request of a session, its headers and a body with the
// system prompt and the tools, fits; a larger buffer would be a large
// allocation (fresh pages, zeroed) on the way to the request.
const warmWriteBuffer = 32 << 10

// warm is one connection dialed ahead, for the first dial to addr.
type warm struct {
	addr  string // host:port, as the transport asks for it
	tls   *tls.Config
	ready chan struct{} // closed once the dial ended
	conn  net.Conn      // nil when it failed
	mu    sync.Mutex
	taken bool
	timer *time.Timer
}

// Warm makes c's HTTP client one over a clone of base whose first
// connection to baseURL's server is dialed now, in the background, and
// sends c's requests directly (direct.go) on the connections it dials for
// them when it can. Nothing is warmed (c's client is one over base itself)
// when there is nothing to warm: no base URL, a proxy in the way
// (base.Proxy), a TLS dialer of base's own, or a platform without the
// liveness check. Connections are dialed with base.DialContext
// (net.Dialer's when nil). close (never nil) closes what c holds.
func (c *Client) Warm(base *http.Transport, baseURL string) (close func()) {
	client, w, ok := warmClient(base, baseURL)
	c.HTTP = client
	if !ok {
		return func() {}
	}
	u, _ := url.Parse(baseURL)
	c.direct = &direct{warm: w, scheme: u.Scheme, addr: w.addr}
	return func() {
		w.close()
		c.dropEarly()
		c.direct.close()
	}
}

// warmClient is the client Warm makes and its warm connection; ok is
// false when there is nothing to warm.
func warmClient(base *http.Transport, baseURL string) (client *http.Client, w *warm, ok bool) {
	client = &http.Client{Transport: base}
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || !canCheckAlive ||
		base.DialTLSContext != nil {
		return client, nil, false
	}
	if base.Proxy != nil {
		if p, err := base.Proxy(&http.Request{URL: u}); err != nil || p != nil {
			return client, nil, false
		}
	}
	w = &warm{addr: hostPort(u), ready: make(chan struct{})}
	t := base.Clone()
	// A request goes out in one write, headers and body (a small body:
	// larger ones are streamed): the server wakes once for all of it.
	t.WriteBufferSize = max(t.WriteBufferSize, warmWriteBuffer)
	dial := base.DialContext
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext // DefaultTransport's
	}
	if u.Scheme == "https" {
		w.tls = tlsConfig(t.TLSClientConfig)
		t.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if c := w.take(ctx, addr, false); c != nil {
				return c, nil
			}
			return dialTLS(ctx, dial, w.tls, network, addr)
		}
	} else {
		t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if c := w.take(ctx, addr, false); c != nil {
				return c, nil
			}
			return dial(ctx, network, addr)
		}
	}
	go w.dial(dial)
	return &http.Client{Transport: t}, w, true
}

// tlsConfig is what the transport would use: its config, offering HTTP/2
// unless GODEBUG turns the HTTP/2 client off (the transport would then
// not speak what the server chose).
func tlsConfig(base *tls.Config) *tls.Config {
	cfg := &tls.Config{}
	if base != nil {
		cfg = base.Clone()
	}
	if len(cfg.NextProtos) == 0 {
		cfg.NextProtos = []string{"h2", "http/1.1"}
		if strings.Contains(os.Getenv("GODEBUG"), "http2client=0") {
			cfg.NextProtos = []string{"http/1.1"}
		}
	}
	return cfg
}

// dialTLS dials addr and does the TLS handshake, as the transport does
// without a dialer of its own.
func dialTLS(ctx context.Context, dial dialFunc, base *tls.Config, network, addr string) (net.Conn, error) {
	raw, err := dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cfg := base.Clone()
	if cfg.ServerName == "" {
		cfg.ServerName, _, _ = net.SplitHostPort(addr)
	}
	c := tls.Client(raw, cfg)
	if err := c.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, err
	}
	return c, nil
}

type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

func (w *warm) dial(dial dialFunc) {
	defer close(w.ready)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var c net.Conn
	var err error
	if w.tls != nil {
		c, err = dialTLS(ctx, dial, w.tls, "tcp", w.addr)
	} else {
		c, err = dial(ctx, "tcp", w.addr)
	}
	if err != nil {
		return // the request dials again and reports what fails
	}
	// take checks the connection before it hands it out: the check's code
	// (a first run pages it in, ~40 µs) runs once now, not first at
	// the request.
	alive(c)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.taken {
		c.Close()
		return
	}
	w.conn = c
	w.timer = time.AfterFunc(warmAge, w.close)
}

// take hands out the warmed connection for the first dial to its address,
// when it is still open; nil otherwise. The first dial waits for the warm
// one to end (it started earlier, so it is the sooner), as long as ctx
// lets it. http1 (a direct request) leaves a connection that speaks
// HTTP/2 to the transport.
func (w *warm) take(ctx context.Context, addr string, http1 bool) net.Conn {
	if addr != w.addr {
		return nil
	}
	w.mu.Lock()
	if w.taken {
		w.mu.Unlock()
		return nil
	}
	w.mu.Unlock()
	select {
	case <-w.ready:
	case <-ctx.Done():
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.taken {
		return nil
	}
	if tc, ok := w.conn.(*tls.Conn); ok && http1 && tc.ConnectionState().NegotiatedProtocol == "h2" {
		return nil
	}
	w.taken = true
	c := w.conn
	w.conn = nil
	if c == nil {
		return nil
	}
	w.timer.Stop()
	if !alive(c) {
		c.Close()
		return nil
	}
	return c
}

// close closes the warmed connection if nobody took it.
func (w *warm) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.taken = true
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
}
