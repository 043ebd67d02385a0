package provider

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// A model call's connection is dialed (and for https, its TLS handshake
// done and HTTP/2 set up) while the run gets ready, not after its request
// is built: agent-chat starts the dial once it knows the model, so it
// overlaps the tools' start-up, the system prompt and, for a run started
// ahead of its prompt (agent-chat … -- -), the wait for the prompt.
// Against a provider's server (TLS, HTTP/2, a 40 ms round trip) this
// spares the user TCP's and TLS's round trips: 80 ms of the wait from
// Enter to the first character (docs/perf-agent.md). The connection is
// net/http's own (Transport.NewClientConn): the transport speaks HTTP/1.1
// or HTTP/2 on it, answers the server's pings and notices when the server
// closes it, and requests go through http.Client as any other.

// warm is a transport whose requests to one server go on a connection
// dialed ahead while it is usable, and through base otherwise.
type warm struct {
	base         *http.Transport
	scheme, addr string        // the server: its scheme and host:port
	ready        chan struct{} // closed once the dial ended
	cancel       func()
	mu           sync.Mutex
	cc           *http.ClientConn // nil: the dial failed, or the connection is gone
	closed       bool
}

// Warm makes c's HTTP client one over base whose first connection to
// baseURL's server is dialed now, in the background. Nothing is dialed
// (c's client is one over base) when baseURL names no server. close
// (never nil) closes the connection.
func (c *Client) Warm(base *http.Transport, baseURL string) (close func()) {
	c.HTTP = &http.Client{Transport: base}
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return func() {}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	w := &warm{base: base, scheme: u.Scheme, addr: hostPort(u), ready: make(chan struct{}), cancel: cancel}
	go w.dial(ctx)
	c.HTTP = &http.Client{Transport: w}
	return w.close
}

func (w *warm) dial(ctx context.Context) {
	defer close(w.ready)
	defer w.cancel()
	cc, err := w.base.NewClientConn(ctx, w.scheme, w.addr)
	if err != nil {
		return // the request dials again and reports what fails
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		cc.Close()
		return
	}
	w.cc = cc
}

// RoundTrip sends req on the connection dialed ahead when req is for its
// server and the connection can take it now; else through base. A request
// for that server waits for the dial (it started earlier, so it ends
// sooner than a new one), as long as req's context lets it.
func (w *warm) RoundTrip(req *http.Request) (*http.Response, error) {
	if cc := w.take(req); cc != nil {
		return cc.RoundTrip(req)
	}
	return w.base.RoundTrip(req)
}

// take is the warm connection with a slot reserved for req, or nil.
func (w *warm) take(req *http.Request) *http.ClientConn {
	if req.URL.Scheme != w.scheme || hostPort(req.URL) != w.addr {
		return nil
	}
	select {
	case <-w.ready:
	case <-req.Context().Done():
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cc == nil {
		return nil
	}
	if w.cc.Err() != nil { // the server closed it: base dials anew
		w.cc.Close()
		w.cc = nil
		return nil
	}
	if w.cc.Reserve() != nil { // busy (an HTTP/1.1 answer being read)
		return nil
	}
	return w.cc
}

// close closes the warm connection and stops a dial under way.
func (w *warm) close() {
	w.cancel()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if w.cc != nil {
		w.cc.Close()
		w.cc = nil
	}
}

// hostPort is u's host:port, the port the scheme's when u has none.
func hostPort(u *url.URL) string {
	port := u.Port()
	switch {
	case port != "":
	case u.Scheme == "http":
		port = "80"
	case u.Scheme == "https":
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}
