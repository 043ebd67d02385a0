package provider

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentutils/agentutils/lib/llm"
)

// A run started ahead of its prompt sends its first request as soon as
// the prompt is read (Early), before the run has built the call the
// request is for: the run's own work on the prompt (its events, the
// context, the request built again) then overlaps the server's. Stream
// uses the answer to the early request for its call when its request is
// that one, byte for byte; else the early answer is dropped and the call
// sends its own. Only a direct request is sent early (its write is done
// before Early returns; its answer is read by Stream).

// early is a request sent by Early, its answer not read yet.
type early struct {
	call  *directCall
	match func(llm.Model, llm.Context, llm.Options) bool
}

// Prepared is a request serialized ahead of the one text of it that is
// not known yet (its body an llm.BodyTemplate): its HTTP/1.1 head as
// http.Request.Write writes it, cut around the body's length, and a
// buffer for the whole request, already touched, so that sending it is a
// copy and a write.
type Prepared struct {
	req  llm.Request
	hreq *http.Request
	head []byte // the head up to the Content-Length value
	rest []byte // the head after it
	body llm.BodyTemplate
	buf  []byte
}

// Prepare serializes req, whose body is body with placeholder in the
// hole; nil when it will not be sent directly.
func (c *Client) Prepare(req llm.Request, body llm.BodyTemplate, placeholder string) *Prepared {
	if c.direct == nil || c.Replay != nil || c.Record != nil {
		return nil
	}
	whole := body.With(placeholder)
	hreq, err := httpRequest(context.Background(), req, whole)
	if err != nil {
		return nil
	}
	var wire bytes.Buffer
	if err := hreq.Write(&wire); err != nil {
		return nil
	}
	w := wire.Bytes()
	cl := []byte("\r\nContent-Length: " + strconv.Itoa(len(whole)) + "\r\n")
	end := bytes.Index(w, []byte("\r\n\r\n"))
	i := bytes.Index(w, cl)
	if end < 0 || i < 0 || i > end || !bytes.Equal(w[end+4:], whole) {
		return nil
	}
	i += len("\r\nContent-Length: ")
	p := &Prepared{req: req, hreq: hreq, head: w[:i:i], rest: w[i+len(strconv.Itoa(len(whole))) : end+4], body: body}
	p.buf = make([]byte, 0, len(w)+64<<10)
	if b, _ := p.wire(placeholder); !bytes.Equal(b, w) { // and the buffer is touched
		return nil
	}
	return p
}

// wire is the request with text in the body's hole, and the body.
func (p *Prepared) wire(text string) (wire, body []byte) {
	bh, enc, bt := p.body.Parts(text)
	n := len(bh) + len(enc) + len(bt)
	b := append(p.buf[:0], p.head...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, p.rest...)
	b = append(b, bh...)
	b = append(b, enc...)
	b = append(b, bt...)
	return b, b[len(b)-n:]
}

// Early sends p with text in its body's hole now, for the next Stream;
// false when it was not sent (then Stream sends its own). The next Stream
// takes its answer when match says that its call (the model, context and
// options it is given) is that request: the caller knows what the
// request was built from, and comparing that is cheaper than building
// the call's request again. Else the early request is given up and
// Stream sends its own. ctx must be the one Stream is given.
func (c *Client) Early(ctx context.Context, p *Prepared, text string, match func(llm.Model, llm.Context, llm.Options) bool) bool {
	if p == nil || c.early != nil {
		return false
	}
	wire, body := p.wire(text)
	p.buf = nil // the early call's body is in it
	call, err := c.writeDirect(ctx, p.req, p.hreq.WithContext(ctx), wire)
	if err != nil {
		return false
	}
	call.body = body
	c.early = &early{call: call, match: match}
	return true
}

// takeEarly is the early request when it is the call's (match); else
// it is given up.
func (c *Client) takeEarly(m llm.Model, lc llm.Context, o llm.Options) *directCall {
	e := c.early
	if e == nil {
		return nil
	}
	c.early = nil
	if e.match(m, lc, o) {
		return e.call
	}
	e.call.close()
	if c.Warn != nil {
		c.Warn("the request sent early was not the call's: it was sent again")
	}
	return nil
}

// dropEarly closes an early request no call took.
func (c *Client) dropEarly() {
	if c.early != nil {
		c.early.call.close()
		c.early = nil
	}
}

// WarmAnswer runs Stream once, into emit, on a canned answer to an early
// request: events (an answer's first) in a chunked HTTP/1.1 body, read as
// Stream reads an early direct request's answer; false when the client
// sends nothing directly (nothing was run). A process's first run of that
// code pages it in (a fault costs tens of microseconds), builds the
// interface tables its conversions look up (each a write to a fresh page)
// and takes spans for its allocations: a run waiting for its prompt does
// it while it waits, not between its answer's first bytes and the first
// character.
func (c *Client) WarmAnswer(m llm.Model, events []llm.SSE, emit func(llm.Event)) bool {
	if c.direct == nil || c.early != nil || c.Replay != nil || c.Record != nil {
		return false
	}
	var body bytes.Buffer
	for _, e := range events {
		if e.Event != "" {
			body.WriteString("event: " + e.Event + "\n")
		}
		body.WriteString("data: " + string(e.Data) + "\n\n")
	}
	answer := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
		strconv.FormatInt(int64(body.Len()), 16) + "\r\n" + body.String() + "\r\n0\r\n\r\n"
	hreq, err := http.NewRequest(http.MethodPost, "http://"+c.direct.addr+"/", nil)
	if err != nil {
		return false
	}
	conn, peer := net.Pipe()
	peer.Close()
	call := &directCall{d: c.direct, hreq: hreq, conn: conn, br: bufio.NewReader(strings.NewReader(answer)),
		stop: func() bool { return false }} // the connection is closed, not kept
	c.early = &early{call: call, match: func(llm.Model, llm.Context, llm.Options) bool { return true }}
	c.Stream(context.Background(), m, llm.Context{}, llm.Options{}, emit)
	return true
}
