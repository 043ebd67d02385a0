// Package fakellm is the one fake model provider of agentutils: an HTTP
// server that answers the four wire APIs' endpoints from a script of steps
// (recorded SSE files replayed byte for byte in each provider's format,
// error statuses, a stream cut after N bytes, a hang, paced events) or, in
// agent mode, by the conversation (agent.go), and records every request it
// received. The Go tests start it in-process (New, and the testscript
// command in internal/testbin); scripts/fakeprovider is the same server as
// a program for the demo, bench and interop scripts. Everything around it
// is real.
package fakellm

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Step is one scripted answer, consumed in order.
type Step struct {
	SSE            string            // a file of SSE bytes to replay
	Body           []byte            // literal body (with Status); the SSE bytes without
	Status         int               // 0 = 200
	Headers        map[string]string // extra response headers (retry-after …)
	DropAfterBytes int               // cut the stream after this many bytes
	Hang           bool              // send headers, then nothing until the client gives up
	Delay          time.Duration     // pause before the first byte, like a model thinking
	EventDelay     time.Duration     // pause between SSE events
	Burst          int               // send the first Burst events together, without EventDelay
	// AwaitRequests holds the answer until the server has received this
	// many requests in all: a test of concurrent calls has the first
	// answer wait for the second request.
	AwaitRequests int
}

// Request is what the server received.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
	// Open is how many earlier requests were still being answered when
	// this one arrived.
	Open int
}

// Server is a running fake provider. Its fields are set before the first
// request arrives.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	steps    []Step
	next     int
	requests []Request
	open     int
	arrived  chan struct{} // closed and replaced at each request
	done     chan struct{}
	seq      atomic.Int64 // agent mode's ids
	// Cycle serves the steps again from the first after the last (a
	// scripted conversation repeated for a benchmark); without it a
	// request beyond the script gets a 500.
	Cycle bool
	// Answer, when set, answers each POST with the step it returns for the
	// request instead of the script's next one (a fake that answers by the
	// request, Reply.SSE composing the stream).
	Answer func(r Request) Step
	// Agent, when set, answers Claude Code's and Codex's requests by the
	// conversation instead of the steps, editing in this directory (agent.go).
	Agent string
	// RequestDir, when set, keeps each request body as RequestDir/N.json
	// (N counts from 1), written before the answer, and appends "N METHOD
	// PATH" to RequestDir/index.
	RequestDir string
	// Trace, when set, gets "request NS" at a request's arrival and
	// "first NS" when its first event is flushed (Unix nanoseconds).
	Trace io.Writer
	// OnRequest, when set, sees each request as it arrives (tests dump them).
	OnRequest func(n int, r Request)
}

// New starts a server on loopback answering with steps.
func New(steps ...Step) *Server {
	s := &Server{steps: steps, done: make(chan struct{}), arrived: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// NewTLS starts a server on loopback answering with steps over HTTPS,
// offering HTTP/2 as the providers' servers do; its certificate is
// httptest's (Server.Certificate, Server.Client trusts it).
func NewTLS(steps ...Step) *Server {
	s := &Server{steps: steps, done: make(chan struct{}), arrived: make(chan struct{})}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.EnableHTTP2 = true
	s.StartTLS()
	return s
}

// Close stops the server, releasing hanging handlers first.
func (s *Server) Close() {
	close(s.done)
	s.Server.Close()
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// modelList answers a GET (a client listing the models).
const modelList = `{"object":"list","data":[{"id":"test-model","object":"model"}]}`

func (s *Server) mark(what string) {
	if s.Trace != nil {
		fmt.Fprintf(s.Trace, "%s %d\n", what, time.Now().UnixNano())
	}
}

// arrive records a request and picks its step; ok is false when the
// script has no step left.
func (s *Server) arrive(r *http.Request) (req Request, st Step, ok bool) {
	body, _ := io.ReadAll(r.Body)
	s.mark("request")
	s.mu.Lock()
	defer s.mu.Unlock()
	req = Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Open: s.open}
	s.requests = append(s.requests, req)
	n := len(s.requests)
	s.open++
	close(s.arrived)
	s.arrived = make(chan struct{})
	if s.RequestDir != "" {
		os.WriteFile(filepath.Join(s.RequestDir, strconv.Itoa(n)+".json"), body, 0o644)
		if f, err := os.OpenFile(filepath.Join(s.RequestDir, "index"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
			fmt.Fprintf(f, "%d %s %s\n", n, r.Method, r.URL.Path)
			f.Close()
		}
	}
	if s.OnRequest != nil {
		s.OnRequest(n, req)
	}
	if s.Cycle && len(s.steps) > 0 && s.next == len(s.steps) {
		s.next = 0
	}
	if s.next >= len(s.steps) {
		return req, Step{}, false
	}
	st = s.steps[s.next]
	s.next++
	return req, st, true
}

// await blocks until n requests have arrived in all, or the request or
// the server is done (false).
func (s *Server) await(r *http.Request, n int) bool {
	s.mu.Lock()
	for len(s.requests) < n {
		arrived := s.arrived
		s.mu.Unlock()
		select {
		case <-arrived:
		case <-r.Context().Done():
			return false
		case <-s.done:
			return false
		}
		s.mu.Lock()
	}
	s.mu.Unlock()
	return true
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost && s.Agent == "" {
		w.Header().Set("content-type", "application/json")
		io.WriteString(w, modelList)
		return
	}
	req, st, ok := s.arrive(r)
	defer func() {
		s.mu.Lock()
		s.open--
		s.mu.Unlock()
	}()
	if s.Agent != "" {
		s.agent(w, req, func() {
			select {
			case <-r.Context().Done():
			case <-s.done:
			}
		})
		return
	}
	if s.Answer != nil {
		st, ok = s.Answer(req), true
	}
	if !ok {
		http.Error(w, `{"error":{"message":"fakellm: no scripted step left"}}`, http.StatusInternalServerError)
		return
	}
	if !s.await(r, st.AwaitRequests) {
		return
	}
	s.answer(w, r, st)
}

// pause waits d, or less when the request or the server is done (false).
func (s *Server) pause(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	select {
	case <-time.After(d):
		return true
	case <-r.Context().Done():
	case <-s.done:
	}
	return false
}

// answer writes one step.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, st Step) {
	for k, v := range st.Headers {
		w.Header().Set(k, v)
	}
	if !s.pause(r, st.Delay) {
		return
	}
	if st.Status != 0 && st.Status != 200 {
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(st.Status)
		w.Write(st.Body)
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.WriteHeader(200)
	flush := func() {
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	}
	if st.Hang {
		flush()
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	}
	data := st.Body
	if st.SSE != "" {
		var err error
		if data, err = os.ReadFile(st.SSE); err != nil {
			fmt.Fprintf(w, "event: error\ndata: fakellm: %v\n\n", err)
			return
		}
	}
	if st.DropAfterBytes > 0 && st.DropAfterBytes < len(data) {
		data = data[:st.DropAfterBytes]
	}
	if st.EventDelay == 0 {
		w.Write(data)
		flush()
		s.mark("first")
		return
	}
	// The events are cut from the script one at a time: a long script is
	// not split whole before the first event goes out.
	marked := false
	for i, rest := 0, data; len(rest) > 0; i++ {
		n := bytes.Index(rest, []byte("\n\n")) + 2
		if n < 2 {
			n = len(rest)
		}
		ev := rest[:n]
		rest = rest[n:]
		if _, err := w.Write(ev); err != nil {
			return
		}
		if i+1 < st.Burst && len(rest) > 0 {
			continue
		}
		flush()
		if !marked { // the burst is out (or the script ended within it)
			marked = true
			s.mark("first")
		}
		if !s.pause(r, st.EventDelay) {
			return
		}
	}
}

// ModelsTOML is a models.toml pointing a provider of the given api at the
// server, its model's context window 1000 tokens (a test's compaction
// comes soon); the key comes from the FAKE_KEY variable.
func (s *Server) ModelsTOML(provider, api, model string) string {
	return ModelsTOML(s.URL, provider, api, model, 1000)
}

// ModelsTOML is a models.toml pointing a provider of the given api at the
// fake server at url (scripts/fakeprovider prints it), its model's context
// window window tokens; the key comes from the FAKE_KEY variable.
func ModelsTOML(url, provider, api, model string, window int) string {
	return strings.Join([]string{
		"[providers." + provider + "]",
		`baseUrl = "` + url + `"`,
		`api = "` + api + `"`,
		`apiKey = "FAKE_KEY"`,
		"",
		"[[providers." + provider + ".models]]",
		`id = "` + model + `"`,
		"reasoning = true",
		`input = ["text", "image"]`,
		"contextWindow = " + strconv.Itoa(window),
		"maxTokens = 512",
		"cost = { input = 3, output = 15, cacheRead = 0.3, cacheWrite = 3.75 }",
		"",
	}, "\n")
}
