// Package provider is the I/O shell around lib/llm's pure codecs: it sends
// the request a codec built over HTTP (or answers it from a cassette),
// feeds the response's SSE bytes to the codec's decoder, and records
// exchanges to a cassette (formats/cassette) with credentials removed.
package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/redact"
)

// Client streams model calls.
type Client struct {
	HTTP    *http.Client
	Now     func() time.Time
	Record  *Recorder // nil: no recording
	Replay  *Cassette // nil: use the network
	Secrets []string  // values never written to a cassette
	// Warn receives non-fatal notes (replay body differences).
	Warn func(string)
	// Quiet, when set, is called before Stream waits for more of the
	// response: every event read so far has been emitted. A consumer that
	// holds what it writes flushes it then (one write per read, not per
	// event).
	Quiet func()
	// Sent, when set, is called once per Stream when the request has been
	// written (or could not be), before the answer is awaited: what the
	// caller held back so as not to slow the request down can go out.
	// It may run on another goroutine, while Stream waits.
	Sent func()
	// Key, when set, gives each request its API key in place of
	// Options.APIKey (a login's short-lived token, fetched again before it
	// expires); a request refused with 401 is sent once more with
	// Key(ctx, true), a new one, so the turn goes on. Each key it gives is
	// masked as Secrets are.
	Key func(ctx context.Context, refresh bool) (string, error)
	// Headers, when set, gives headers of each request from its context
	// (GitHub Copilot's X-Initiator).
	Headers func(llm.Context) map[string]string
	mu      sync.Mutex
}

// UseCassettes sets up --replay FILE (requests answered from the
// cassette, no network) and --record FILE (every exchange written to a new
// file, mode 0600) on c; "" leaves either off. The files are opened at
// abs(name) and named as given in messages. done closes the recording.
// Errors are the user's: a cassette that does not read, a file that cannot
// be created.
func (c *Client) UseCassettes(record, replay string, abs func(string) string) (done func(), err error) {
	done = func() {}
	if replay != "" {
		data, err := os.ReadFile(abs(replay))
		if err != nil {
			return done, err
		}
		if c.Replay, err = ReadCassette(replay, data); err != nil {
			return done, err
		}
	}
	if record != "" {
		fh, err := os.OpenFile(abs(record), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			return done, err
		}
		c.Record = NewRecorder(fh)
		done = func() { fh.Close() }
	}
	return done, nil
}

// Stream runs one call: it emits every stream event to emit and returns the
// final assistant message (stopReason error/aborted on failure; the error
// text is in ErrorMessage). A replay mismatch is returned as err.
func (c *Client) Stream(ctx context.Context, m llm.Model, lc llm.Context, o llm.Options, emit func(llm.Event)) (llm.Message, error) {
	var keyErr error
	if c.Key != nil && c.Replay == nil {
		o.APIKey, keyErr = c.key(ctx, false)
	}
	codec, req, small, err := c.request(m, lc, o)
	if err != nil {
		return llm.Message{}, err
	}
	dec := codec.Decoder(m, c.Now().UnixMilli())
	var final *llm.Message
	out := func(evs []llm.Event) {
		for _, e := range evs {
			c.maskEvent(e)
			if f := e.Final(); f != nil {
				final = f
			}
			emit(e)
		}
	}
	var body io.Reader
	var status int
	var header http.Header
	var rec *Exchange
	var once sync.Once
	sent := func() {
		if c.Sent != nil {
			once.Do(c.Sent)
		}
	}
	defer sent() // not sent: an error before the request
	if c.Replay != nil {
		sent()
		ex, err := c.Replay.Next(req, c.Warn)
		if err != nil {
			return llm.Message{}, err
		}
		status, header = ex.Response.Status, http.Header{}
		for k, v := range ex.Response.Headers {
			header.Set(k, v)
		}
		body = ex.Body()
	} else if keyErr != nil {
		out(dec.End(keyErr))
		return finish(ctx, final), nil
	} else {
		resp, err := c.do(ctx, req, small, sent)
		if err == nil && resp.StatusCode == http.StatusUnauthorized && c.Key != nil {
			// The token expired (or was revoked) mid-run: a new one, once.
			if key, kerr := c.key(ctx, true); kerr == nil && key != o.APIKey {
				resp.Body.Close()
				o.APIKey = key
				if _, req, small, err = c.request(m, lc, o); err != nil {
					return llm.Message{}, err
				}
				resp, err = c.do(ctx, req, small, sent)
			}
		}
		if err == nil && resp.StatusCode == http.StatusLengthRequired && small == nil {
			// A server that wants the length before the body: send it
			// again, encoded in memory this once.
			resp.Body.Close()
			if small, err = req.Encode(); err != nil {
				return llm.Message{}, err
			}
			resp, err = c.do(ctx, req, small, sent)
		}
		sent() // after the once in the trace (if it ran): the caller's output is its own again
		if err != nil {
			out(dec.End(transportError(ctx, err)))
			return finish(ctx, final), nil
		}
		defer resp.Body.Close()
		status, header, body = resp.StatusCode, resp.Header, resp.Body
		if c.Record != nil {
			rec = c.Record.Begin(req, c.Secrets, c.Now())
			rec.Response.Status = status
			rec.Response.Headers = keepHeaders(resp.Header)
			body = &teeChunks{r: resp.Body, ex: rec, start: c.Now(), now: c.Now}
		}
	}
	if status != 200 {
		b, _ := io.ReadAll(io.LimitReader(body, 64<<10))
		b = []byte(redact.Mask(string(b), c.Secrets)) // a 401 may quote the key
		ra := llm.RetryAfter(header.Get, c.Now())
		if d := llm.RetryDelay(b); d > ra {
			ra = d
		}
		if rec != nil {
			c.Record.End(rec)
		}
		out(dec.End(errors.New(llm.HTTPError(status, b, ra))))
		return finish(ctx, final), nil
	}
	if c.Quiet != nil {
		body = quietReader{body, c.Quiet}
	}
	r := llm.NewSSEReader(body)
	for {
		ev, err := r.Next()
		if err == io.EOF {
			out(dec.End(nil))
			break
		}
		if err != nil {
			out(dec.End(transportError(ctx, err)))
			break
		}
		out(dec.Feed(ev))
		if final != nil {
			break
		}
	}
	if rec != nil {
		io.Copy(io.Discard, body) // record the rest of the body
		c.Record.End(rec)
	}
	return finish(ctx, final), nil
}

// key is Key's answer, kept among the secrets.
func (c *Client) key(ctx context.Context, refresh bool) (string, error) {
	k, err := c.Key(ctx, refresh)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !slices.Contains(c.Secrets, k) {
		c.Secrets = append(c.Secrets, k)
	}
	return k, nil
}

// request is the request of a call with Headers' headers.
func (c *Client) request(m llm.Model, lc llm.Context, o llm.Options) (llm.Codec, llm.Request, []byte, error) {
	codec, req, small, err := request(m, lc, o)
	if err == nil && c.Headers != nil {
		if req.Header == nil {
			req.Header = map[string]string{}
		}
		for k, v := range c.Headers(lc) {
			req.Header[k] = v
		}
	}
	return codec, req, small, err
}

// maskEvent masks the secrets, and the parts of them an error quotes, in
// the error messages an event carries (lib/redact.Mask): a stream's error
// event or a transport error may hold the key.
func (c *Client) maskEvent(e llm.Event) {
	for _, m := range []*llm.Message{e.Error, e.Message, e.Partial} {
		if m != nil && m.ErrorMessage != "" {
			m.ErrorMessage = redact.Mask(m.ErrorMessage, c.Secrets)
		}
	}
}

// request is the request of a call and, for a small context, its body.
// A small body is encoded once, here: checked, and sent with its length.
// A large one (a long session) is encoded while it is sent, so it is
// never held as bytes beside the messages it comes from.
func request(m llm.Model, lc llm.Context, o llm.Options) (codec llm.Codec, req llm.Request, small []byte, err error) {
	if codec, err = llm.CodecFor(m.API); err != nil {
		return nil, req, nil, err
	}
	if req, err = codec.Request(m, lc, o); err != nil {
		return nil, req, nil, err
	}
	if lc.Size() < streamAbove {
		if small, err = req.Encode(); err != nil {
			return nil, req, nil, err
		}
	}
	return codec, req, small, nil
}

// do sends req once (see newHTTPRequest for small); sent is called once
// the request is written.
func (c *Client) do(ctx context.Context, req llm.Request, small []byte, sent func()) (*http.Response, error) {
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { sent() }})
	hreq, err := newHTTPRequest(ctx, req, small)
	if err != nil {
		return nil, err
	}
	for k, v := range req.Header {
		hreq.Header.Set(k, v)
	}
	return c.HTTP.Do(hreq)
}

// streamAbove is the context size (llm.Context.Size) from which a request
// body is encoded while it is sent.
const streamAbove = 64 << 10

// newHTTPRequest is req for net/http: small (the encoded body) is sent with
// its length; without it, the body is encoded into the connection as it is
// sent, with no length (chunked over HTTP/1.1, plain DATA frames over
// HTTP/2), and GetBody encodes it again for a retry. An encoding error
// aborts the request: the server never sees a whole body.
func newHTTPRequest(ctx context.Context, req llm.Request, small []byte) (*http.Request, error) {
	if small != nil {
		return http.NewRequestWithContext(ctx, req.Method, req.URL, bytes.NewReader(small))
	}
	hreq, err := http.NewRequestWithContext(ctx, req.Method, req.URL, nil)
	if err != nil {
		return nil, err
	}
	hreq.GetBody = func() (io.ReadCloser, error) {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(req.WriteBody(pw)) }()
		return pr, nil
	}
	hreq.Body, _ = hreq.GetBody()
	hreq.ContentLength = -1
	return hreq, nil
}

// quietReader calls quiet before each read: the SSE reader reads only
// when it has handed out every event of what it read before.
type quietReader struct {
	r     io.Reader
	quiet func()
}

func (q quietReader) Read(p []byte) (int, error) {
	q.quiet()
	return q.r.Read(p)
}

func finish(ctx context.Context, final *llm.Message) llm.Message {
	if final == nil {
		return llm.Message{Role: "assistant", StopReason: llm.StopError, ErrorMessage: "no response"}
	}
	m := *final
	if ctx.Err() != nil && m.StopReason == llm.StopError {
		m.StopReason, m.ErrorMessage = llm.StopAborted, "Request was aborted"
	}
	return m
}

func transportError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return errors.New("Request was aborted")
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return llm.ErrUnexpectedEOF
	}
	return fmt.Errorf("Connection error: %v", err)
}

func keepHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	for _, k := range []string{"Content-Type", "Retry-After", "X-Ratelimit-Reset", "X-Ratelimit-Reset-Ms", "Request-Id", "X-Request-Id"} {
		if v := h.Get(k); v != "" {
			out[strings.ToLower(k)] = v
		}
	}
	return out
}

// Exchange is one cassette record: a request and its raw response.
type Exchange struct {
	Seq     int `json:"seq"`
	Request struct {
		Method  string            `json:"method"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"request"`
	Response struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers,omitempty"`
		Chunks  []Chunk           `json:"chunks"`
	} `json:"response"`
	mu      sync.Mutex
	secrets []string // masked in the response as it is written (End)
}

// mask takes the secrets, and the parts of them an error quotes, out of
// the response: its headers, and its chunks, which become one chunk (at
// the first's time) when a secret was found across them.
func (e *Exchange) mask() {
	for k, v := range e.Response.Headers {
		e.Response.Headers[k] = redact.Mask(v, e.secrets)
	}
	var all strings.Builder
	for _, c := range e.Response.Chunks {
		all.WriteString(c.Data)
	}
	if m := redact.Mask(all.String(), e.secrets); m != all.String() {
		e.Response.Chunks = []Chunk{{AfterMs: e.Response.Chunks[0].AfterMs, Data: m}}
	}
}

// Chunk is response bytes as they arrived, afterMs after the request.
type Chunk struct {
	AfterMs int64  `json:"afterMs"`
	Data    string `json:"data"`
}

// Body is the recorded response body.
func (e *Exchange) Body() io.Reader {
	var b bytes.Buffer
	for _, c := range e.Response.Chunks {
		b.WriteString(c.Data)
	}
	return &b
}

type teeChunks struct {
	r     io.Reader
	ex    *Exchange
	start time.Time
	now   func() time.Time
}

func (t *teeChunks) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.ex.mu.Lock()
		t.ex.Response.Chunks = append(t.ex.Response.Chunks, Chunk{AfterMs: t.now().Sub(t.start).Milliseconds(), Data: string(p[:n])})
		t.ex.mu.Unlock()
	}
	return n, err
}

// Recorder writes exchanges to a cassette as JSON Lines, one per call, in
// the order calls finish.
type Recorder struct {
	mu  sync.Mutex
	w   io.Writer
	seq int
	err error
}

// NewRecorder records to w.
func NewRecorder(w io.Writer) *Recorder { return &Recorder{w: w} }

// Begin starts the record of a request, with credentials and secret values
// removed.
func (r *Recorder) Begin(req llm.Request, secrets []string, now time.Time) *Exchange {
	ex := &Exchange{}
	ex.Request.Method = req.Method
	ex.Request.URL = redactURL(req.URL)
	ex.Request.Headers = map[string]string{}
	for k, v := range req.Header {
		if llm.IsCredential(k) {
			v = "[REDACTED]"
		}
		ex.Request.Headers[strings.ToLower(k)] = v
	}
	ex.secrets = secrets
	body := string(req.BodyBytes())
	for _, s := range secrets {
		if len(s) >= 6 {
			body = strings.ReplaceAll(body, s, "[REDACTED]")
		}
	}
	if json.Valid([]byte(body)) {
		ex.Request.Body = json.RawMessage(body)
	} else {
		ex.Request.Body, _ = json.Marshal(body)
	}
	return ex
}

// End writes a finished exchange.
func (r *Recorder) End(ex *Exchange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	ex.Seq = r.seq
	if ex.Response.Chunks == nil {
		ex.Response.Chunks = []Chunk{}
	}
	ex.mask()
	b, err := json.Marshal(ex)
	if err == nil {
		_, err = r.w.Write(append(b, '\n'))
	}
	if err != nil && r.err == nil {
		r.err = err
	}
}

// Err is the first write error.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	q := u.Query()
	for _, k := range []string{"key", "api_key", "apiKey"} {
		if q.Has(k) {
			q.Set(k, "REDACTED")
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Cassette serves recorded exchanges in order.
type Cassette struct {
	mu   sync.Mutex
	recs []*Exchange
	next int
	name string
}

// ReadCassette parses a cassette; a malformed line is an error naming it.
func ReadCassette(name string, data []byte) (*Cassette, error) {
	c := &Cassette{name: name}
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		ex := &Exchange{}
		if err := json.Unmarshal(line, ex); err != nil {
			return nil, fmt.Errorf("%s:%d: not a cassette record: %v", name, i+1, err)
		}
		if ex.Request.Method == "" || ex.Request.URL == "" || ex.Response.Status == 0 {
			return nil, fmt.Errorf("%s:%d: a cassette record needs request.method, request.url and response.status", name, i+1)
		}
		c.recs = append(c.recs, ex)
	}
	return c, nil
}

// Next returns the record answering req. Method and URL path must match the
// next record; body differences are reported through warn.
func (c *Cassette) Next(req llm.Request, warn func(string)) (*Exchange, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.next + 1
	if c.next >= len(c.recs) {
		return nil, fmt.Errorf("replay mismatch at request %d: %s holds only %d request(s); this run made one more (%s %s)", n, c.name, len(c.recs), req.Method, pathOf(req.URL))
	}
	ex := c.recs[c.next]
	c.next++
	if ex.Request.Method != req.Method || pathOf(ex.Request.URL) != pathOf(req.URL) {
		return nil, fmt.Errorf("replay mismatch at request %d: the cassette has %s %s, this run sent %s %s%s", n,
			ex.Request.Method, pathOf(ex.Request.URL), req.Method, pathOf(req.URL), bodyDiff(ex.Request.Body, req.BodyBytes()))
	}
	if warn != nil { // the body is encoded only for someone to see the difference
		if d := bodyDiff(ex.Request.Body, req.BodyBytes()); d != "" {
			warn(fmt.Sprintf("replay: request %d differs from the cassette%s", n, d))
		}
	}
	return ex, nil
}

func pathOf(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Path
	}
	return s
}

// bodyDiff names the first top-level field whose value differs.
func bodyDiff(recorded json.RawMessage, sent []byte) string {
	var a, b map[string]json.RawMessage
	if json.Unmarshal(recorded, &a) != nil || json.Unmarshal(sent, &b) != nil {
		if !bytes.Equal(recorded, sent) {
			return " (bodies differ)"
		}
		return ""
	}
	var diffs []string
	for k, v := range b {
		if w, ok := a[k]; !ok {
			diffs = append(diffs, "+"+k)
		} else if !jsonEqual(v, w) {
			diffs = append(diffs, "~"+k)
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			diffs = append(diffs, "-"+k)
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	return " (body fields: " + strings.Join(sorted(diffs), " ") + ")"
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}

// ModelOf names the model a cassette was recorded with: the first
// request's URL and model id (the body's "model", or Gemini's
// models/ID:… path), so --replay needs no --model. ok is false when the
// cassette does not say.
func (c *Cassette) ModelOf() (u, id string, ok bool) {
	if len(c.recs) == 0 {
		return "", "", false
	}
	r := c.recs[0].Request
	var body struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(r.Body, &body)
	id = body.Model
	if id == "" {
		if _, rest, found := strings.Cut(pathOf(r.URL), "/models/"); found {
			id, _, _ = strings.Cut(rest, ":")
		}
	}
	return r.URL, id, id != ""
}

// CassetteModel finds the catalog model a cassette was recorded with: the
// model of that id whose provider's base URL the request went to, else
// the model the id resolves to.
func CassetteModel(cat *llm.Catalog, c *Cassette) (llm.Model, bool) {
	u, id, ok := c.ModelOf()
	if !ok {
		return llm.Model{}, false
	}
	for _, m := range cat.Models {
		if m.ID == id && m.BaseURL != "" && strings.HasPrefix(u, strings.TrimRight(m.BaseURL, "/")) {
			return m, true
		}
	}
	m, _, err := cat.Resolve(id)
	return m, err == nil
}
