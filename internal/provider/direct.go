package provider

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/agentutils/agentutils/lib/llm"
)

// A request with a small body goes over an HTTP/1.1 connection the client
// dialed itself (the warm one, then the one its last answer left open)
// without net/http's transport: the request is serialized by
// http.Request.Write into one buffer and written in one write from the
// caller's goroutine, and the answer is read by http.ReadResponse from the
// same connection, so that the way from a prompt to the server holds no
// hand-over to the transport's writer and reader goroutines (each a
// thread to wake). What is Go's stays Go's: the request's wire form, the
// response's status line, headers and body (chunked or not). Anything
// unusual is the transport's: no connection at hand, an HTTP/2 one (it is
// left to the transport, which takes it), a header the transport would
// refuse, a redirect (the request is sent again through the client, which
// follows it), a reused connection that fails before an answer (sent
// again, as the transport retries one).

// direct is a connection for direct requests: the warm one, or the last
// answer's when it ended cleanly.
type direct struct {
	mu   sync.Mutex
	warm *warm
	scheme,
	addr string // the scheme and host:port the connection serves
	idle net.Conn // an answered connection, kept for the next request
	br   *bufio.Reader
	used time.Time // when idle's last answer ended
}

// errNotDirect: the request is not for the direct path; the caller sends
// it through its HTTP client.
var errNotDirect = errors.New("not direct")

// conn is a connection for a request to u: the kept one (reused) when it
// is still open, else the warm one; nil when there is neither.
func (d *direct) conn(ctx context.Context, u *url.URL) (c net.Conn, br *bufio.Reader, reused bool) {
	if u.Scheme != d.scheme || hostPort(u) != d.addr {
		return nil, nil, false
	}
	d.mu.Lock()
	c, br, used := d.idle, d.br, d.used
	d.idle, d.br = nil, nil
	d.mu.Unlock()
	if c != nil {
		if time.Since(used) < warmAge && br.Buffered() == 0 && alive(c) {
			return c, br, true
		}
		c.Close()
	}
	if c = d.warm.take(ctx, d.addr, true); c == nil {
		return nil, nil, false
	}
	return c, bufio.NewReaderSize(c, 4<<10), false
}

// keep keeps c for the next request.
func (d *direct) keep(c net.Conn, br *bufio.Reader) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.idle != nil {
		d.idle.Close()
	}
	d.idle, d.br, d.used = c, br, time.Now()
}

// close closes the kept connection.
func (d *direct) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.idle != nil {
		d.idle.Close()
		d.idle, d.br = nil, nil
	}
}

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

// doDirect sends req (small, its encoded body) on a connection of the
// client's own and reads the answer's head; errNotDirect when the request
// is the HTTP client's to send (nothing was sent, or it is to be sent
// again). sent is called once the request is written.
func (c *Client) doDirect(ctx context.Context, req llm.Request, small []byte, sent func()) (*http.Response, error) {
	call, err := c.sendDirect(ctx, req, small)
	if err == errNotDirect {
		return nil, err
	}
	sent()
	if err != nil {
		return nil, err
	}
	return call.response()
}

// directCall is a request written on a direct connection, its answer
// not read yet.
type directCall struct {
	d      *direct
	req    llm.Request
	hreq   *http.Request
	conn   net.Conn
	br     *bufio.Reader
	reused bool
	stop   func() bool
	body   []byte // an early request's body
}

// sendDirect writes req on a direct connection: errNotDirect when it
// cannot (nothing of it reached the server whole), another error when the
// write failed on an abort.
func (c *Client) sendDirect(ctx context.Context, req llm.Request, small []byte) (*directCall, error) {
	if c.direct == nil || small == nil {
		return nil, errNotDirect
	}
	hreq, err := httpRequest(ctx, req, small)
	if err != nil {
		return nil, errNotDirect
	}
	var wire bytes.Buffer
	wire.Grow(len(small) + 1<<10)
	if err := hreq.Write(&wire); err != nil {
		return nil, errNotDirect
	}
	return c.writeDirect(ctx, req, hreq, wire.Bytes())
}

// httpRequest is req for http.Request.Write; an error for a header the
// transport would refuse (it says what is wrong).
func httpRequest(ctx context.Context, req llm.Request, body []byte) (*http.Request, error) {
	hreq, err := http.NewRequestWithContext(ctx, req.Method, req.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range req.Header {
		if !validHeader(k, v) {
			return nil, errNotDirect
		}
		hreq.Header.Set(k, v)
	}
	return hreq, nil
}

// writeDirect writes wire, hreq serialized, on a direct connection.
func (c *Client) writeDirect(ctx context.Context, req llm.Request, hreq *http.Request, wire []byte) (*directCall, error) {
	conn, br, reused := c.direct.conn(ctx, hreq.URL)
	if conn == nil {
		return nil, errNotDirect
	}
	// An abort closes the connection: a read or write waiting on it
	// returns at once.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	if _, err := conn.Write(wire); err != nil {
		stop()
		conn.Close()
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, errNotDirect // the server has no whole request: sent again
	}
	return &directCall{d: c.direct, req: req, hreq: hreq, conn: conn, br: br, reused: reused, stop: stop}, nil
}

// response reads the answer's head: errNotDirect when the request is to
// be sent again through the client (a redirect to follow, a kept
// connection the server had closed).
func (dc *directCall) response() (*http.Response, error) {
	resp, err := readResponse(dc.br, dc.hreq)
	ctx := dc.hreq.Context()
	if err != nil {
		dc.close()
		if dc.reused && ctx.Err() == nil && !errors.Is(err, errPartial) {
			return nil, errNotDirect // a kept connection the server closed meanwhile
		}
		return nil, &url.Error{Op: dc.req.Method, URL: dc.req.URL, Err: errors.Unwrap(err)}
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 && resp.Header.Get("Location") != "" {
		resp.Body.Close()
		dc.close()
		return nil, errNotDirect // the client follows redirects
	}
	resp.Body = &directBody{ReadCloser: resp.Body, call: dc, reuse: !resp.Close}
	return resp, nil
}

// close gives the connection up.
func (dc *directCall) close() {
	dc.stop()
	dc.conn.Close()
}

// errPartial marks an answer whose head was read in part: the server
// took the request.
var errPartial = errors.New("partial")

// readResponse reads the answer's head, skipping informational (1xx)
// ones as the transport does.
func readResponse(br *bufio.Reader, hreq *http.Request) (*http.Response, error) {
	for {
		// As the transport: nothing read is the error of the read (EOF
		// for a closed connection); a head read in part is ReadResponse's.
		if _, err := br.Peek(1); err != nil {
			return nil, &wrapped{err, nil}
		}
		resp, err := http.ReadResponse(br, hreq)
		if err != nil {
			return nil, &wrapped{err, errPartial}
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, nil
		}
	}
}

// wrapped is err, also matching mark.
type wrapped struct{ err, mark error }

func (w *wrapped) Error() string { return w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }
func (w *wrapped) Is(target error) bool {
	return w.mark != nil && target == w.mark
}

// directBody is an answer's body on a direct connection: closed, the
// connection is kept for the next request when the body was read to its
// end and the server keeps it open; else it is closed.
type directBody struct {
	io.ReadCloser
	call  *directCall
	reuse bool
	eof   bool
	once  sync.Once
}

func (b *directBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

func (b *directBody) Close() error {
	b.once.Do(func() {
		b.ReadCloser.Close()
		dc := b.call
		if dc.stop() && b.eof && b.reuse {
			dc.d.keep(dc.conn, dc.br)
			return
		}
		dc.conn.Close()
	})
	return nil
}

// validHeader: the transport would send k: v (a token name, a value
// without control characters but tab).
func validHeader(k, v string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c <= ' ' || c >= 0x7f || c == ':' {
			return false
		}
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}
