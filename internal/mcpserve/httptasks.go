package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TaskHandler is TaskTransport over Streamable HTTP (NewTaskHandler): it
// stands in front of the SDK's handler, which knows nothing of tasks and
// whose connections cannot be wrapped. Per session (Mcp-Session-Id) it keeps a
// task table: a task-augmented tools/call is answered with its
// CreateTaskResult and sent on to Next as a call of ours (no task, an id
// of ours) whose SSE answer it reads; tasks/get, tasks/list and
// tasks/cancel are answered here as JSON; tasks/result is an SSE stream
// that carries what the task's call sends the client meanwhile
// (elicitation and sampling requests, which make the task input_required,
// progress, notifications/tasks/status) and then the result. initialize's
// and tools/list's answers get the tasks capability and each tool's
// execution.taskSupport, as over stdio. tasks/cancel cancels the call's
// context (a middleware of the server's gives each call of ours one), even
// when the call has not reached its tool yet.
type TaskHandler struct {
	next      http.Handler
	required  map[string]bool
	toolsOnly bool
	mu        sync.Mutex
	sessions  map[string]*httpSession
}

// NewTaskHandler serves srv over Streamable HTTP with tasks; required and
// toolsOnly are TaskTransport's Required and ToolsOnly.
func NewTaskHandler(srv *mcp.Server, required []string, toolsOnly bool) *TaskHandler {
	h := &TaskHandler{next: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil),
		required: requiredSet(required), toolsOnly: toolsOnly, sessions: map[string]*httpSession{}}
	srv.AddReceivingMiddleware(h.middleware)
	return h
}

// taskCall is the _meta key that marks a call of ours with its task's
// internal id.
const taskCall = "agent-mcp/task-call"

// middleware runs a call of ours under a context tasks/cancel cancels; one
// cancelled before it starts does not start.
func (h *TaskHandler) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" || req.GetSession() == nil || req.GetParams() == nil {
			return next(ctx, method, req)
		}
		internal, _ := req.GetParams().GetMeta()[taskCall].(string)
		s := h.session(req.GetSession().ID())
		if internal == "" || s == nil {
			return next(ctx, method, req)
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		s.mu.Lock()
		t := s.table.byInternalID(internal)
		if t == nil || s.table.cancelled(t) {
			s.mu.Unlock()
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "The task was cancelled before it started."}}}, nil
		}
		s.cancels[t] = cancel
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.cancels, t)
			s.mu.Unlock()
		}()
		return next(ctx, method, req)
	}
}

// httpSession is the tasks of one HTTP session.
type httpSession struct {
	id      string
	version string
	table   *taskTable
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	asks    map[any]*task // requests to the client on behalf of a task
	outs    map[*task]*taskOut
	cancels map[*task]context.CancelFunc // of the calls running
}

// taskOut is what a task's call sends the client, waiting for a tasks/result
// stream to carry it.
type taskOut struct {
	queue    [][]byte
	attached int
	wake     chan struct{}
}

// maxQueued bounds the messages a task keeps for a tasks/result that does
// not come: the oldest notifications are dropped first.
const maxQueued = 256

const maxBody = 4 << 20

func (h *TaskHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodDelete {
		h.next.ServeHTTP(w, r)
		h.end(r.Header.Get("Mcp-Session-Id"))
		return
	}
	if r.Method != http.MethodPost || r.Body == nil {
		h.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
	if err != nil || len(body) > maxBody {
		h.next.ServeHTTP(w, r)
		return
	}
	m, err := jsonrpc.DecodeMessage(body)
	if err != nil { // a batch, or not JSON-RPC: the SDK's to answer
		h.next.ServeHTTP(w, r)
		return
	}
	s := h.session(r.Header.Get("Mcp-Session-Id"))
	if resp, ok := m.(*jsonrpc.Response); ok {
		if s != nil {
			s.answered(resp.ID)
		}
		h.next.ServeHTTP(w, r)
		return
	}
	req := m.(*jsonrpc.Request)
	if !req.IsCall() {
		h.next.ServeHTTP(w, r)
		return
	}
	switch req.Method {
	case "initialize":
		version := protocolOf(req.Params)
		mw := &msgWriter{w: w, each: func(m jsonrpc.Message) jsonrpc.Message { return h.edit(m, req.ID, "initialize", version) }}
		h.next.ServeHTTP(mw, r)
		mw.end()
		if sid := w.Header().Get("Mcp-Session-Id"); sid != "" {
			h.start(sid, version)
		}
		return
	case "tools/list":
		version := ""
		if s != nil {
			version = s.version
		}
		mw := &msgWriter{w: w, each: func(m jsonrpc.Message) jsonrpc.Message { return h.edit(m, req.ID, "tools/list", version) }}
		h.next.ServeHTTP(mw, r)
		mw.end()
		return
	case "tools/call":
		params, meta, name := splitTask(req.Params)
		switch {
		case meta == nil && h.required[name]:
			writeJSON(w, &jsonrpc.Response{ID: req.ID, Error: requiredErr(name)})
			return
		case meta != nil && s != nil:
			t, created := s.table.start(meta)
			writeJSON(w, &jsonrpc.Response{ID: req.ID, Result: created})
			go h.run(s, r.Header.Clone(), t, params)
			return
		}
	case "tasks/get", "tasks/list", "tasks/cancel", "tasks/result":
		if s != nil {
			h.taskRequest(w, r, s, req)
			return
		}
	default:
		if h.toolsOnly && unoffered[req.Method] {
			writeJSON(w, &jsonrpc.Response{ID: req.ID, Error: unofferedErr(req.Method)})
			return
		}
	}
	h.next.ServeHTTP(w, r)
}

// edit edits initialize's or tools/list's answer (the response to id).
func (h *TaskHandler) edit(m jsonrpc.Message, id jsonrpc.ID, method, version string) jsonrpc.Message {
	if r, ok := m.(*jsonrpc.Response); ok && r.ID == id && r.Error == nil && r.Result != nil {
		r.Result = editResult(method, version, r.Result, h.required)
	}
	return m
}

func (h *TaskHandler) session(id string) *httpSession {
	if id == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[id]
}

// start keeps the tasks of a new session.
func (h *TaskHandler) start(id, version string) {
	s := &httpSession{id: id, version: version, asks: map[any]*task{}, outs: map[*task]*taskOut{}, cancels: map[*task]context.CancelFunc{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.table = newTaskTable(func(t *task, params json.RawMessage) {
		b, _ := jsonrpc.EncodeMessage(&jsonrpc.Request{Method: "notifications/tasks/status", Params: params})
		s.push(t, b, false)
	})
	h.mu.Lock()
	if old := h.sessions[id]; old != nil {
		old.cancel()
	}
	h.sessions[id] = s
	h.mu.Unlock()
}

// end forgets a session (DELETE) and gives up its calls.
func (h *TaskHandler) end(id string) {
	h.mu.Lock()
	s := h.sessions[id]
	delete(h.sessions, id)
	h.mu.Unlock()
	if s != nil {
		s.cancel()
	}
}

// post sends Next a message of ours in session s, with the protocol
// version of the client's request whose header is hdr; w reads the answer.
func (h *TaskHandler) post(ctx context.Context, s *httpSession, hdr http.Header, m jsonrpc.Message, w http.ResponseWriter) {
	b, _ := jsonrpc.EncodeMessage(m)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "/", bytes.NewReader(b))
	for _, k := range []string{"Mcp-Protocol-Version", "Authorization"} {
		if v := hdr.Get(k); v != "" {
			req.Header.Set(k, v)
		}
	}
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	h.next.ServeHTTP(w, req)
}

// run runs a task's call on Next and keeps its result; what the call sends
// the client meanwhile waits for tasks/result.
func (h *TaskHandler) run(s *httpSession, hdr http.Header, t *task, params json.RawMessage) {
	id, _ := jsonrpc.MakeID(t.internal)
	params = withMeta(params, taskCall, t.internal)
	mw := &msgWriter{each: func(m jsonrpc.Message) jsonrpc.Message {
		switch m := m.(type) {
		case *jsonrpc.Response:
			if m.ID == id {
				s.table.finish(t, m.Result, m.Error)
			}
		case *jsonrpc.Request:
			if m.IsCall() && asksClient[m.Method] {
				s.mu.Lock()
				s.asks[m.ID.Raw()] = t
				s.mu.Unlock()
				s.table.setStatus(t, "input_required")
				m.Params = withMeta(m.Params, relatedTask, map[string]any{"taskId": t.ID})
			}
			b, _ := jsonrpc.EncodeMessage(m)
			s.push(t, b, m.IsCall())
		}
		return nil
	}}
	h.post(s.ctx, s, hdr, &jsonrpc.Request{ID: id, Method: "tools/call", Params: params}, mw)
	mw.end()
	msg := "the call ended without a result"
	if mw.status >= 400 {
		msg += ": HTTP " + http.StatusText(mw.status) + ": " + strings.TrimSpace(string(mw.buf))
	}
	s.table.finish(t, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}) // when it has none
}

// taskRequest answers tasks/*: JSON, but tasks/result, an SSE stream.
func (h *TaskHandler) taskRequest(w http.ResponseWriter, r *http.Request, s *httpSession, req *jsonrpc.Request) {
	res, rerr, t := s.table.request(req.Method, req.Params)
	switch {
	case rerr != nil:
		writeJSON(w, &jsonrpc.Response{ID: req.ID, Error: rerr})
	case req.Method == "tasks/cancel":
		s.mu.Lock()
		cancel := s.cancels[t]
		s.mu.Unlock()
		if cancel != nil {
			cancel()
		}
		writeJSON(w, &jsonrpc.Response{ID: req.ID, Result: res})
	case req.Method == "tasks/result":
		s.result(w, r.Context(), t, req.ID)
	default:
		writeJSON(w, &jsonrpc.Response{ID: req.ID, Result: res})
	}
}

// result streams a task's messages to the client, then its outcome.
func (s *httpSession) result(w http.ResponseWriter, ctx context.Context, t *task, id jsonrpc.ID) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.WriteHeader(http.StatusOK)
	out := s.out(t)
	s.mu.Lock()
	out.attached++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		out.attached--
		s.mu.Unlock()
	}()
	send := func(b []byte) bool {
		_, err := io.WriteString(w, "event: message\ndata: "+string(b)+"\n\n")
		_ = http.NewResponseController(w).Flush()
		return err == nil
	}
	drain := func() bool {
		s.mu.Lock()
		q := out.queue
		out.queue = nil
		s.mu.Unlock()
		for _, b := range q {
			if !send(b) {
				return false
			}
		}
		return true
	}
	for {
		if !drain() {
			return
		}
		select {
		case <-out.wake:
			continue
		case <-t.done:
		case <-ctx.Done():
			return
		case <-s.ctx.Done():
			return
		}
		break
	}
	if !drain() {
		return
	}
	res, err := s.table.outcome(t)
	b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: res, Error: err})
	send(b)
}

func (s *httpSession) out(t *task) *taskOut {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.outs[t]
	if o == nil {
		o = &taskOut{wake: make(chan struct{}, 1)}
		s.outs[t] = o
	}
	return o
}

// push queues a message of a task's for the client: a status notification
// only while a tasks/result stream is open; the oldest notification goes
// when too many wait.
func (s *httpSession) push(t *task, b []byte, call bool) {
	o := s.out(t)
	s.mu.Lock()
	status := bytes.Contains(b, []byte(`"notifications/tasks/status"`))
	if status && o.attached == 0 {
		s.mu.Unlock()
		return
	}
	if len(o.queue) >= maxQueued && !call {
		for i, q := range o.queue {
			if m, err := jsonrpc.DecodeMessage(q); err == nil {
				if r, ok := m.(*jsonrpc.Request); ok && !r.IsCall() {
					o.queue = append(o.queue[:i], o.queue[i+1:]...)
					break
				}
			}
		}
	}
	o.queue = append(o.queue, b)
	s.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// answered notes the client's answer to a request of a task's: the task
// works again.
func (s *httpSession) answered(id jsonrpc.ID) {
	s.mu.Lock()
	t := s.asks[id.Raw()]
	delete(s.asks, id.Raw())
	s.mu.Unlock()
	if t != nil {
		s.table.setStatus(t, "working")
	}
}

// writeJSON answers a request with one JSON-RPC message.
func writeJSON(w http.ResponseWriter, m jsonrpc.Message) {
	b, _ := jsonrpc.EncodeMessage(m)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// msgWriter reads the JSON-RPC messages Next answers with (SSE events, or
// one JSON body) and hands each to each: with w, what each gives back is
// passed on (a nil drops it); without, the answer is only read.
type msgWriter struct {
	w      http.ResponseWriter
	each   func(jsonrpc.Message) jsonrpc.Message
	header http.Header
	status int
	sse    bool
	buf    []byte
	mu     sync.Mutex
}

func (m *msgWriter) Header() http.Header {
	if m.w != nil {
		return m.w.Header()
	}
	if m.header == nil {
		m.header = http.Header{}
	}
	return m.header
}

func (m *msgWriter) WriteHeader(code int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.status != 0 {
		return
	}
	m.status = code
	m.sse = strings.HasPrefix(m.Header().Get("Content-Type"), "text/event-stream")
	if m.w != nil {
		m.w.Header().Del("Content-Length") // an edit changes it
		m.w.WriteHeader(code)
	}
}

func (m *msgWriter) Write(p []byte) (int, error) {
	m.WriteHeader(http.StatusOK)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.buf = append(m.buf, p...)
	if !m.sse {
		return len(p), nil
	}
	for {
		i := bytes.Index(m.buf, []byte("\n\n"))
		if i < 0 {
			break
		}
		ev := string(m.buf[:i+2])
		m.buf = m.buf[i+2:]
		if err := m.event(ev); err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}

// event hands on an SSE event's message; other lines pass as they are.
func (m *msgWriter) event(ev string) error {
	var lines []string
	var data []string
	for _, l := range strings.Split(strings.TrimSuffix(ev, "\n\n"), "\n") {
		if d, ok := strings.CutPrefix(l, "data:"); ok {
			data = append(data, strings.TrimPrefix(d, " "))
			continue
		}
		lines = append(lines, l)
	}
	if len(data) > 0 {
		msg, err := jsonrpc.DecodeMessage([]byte(strings.Join(data, "\n")))
		if err == nil {
			out := m.each(msg)
			if out == nil {
				return nil
			}
			b, _ := jsonrpc.EncodeMessage(out)
			lines = append(lines, "data: "+string(b))
		} else {
			for _, d := range data {
				lines = append(lines, "data: "+d)
			}
		}
	}
	if m.w == nil {
		return nil
	}
	_, err := io.WriteString(m.w, strings.Join(lines, "\n")+"\n\n")
	_ = http.NewResponseController(m.w).Flush()
	return err
}

func (m *msgWriter) Flush() {
	if m.w != nil {
		_ = http.NewResponseController(m.w).Flush()
	}
}

// end hands on a JSON answer once Next is done with it.
func (m *msgWriter) end() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sse || len(m.buf) == 0 {
		return
	}
	body := m.buf
	if msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(body)); err == nil && m.status < 300 {
		if out := m.each(msg); out != nil {
			body, _ = jsonrpc.EncodeMessage(out)
		} else {
			body = nil
		}
		m.buf = nil
	}
	if m.w != nil {
		_, _ = m.w.Write(body)
	}
}
